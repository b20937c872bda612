"""``expert`` and ``guided`` play the same games with either solver (``engine=python``, the
reference, and ``engine=numba``, the compiled one): the values are the same, so are the moves."""

from __future__ import annotations

import random

import pytest
from _positions import open_views

from sixtysix_env import make_rules
from sixtysix_env.agents.registry import make_agent
from sixtysix_env.agents.solver import Solver
from sixtysix_env.evaluation.play import play_paired_deal

numba = pytest.importorskip("numba", reason="numba (the [fast] extra) is not installed")


def play(spec, deals, seed, rules, start=0):
    """Each paired deal's record, and every move the searcher made with the values it saw."""
    agent, heuristic = make_agent(spec), make_agent("heuristic")
    moves = []
    act = agent.act

    def recorded(view, rng):
        a = act(view, rng)
        moves.append((view.seat, a))
        return a

    agent.act = recorded
    games = []
    for index in range(start, start + deals):
        states = []
        rec = play_paired_deal(agent, heuristic, seed, index, rules, keep_states=states)
        games.append((rec, [end.log for _, end in states], list(moves)))
        moves.clear()
    assert sum(len(m) for *_, m in games) >= 4 * deals
    return games


def assert_same_games(spec, deals, seed, rules_name="altmisalti", start=0):
    rules = make_rules(rules_name)
    ref = play(f"{spec},engine=python", deals, seed, rules, start)
    fast = play(f"{spec},engine=numba", deals, seed, rules, start)
    assert fast == ref


# altmisalti in the fast lane; santase in the full suite (as pagat66 at full strength below).
@pytest.mark.parametrize("rules", ["altmisalti", pytest.param("santase", marks=pytest.mark.slow)])
def test_expert_same_games(rules):
    assert_same_games("expert:samples=8", 2, seed=5, rules_name=rules)


def test_guided_same_games():
    pytest.importorskip("numpy")
    assert_same_games("guided:samples=6", 1, seed=7)


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["expert", "guided"])
def test_same_games_at_full_strength(spec):
    assert_same_games(spec + ":samples=64", 12, seed=5)
    assert_same_games(spec + ":samples=64", 4, seed=9, rules_name="pagat66")


@pytest.mark.parametrize("spec", [
    "expert:samples=24",  # stops early when one action is left: deals drawn ahead go back
    "expert:samples=12,prune_after=0",
    "expert:samples=12,rollout_solve_close=false,rollout_close_points=0",
    pytest.param("guided:samples=12", marks=pytest.mark.slow),  # the fast lane's 30 s
    "guided:samples=6,rollout_opponent=prior",
])
def test_same_decisions_and_generator_state(spec):
    # The compiled search draws several deals at once; the generator must end each
    # decision where the reference leaves it, or the next decision samples other deals.
    ref, fast = make_agent(spec + ",engine=python"), make_agent(spec + ",engine=numba")
    for k, view in enumerate(open_views(6 if spec.startswith("guided") else 10, seed=4)):
        r1, r2 = random.Random(k), random.Random(k)
        assert fast.decide(view, r2) == ref.decide(view, r1)
        assert r2.getstate() == r1.getstate()


def test_engines():
    from sixtysix_env.batched.solver import CompiledSolver

    assert make_agent("expert")._solver_type is CompiledSolver  # auto: numba is installed
    assert make_agent("expert:engine=numba")._solver_type is CompiledSolver
    assert make_agent("guided:engine=python")._solver_type is Solver


def test_without_numba(monkeypatch):
    import sixtysix_env.batched as batched

    monkeypatch.setattr(batched, "have_numba", lambda: False)
    assert make_agent("expert")._solver_type is Solver  # auto falls back to Python
    with pytest.raises(ImportError, match=r"\[fast\]"):
        make_agent("expert:engine=numba")


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["altmisalti", "pagat66", "santase"])
@pytest.mark.parametrize("spec", ["expert", "guided"])
def test_same_decisions_at_full_strength(spec, rules):
    ref, fast = make_agent(spec + ":engine=python"), make_agent(spec + ":engine=numba")
    for k, view in enumerate(open_views(20, seed=9, rules=rules)):
        r1, r2 = random.Random(k), random.Random(k)
        assert fast.decide(view, r2) == ref.decide(view, r1)
        assert r2.getstate() == r1.getstate()
