"""The evaluation tool: paired deals, reproducibility, statistics, errors, CLI."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from sixtysix_env import make_rules
from sixtysix_env.agents import HeuristicAgent, RandomAgent
from sixtysix_env.evaluation import (
    IllegalAgentActionError,
    bradley_terry,
    deal_deck,
    evaluate,
    play_paired_deal,
    play_paired_match,
)


def test_paired_deal_swaps_seats_on_the_same_deck():
    rules = make_rules("altmisalti")
    for index in range(30):
        states = []
        a, b = RandomAgent(), HeuristicAgent()
        rec = play_paired_deal(a, b, seed=4, index=index, rules=rules, keep_states=states)
        (start0, end0), (start1, end1) = states
        # Same deck: same hands per seat, same trump, same stock, same dealer.
        assert start0.hands == start1.hands
        assert start0.stock == start1.stock and start0.trump_card == start1.trump_card
        assert start0.dealer == start1.dealer == index % 2
        # A sat at seat 0 in game 0 and at seat 1 in game 1.
        assert rec.gp == (end0.returns()[0], end1.returns()[1])


def test_paired_deal_gives_each_agent_each_seats_cards():
    rules = make_rules("pagat66")
    for index in range(20):
        a, b = _FirstHand("A"), _FirstHand("B")
        states = []
        play_paired_deal(a, b, seed=9, index=index, rules=rules, keep_states=states)
        start = states[0][0]
        # Game 0: A holds seat 0's cards; game 1: A holds seat 1's cards (and B the reverse).
        assert a.hands == [start.hand(0), start.hand(1)]
        assert b.hands == [start.hand(1), start.hand(0)]


class _FirstHand:
    """Random play; records its hand at its first decision of each game.

    Under pagat66 nobody may close on the first lead, so an agent's first
    decision of a hand is the only one with no trick done and no card played.
    """

    def __init__(self, name):
        self.name = name
        self.hands = []

    def act(self, view, rng):
        if view.tricks_done == 0 and view.played[view.seat] == 0:
            self.hands.append(view.hand)
        legal = view.legal_actions()
        return legal[rng.randrange(len(legal))]


def test_decks_are_shared_by_pairs_and_fixed_by_seed():
    assert deal_deck(1, 5) == deal_deck(1, 5)
    assert deal_deck(1, 5) != deal_deck(2, 5)
    assert sorted(deal_deck(3, 0)) == list(range(24))


def test_short_evaluation_is_reproducible_by_seed():
    agents = ["random", "heuristic", "expert:samples=1"]
    r1 = evaluate(agents, deals=6, seed=11)
    r2 = evaluate(agents, deals=6, seed=11)
    r3 = evaluate(agents, deals=6, seed=11, workers=2, chunk_size=2)
    for r in (r2, r3):
        assert [vars(p) for p in r.pairs] == [vars(p) for p in r1.pairs]
        assert r.elo == r1.elo
    other = evaluate(agents[:2], deals=6, seed=12)
    assert [p.hands for p in other.pairs] == [12]
    assert r1.complete and r1.elo["heuristic"] == 1500.0 and r1.elo_anchor == "heuristic"


def test_evaluation_figures_are_consistent():
    res = evaluate(["random", "heuristic"], deals=40, seed=1)
    p = res.pair("random", "heuristic")
    assert p.deals == 40 and p.hands == 80
    assert p.hands_won_a + p.hands_won_b + p.hands_tied == 80
    assert p.gp_ci95[0] < p.gp_per_hand < p.gp_ci95[1]
    assert p.gp_per_hand < 0  # random loses to the heuristic
    assert res.elo["random"] < res.elo["heuristic"] == 1500.0  # the benchmark's anchor
    assert p.matches == 0 and p.match_rate_a is None
    assert "heuristic" in res.timing and res.timing["heuristic"]["decisions"] > 0
    d = res.to_dict()
    assert json.loads(json.dumps(d))["pairs"][0]["hands"] == 80


def test_match_mode_counts_matches():
    res = evaluate(["random", "heuristic"], matches=3, seed=2, rules="santase")
    p = res.pairs[0]
    assert p.matches == 6 and 0 <= p.matches_won_a <= 6
    assert p.match_ci95 is not None and 0 <= p.match_ci95[0] <= p.match_ci95[1] <= 1
    assert p.hands >= 6 * 2  # a santase match to 11 takes at least 4 hands
    assert p.gp_ci95[0] < p.gp_per_hand < p.gp_ci95[1]
    rec = play_paired_match(RandomAgent(), HeuristicAgent(), 2, 0, make_rules("santase"))
    assert rec.won[0] + rec.won[1] <= 2


class _Illegal:
    name = "cheater"

    def __init__(self, after=0):
        self.after = after
        self.calls = 0

    def act(self, view, rng):
        self.calls += 1
        if self.calls > self.after:
            return 99
        return view.legal_actions()[0]


def test_illegal_action_is_a_clear_error_and_partial_results_are_saved(tmp_path):
    path = tmp_path / "partial.json"
    with pytest.raises(IllegalAgentActionError) as info:
        evaluate(["random", _Illegal(after=200)], deals=50, seed=0, json_path=str(path))
    e = info.value
    msg = str(e)
    assert "'cheater'" in msg and "99" in msg and "legal actions:" in msg
    assert e.agent == "cheater" and e.action == 99 and e.legal_actions
    saved = json.loads(path.read_text())
    assert saved["complete"] is False and "illegal" in saved["stopped"]
    assert saved["pairs"][0]["deals"] >= 1
    assert e.partial_result.pairs[0].deals == saved["pairs"][0]["deals"]


def test_illegal_action_from_a_worker_process():
    with pytest.raises(IllegalAgentActionError, match="cheater"):
        evaluate(["random", _Illegal()], deals=4, seed=0, workers=2)


def test_bad_input():
    with pytest.raises(ValueError, match="exactly one"):
        evaluate(["random", "heuristic"])
    with pytest.raises(ValueError, match="at least two"):
        evaluate(["random"], deals=1)
    with pytest.raises(ValueError, match="unknown agent"):
        evaluate(["random", "grandmaster"], deals=1)


def test_bradley_terry():
    r = bradley_terry(["a", "b"], {(0, 1): 75.0, (1, 0): 25.0}, prior=0.0)
    assert r["a"] == 1000.0
    assert r["b"] == pytest.approx(1000.0 - 400 * math.log10(3), abs=1e-6)
    even = bradley_terry(["x", "y", "z"], {(0, 1): 5, (1, 0): 5, (1, 2): 5, (2, 1): 5,
                                           (0, 2): 5, (2, 0): 5}, anchor=1)
    assert all(v == pytest.approx(1000.0) for v in even.values())
    # A clean sweep stays finite thanks to the prior.
    sweep = bradley_terry(["p", "q"], {(0, 1): 10.0, (1, 0): 0.0})
    assert math.isfinite(sweep["q"]) and sweep["q"] < 1000.0


@pytest.mark.slow  # a fresh interpreter: the full suite (the fast lane calls main in-process)
def test_cli_eval_smoke(tmp_path):
    out = tmp_path / "eval.json"
    proc = subprocess.run(
        [sys.executable, "-m", "sixtysix_env.cli", "eval", "random", "heuristic",
         "--deals", "5", "--seed", "3", "--json", str(out), "--no-progress", "--plain"],
        check=False, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "gp/hand" in proc.stdout and "Elo" in proc.stdout
    data = json.loads(out.read_text())
    assert data["complete"] and data["pairs"][0]["hands"] == 10 and data["seed"] == 3
    bad = subprocess.run(
        [sys.executable, "-m", "sixtysix_env.cli", "eval", "random", "nobody", "--deals", "1",
         "--no-progress"],
        check=False, capture_output=True, text=True, timeout=120,
    )
    assert bad.returncode != 0 and "unknown agent 'nobody'" in bad.stderr


def test_views_given_to_agents_belong_to_their_seat():
    seen = []

    class Spy:
        name = "spy"

        def act(self, view, rng):
            seen.append(view)
            return view.legal_actions()[0]

    play_paired_deal(Spy(), RandomAgent(), 0, 0, make_rules("altmisalti"))
    assert seen and all(v.to_move == v.seat and v.legal_mask for v in seen)


def test_ray_address_comes_from_the_command_or_its_environment_never_the_library(monkeypatch,
                                                                               capsys):
    from sixtysix_env import cli

    monkeypatch.setenv("RAY_ADDRESS", "nowhere")
    # The library reads no environment: a training run's evaluations stay in their process.
    assert evaluate(["random", "heuristic"], deals=2).complete
    # The commands take RAY_ADDRESS as the default of --address, and refuse a bad one at once.
    assert cli.main(["eval", "random", "heuristic", "--deals", "2", "--no-progress"]) == 2
    assert "Ray address 'nowhere' is not 'auto'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="not empty"):
        evaluate(["random", "heuristic"], deals=2, address=" ")
