"""research/endgame_fit.py: exact endgame labels and the anchored suit-symmetric fit."""

from __future__ import annotations

import numpy as np
import pytest

from sixtysix_env.agents import make_agent
from sixtysix_env.game.actions import CLOSE, NUM_ACTIONS
from sixtysix_env.policy import read_policy


@pytest.fixture(scope="module")
def labels(tmp_path_factory):
    from research.endgame_fit import collect

    path = str(tmp_path_factory.mktemp("endgame") / "labels.npz")
    meta = collect("sixtysix-ppo-v3", hands=24, seed=3, out=path, anchor_share=0.5)
    return path, meta


def test_labels_are_the_solvers_best_moves_and_repeat_with_the_seed(labels, tmp_path):
    from research.endgame_fit import collect

    path, meta = labels
    data = np.load(path)
    best, masks, gap = data["best"], data["masks"], data["gap"]
    assert meta["labelled"] == len(best) > 0 and meta["anchor_rows"] == len(data["anchor_obs"]) > 0
    assert (best <= masks).all() and best.any(axis=1).all()  # best moves are legal, one at least
    assert (masks.sum(axis=1) > 1).all()  # only real choices are labelled
    assert meta["policy_mistakes"] == int((gap > 0).sum()) and (gap >= 0).all()
    # the policy's own argmax (what it played: it plays deterministically) is a mistake
    # exactly where the solver's value of it fell short of the best
    probs = make_agent("sixtysix-ppo-v3").network.probabilities(data["obs"], masks)
    played_best = best[np.arange(len(best)), probs.argmax(axis=1)]
    np.testing.assert_array_equal(~played_best, gap > 0)
    again = str(tmp_path / "again.npz")
    collect("sixtysix-ppo-v3", hands=24, seed=3, out=again, anchor_share=0.5)
    for key in ("obs", "masks", "best", "gap", "anchor_obs"):
        np.testing.assert_array_equal(np.load(again)[key], data[key])


@pytest.mark.slow  # torch and two fits: the full run, not the fast lane
def test_the_fit_starts_from_the_policy_and_stays_suit_symmetric(labels, tmp_path):
    pytest.importorskip("torch")
    from research.endgame_fit import fit
    from sixtysix_env.policy.network import suit_tables

    path, _ = labels
    obs = np.load(path)["obs"]
    source = make_agent("sixtysix-ppo-v3").network
    same = str(tmp_path / "same.npz")
    record = fit("sixtysix-ppo-v3", [path], same, epochs=0)
    np.testing.assert_allclose(read_policy(same)[0].logits(obs), source.logits(obs), atol=1e-4)
    assert record["history"][0]["anchor_kl"] == pytest.approx(0.0, abs=1e-6)

    moved = str(tmp_path / "moved.npz")
    record = fit("sixtysix-ppo-v3", [path], moved, epochs=2, learning_rate=1e-3, batch_size=16)
    net, meta = read_policy(moved)
    assert net.symmetry is None  # an ordinary file: one forward pass
    assert meta["rules"] == "altmisalti" and meta["training"]["endgame_fit"]["epochs"] == 2
    assert np.abs(net.logits(obs) - source.logits(obs)).max() > 1e-3
    base = net.logits(obs)
    for obs_map, action_map in zip(*suit_tables()):
        np.testing.assert_allclose(net.logits(obs[:, obs_map])[:, action_map], base, atol=1e-4)
    assert [h["epoch"] for h in record["history"]] == [0, 1, 2]
    assert "held_out_rows" not in record["history"][0]

    held = fit("sixtysix-ppo-v3", [path], str(tmp_path / "held.npz"), epochs=0, val_fraction=0.25)
    first = held["history"][0]
    assert first["rows"] + first["held_out_rows"] == record["history"][0]["rows"]
    assert first["held_out_rows"] == round(0.25 * record["history"][0]["rows"])
    with pytest.raises(ValueError, match=r"val_fraction 1.0 must be in \[0, 1\)"):
        fit("sixtysix-ppo-v3", [path], str(tmp_path / "bad.npz"), epochs=0, val_fraction=1.0)


