"""The expert's action values (ExpertAgent.decide) and their distillation (issue 12)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sixtysix_env.agents import make_agent
from sixtysix_env.game.actions import CLOSE
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.rules import make_rules
from sixtysix_env.game.view import player_view
from sixtysix_env.policy import read_policy


def _views(n_hands: int = 3):
    """Views of a few heuristic-vs-heuristic hands, each with more than one legal action."""
    cfg = make_rules("altmisalti")
    h = make_agent("heuristic")
    out = []
    for k in range(n_hands):
        rng = random.Random(k)
        s = new_hand(rng, k % 2, cfg)
        while s.result is None:
            v = player_view(s, s.current_player())
            if v.legal_mask & (v.legal_mask - 1):
                out.append(v)
            s = s.apply(h.act(v, rng))
    return out


@pytest.mark.slow  # over a second: the full run, not the fast lane
def test_decide_returns_acts_choice_and_the_values_it_chose_from():
    expert = make_agent("expert:samples=6")
    searched = 0
    for i, v in enumerate(_views()):
        a = expert.act(v, random.Random(i))
        b, vals = expert.decide(v, random.Random(i))
        assert a == b
        if vals:
            searched += 1
            assert set(vals) <= {x for x in range(34) if v.legal_mask >> x & 1}
            # The choice is the best value, or the heuristic's move within the margin.
            assert vals[b] >= max(vals.values()) - expert.margin - 1e-9
    assert searched > 10


def test_soft_targets_follow_the_values_and_fall_back_to_one_hot():
    from research.distill_soft import targets

    masks = np.zeros((2, 34), dtype=bool)
    masks[:, [0, 1, CLOSE]] = True
    values = np.full((2, 34), np.nan, dtype=np.float32)
    values[0, [0, 1, CLOSE]] = [0.5, 0.0, 0.6]  # row 1 has no values (an obvious move)
    teacher = np.array([CLOSE, 1])
    hard = targets(values, masks, teacher, "hard", 1.0)
    assert hard[0, CLOSE] == 1 and hard[1, 1] == 1 and hard.sum() == 2
    soft = targets(values, masks, teacher, "soft", 0.25)
    np.testing.assert_allclose(soft.sum(1), 1.0, rtol=1e-6)
    assert soft[0, CLOSE] > soft[0, 0] > soft[0, 1] > 0
    e = np.exp(np.array([0.5, 0.0, 0.6]) / 0.25)
    np.testing.assert_allclose(soft[0, [0, 1, CLOSE]], e / e.sum(), rtol=1e-5)
    assert soft[0, CLOSE] < 0.6  # a 0.1 gp lead is no certainty at T = 0.25
    np.testing.assert_array_equal(soft[1], hard[1])
    sharper = targets(values, masks, teacher, "soft", 0.01)
    assert sharper[0, CLOSE] > 0.99
    # min_gap: where the teacher's value leads the learner's move by less, the learner's stays.
    learner = np.array([0, 0])
    kept = targets(values, masks, teacher, "hard", 1.0, learner, min_gap=0.2)
    assert kept[0, 0] == 1 and kept[0].sum() == 1  # 0.6 - 0.5 < 0.2
    np.testing.assert_array_equal(kept[1], hard[1])  # no values: the teacher's label
    moved = targets(values, masks, teacher, "hard", 1.0, learner, min_gap=0.05)
    np.testing.assert_array_equal(moved, hard)
    soft_kept = targets(values, masks, teacher, "soft", 0.25, learner, min_gap=0.2)
    assert soft_kept[0, 0] == 1 and soft_kept[0].sum() == 1
    # labels: teacher targets only where someone closes, or only elsewhere.
    both = targets(values, masks, teacher, "hard", 1.0, learner, labels="close")
    np.testing.assert_array_equal(both[0], hard[0])  # the teacher closes in row 0
    assert both[1, 0] == 1 and both[1].sum() == 1  # row 1 has no close: the learner's move
    other = targets(values, masks, teacher, "hard", 1.0, learner, labels="no-close")
    assert other[0, 0] == 1 and other[0].sum() == 1
    np.testing.assert_array_equal(other[1], hard[1])
    phase = np.array(["open", "exhausted"])
    late = targets(values, masks, teacher, "hard", 1.0, learner, labels="exhausted", phase=phase)
    assert late[0, 0] == 1 and late[0].sum() == 1  # open: the learner's move
    np.testing.assert_array_equal(late[1], hard[1])
    with pytest.raises(ValueError, match="phase of each row"):
        targets(values, masks, teacher, "hard", 1.0, learner, labels="open")
    with pytest.raises(ValueError, match="labels must be one of"):
        targets(values, masks, teacher, "hard", 1.0, learner, labels="closes")
    dist = np.full((2, 34), 0.0, dtype=np.float32)
    dist[:, [0, 1]] = 0.5
    anchored = targets(values, masks, teacher, "hard", 1.0, learner, min_gap=0.2, anchor=dist)
    np.testing.assert_array_equal(anchored[0], dist[0])  # kept: the learner's distribution
    np.testing.assert_array_equal(anchored[1], hard[1])
    with pytest.raises(ValueError, match="learner's actions"):
        targets(values, masks, teacher, "hard", 1.0, None, min_gap=0.2)
    with pytest.raises(ValueError, match="temperature"):
        targets(values, masks, teacher, "soft", 0.0)
    with pytest.raises(ValueError, match="'hard' or 'soft'"):
        targets(values, masks, teacher, "mixed", 1.0)


@pytest.mark.slow  # over a second: the full run, not the fast lane
def test_collect_then_fit_writes_a_policy_file_closer_to_the_teacher(tmp_path):
    from research.distill_soft import (
        STUDY_COLUMNS,
        collect,
        fit,
        load_data,
        save_data,
        summarize,
    )

    res = collect(
        "sixtysix-ppo", "expert:samples=4", "heuristic", 6, seed=3, close_study=True, playouts=True
    )
    d = res["data"]
    played = np.isfinite(d["playouts"]).all(1)
    np.testing.assert_array_equal(played, d["teacher"] != d["learner"])  # only disagreements
    n = res["meta"]["decisions"]
    assert n == len(d["teacher"]) == len(d["learner"]) == len(d["obs"]) > 20
    assert d["masks"][np.arange(n), d["teacher"]].all()
    finite = np.isfinite(d["values"])
    assert not (finite & ~d["masks"]).any()  # values only for legal actions
    assert d["study"].shape[1] == len(STUDY_COLUMNS)
    again = collect(
        "sixtysix-ppo", "expert:samples=4", "heuristic", 6, seed=3, close_study=True, playouts=True
    )
    for k in d:
        np.testing.assert_array_equal(d[k], again["data"][k])
    path = str(tmp_path / "d.npz")
    save_data(res, path)
    from research.distill_soft import phases

    ph = phases(d["obs"])
    assert set(ph) <= {"open", "closed", "exhausted"} and "open" in set(ph)
    summary = summarize(load_data(path)[0], ("sixtysix-ppo",))
    assert summary["decisions"] == n
    # The learner is the shipped policy: scored again, it makes the learner's choices.
    assert summary["policy sixtysix-ppo"]["agreement"] == pytest.approx(summary["agreement"])
    assert summary["policy sixtysix-ppo"]["closes"] == summary["learner_closes"]
    rec = summary["policy sixtysix-ppo"]
    assert rec["exhausted_decisions"] == (ph == "exhausted").sum()
    # Exact values are whole game points: each mistake loses at least one.
    assert rec["exhausted_gp_lost"] >= rec["exhausted_mistakes"] >= 0
    assert (rec["exhausted_gp_lost"] == 0) == (rec["exhausted_mistakes"] == 0)
    po = summary["playouts (teacher's move vs learner's, learner finishes)"]
    assert po["n"] == played.sum() == po["all"]["n"]
    out = str(tmp_path / "fitted.npz")
    rec = fit(
        "sixtysix-ppo",
        path,
        out,
        "hard",
        epochs=8,
        learning_rate=3e-3,
        batch_size=16,
        val_fraction=0.0,
    )
    assert rec["history"][-1]["loss"] < rec["history"][1]["loss"]
    net, meta = read_policy(out)
    base = make_agent("sixtysix-ppo").network
    assert meta["training"]["distill_soft"]["target"] == "hard"
    logits = net.logits(d["obs"])
    agree = (np.where(d["masks"], logits, -np.inf).argmax(1) == d["teacher"]).mean()
    assert agree > (d["learner"] == d["teacher"]).mean()  # the unfitted policy's agreement
    assert rec["history"][-1]["train_agreement"] == pytest.approx(agree, abs=1e-6)
    head = fit("sixtysix-ppo", path, str(tmp_path / "head.npz"), "hard", epochs=2, train="head")
    assert head["train"] == "head"
    fitted, _ = read_policy(str(tmp_path / "head.npz"))
    for w0, w1 in zip(
        base.weights[:-1] + base.biases[:-1], fitted.weights[:-1] + fitted.biases[:-1]
    ):
        np.testing.assert_array_equal(w0, w1)  # hidden layers untouched
    assert not np.array_equal(base.weights[-1], fitted.weights[-1])
    with pytest.raises(ValueError, match="'all' or 'head'"):
        fit("sixtysix-ppo", path, str(tmp_path / "x.npz"), "hard", epochs=1, train="last")
    # The option reaches the fit and its record; targets() above tests what it does.
    same = fit(
        "sixtysix-ppo",
        path,
        str(tmp_path / "same.npz"),
        "hard",
        epochs=1,
        min_gap=1e9,
        anchor="policy",
    )
    assert same["anchor"] == "policy"
    with pytest.raises(ValueError, match="'move' or 'policy'"):
        fit("sixtysix-ppo", path, str(tmp_path / "y.npz"), "hard", epochs=1, anchor="both")
    twice = fit("sixtysix-ppo", [path, path], str(tmp_path / "twice.npz"), "soft", epochs=1)
    assert twice["decisions"] == 2 * n and len(twice["data"]) == 2
    with pytest.raises(ValueError, match="not a soft distillation data file"):
        load_data(out)