@pytest.mark.slow
def test_a_plain_network_is_refused_by_name(labels, tmp_path):
    pytest.importorskip("torch")
    from research.endgame_fit import fit

    with pytest.raises(ValueError, match="not suit-symmetric.*actor_symmetry: suits"):
        fit("sixtysix-ppo-v2", [labels[0]], str(tmp_path / "x.npz"), epochs=0)
    other = tmp_path / "other.npz"
    np.savez(other, obs=np.zeros((1, 3)))
    with pytest.raises(ValueError, match="not an endgame label file"):
        fit("sixtysix-ppo-v3", [str(other)], str(tmp_path / "y.npz"), epochs=0)
    with pytest.raises(ValueError, match="'heuristic' is not a policy file"):
        fit("heuristic", [labels[0]], str(tmp_path / "x.npz"), epochs=0)


@pytest.fixture(scope="module")
def closed_labels(tmp_path_factory):
    from research.endgame_fit import collect

    path = str(tmp_path_factory.mktemp("closed") / "closed.npz")
    meta = collect("sixtysix-ppo-v4", hands=12, seed=5, out=path, parts=("closed",))
    return path, meta


def test_search_labels_for_the_closed_stock_are_experts_moves(closed_labels):
    from research.endgame_fit import PARTS

    path, meta = closed_labels
    data = np.load(path)
    best, masks, gap, part = data["best"], data["masks"], data["gap"], data["part"]
    closed = PARTS.index("closed")
    assert meta["parts"] == ["closed"] and len(best) > 0
    assert (part == closed).all() and meta["labelled_by_part"]["closed"] == len(best)
    assert (best.sum(axis=1) == 1).all() and (best <= masks).all()  # expert's one move, legal
    probs = make_agent("sixtysix-ppo-v4").network.probabilities(data["obs"], masks)
    played_best = best[np.arange(len(best)), probs.argmax(axis=1)]
    np.testing.assert_array_equal(~played_best, gap > 0)
    assert meta["mistakes_by_part"]["closed"] == int((~played_best).sum())


def test_unknown_parts_are_refused_by_name(tmp_path):
    from research.endgame_fit import collect

    with pytest.raises(ValueError, match=r"parts \['endgame'\] unknown; choose from"):
        collect("sixtysix-ppo-v4", hands=1, seed=0, out=str(tmp_path / "x.npz"), parts=("endgame",))
    with pytest.raises(ValueError, match=r"parts \(none\) unknown"):
        collect("sixtysix-ppo-v4", hands=1, seed=0, out=str(tmp_path / "x.npz"), parts=())


@pytest.mark.slow  # expert's full open-phase search at every decision where closing is legal
def test_close_labels_are_the_close_or_every_other_legal_move(tmp_path):
    from research.endgame_fit import PARTS, collect

    path = str(tmp_path / "close.npz")
    collect("sixtysix-ppo-v4", hands=4, seed=2, out=path, parts=("close",))
    data = np.load(path)
    best, masks = data["best"], data["masks"]
    assert len(best) > 0 and (data["part"] == PARTS.index("close")).all()
    assert masks[:, CLOSE].all()  # every labelled decision could close
    only_close = best[:, CLOSE] & (best.sum(axis=1) == 1)
    rest = ~best[:, CLOSE] & (best == (masks & (np.arange(NUM_ACTIONS) != CLOSE))).all(axis=1)
    assert (only_close | rest).all()


def test_a_close_labels_values_stand_for_every_other_move():
    from research.endgame_fit import _value

    searched = {5: 1.0, CLOSE: 2.0}  # expert:open_search=close valued the heuristic's move 5
    assert _value(searched, "close", 7) == 1.0 and _value(searched, "close", CLOSE) == 2.0
    assert _value({CLOSE: 2.0}, "close", 7) is None  # the heuristic's move was the close
    assert _value({3: 0.5}, "closed", 3) == 0.5 and _value({3: 0.5}, "closed", 4) is None


@pytest.mark.slow
def test_a_tolerance_counts_the_policys_near_moves_as_best(closed_labels, tmp_path):
    pytest.importorskip("torch")
    from research.endgame_fit import fit

    path, _ = closed_labels
    gap = np.load(path)["gap"]
    exact = fit("sixtysix-ppo-v4", [path], str(tmp_path / "a.npz"), epochs=0)["history"][0]
    assert exact["mistakes"] == int((gap > 0).sum()) > 0
    loose = fit("sixtysix-ppo-v4", [path], str(tmp_path / "b.npz"), epochs=0, tolerance=0.1)
    assert loose["history"][0]["mistakes"] == int((gap > 0.1).sum()) < exact["mistakes"]
    with pytest.raises(ValueError, match="tolerance -1.0 must be at least 0"):
        fit("sixtysix-ppo-v4", [path], str(tmp_path / "c.npz"), epochs=0, tolerance=-1.0)


@pytest.mark.slow  # torch and three fits
def test_an_own_label_target_keeps_the_policys_choice_among_the_best_moves(labels, tmp_path):
    pytest.importorskip("torch")
    from research.endgame_fit import fit

    path, _ = labels
    data = dict(np.load(path))
    obs, masks = data["obs"], data["masks"]
    source = make_agent("sixtysix-ppo-v3").network
    probs = source.probabilities(obs, masks)
    # each row's label: any move but the policy's favourite (as "any move but the
    # close" is where the policy would close and the search would not)
    best = masks.copy()
    best[np.arange(len(best)), probs.argmax(axis=1)] = False
    keep = best.sum(axis=1) > 1  # the choice among the rest is what is measured
    data["best"] = best
    relabelled = str(tmp_path / "relabelled.npz")
    np.savez_compressed(relabelled, **data)

    def among_best(p):  # the distribution over each row's best moves, renormalized
        q = np.where(best, np.clip(p, 1e-12, None), 0.0)[keep]
        return q / q.sum(axis=1, keepdims=True)

    before = among_best(probs)
    drift, favourite = {}, {}
    for target in ("any", "own"):
        out = str(tmp_path / f"{target}.npz")
        rec = fit(
            "sixtysix-ppo-v3",
            [relabelled],
            out,
            epochs=3,
            learning_rate=1e-3,
            batch_size=16,
            label_target=target,
        )
        assert rec["label_target"] == target
        after_p = read_policy(out)[0].probabilities(obs, masks)
        after = among_best(after_p)
        ratio = np.where(before > 0, before / np.where(after > 0, after, 1.0), 1.0)
        drift[target] = float((before * np.log(ratio)).sum(axis=1).mean())
        favourite[target] = float(after_p[np.arange(len(best)), probs.argmax(axis=1)].mean())
    base = float(probs.max(axis=1).mean())
    assert favourite["own"] < base and favourite["any"] < base  # both leave the favourite
    # "own" pulls the rest's shape back towards the policy's, "any" leaves it free
    # (3 epochs at 1e-3: about 0.67 nats against 1.44)
    assert drift["own"] < 0.6 * drift["any"], drift
    with pytest.raises(
        ValueError, match=r"label_target 'mine' unknown; choose from \['any', 'own'\]"
    ):
        fit("sixtysix-ppo-v3", [relabelled], str(tmp_path / "x.npz"), label_target="mine")


@pytest.mark.slow  # torch
def test_a_fit_can_take_one_part_of_the_labels(labels, closed_labels, tmp_path):
    pytest.importorskip("torch")
    from research.endgame_fit import fit

    both = [labels[0], closed_labels[0]]  # exhausted rows, then closed-stock rows
    n_exhausted, n_closed = labels[1]["labelled"], closed_labels[1]["labelled"]
    for parts, rows in ((None, n_exhausted + n_closed), (("closed",), n_closed)):
        rec = fit("sixtysix-ppo-v4", both, str(tmp_path / "a.npz"), epochs=0, parts=parts)
        assert rec["history"][0]["rows"] == rows
    rec = fit("sixtysix-ppo-v4", both, str(tmp_path / "b.npz"), epochs=0, parts=("exhausted",))
    assert rec["history"][0]["mistakes_by_part"].keys() == {"exhausted"}
    with pytest.raises(ValueError, match=r"no rows of parts \['close'\]"):
        fit("sixtysix-ppo-v4", both, str(tmp_path / "c.npz"), epochs=0, parts=("close",))
    with pytest.raises(ValueError, match=r"parts \['endgame'\] unknown; choose from"):
        fit("sixtysix-ppo-v4", both, str(tmp_path / "d.npz"), epochs=0, parts=("endgame",))
