"""The compiled search (``sixtysix_env/batched/solver.py``) gives the Python one's values
exactly.

* The solver: ``value``, every root action's value and ``best_actions`` equal
  :class:`~sixtysix_env.agents.solver.Solver`'s on random strict-phase positions of every
  preset and rule variant (stock exhausted, closed by either seat, just closed, mid-trick,
  and determinized closed positions as the expert samples them), with a table per
  position or one kept for many.
* The rollouts: the value after each action of sampled open-phase deals equals
  :func:`~sixtysix_env.agents.expert.rollout_value`'s (with and without the closes, and
  with the prior playing one seat or both, as ``guided`` rolls out).
"""

from __future__ import annotations

import random

import pytest
from _lanes import HALF_IN_THE_FAST_LANE, two_presets_in_the_fast_lane

pytest.importorskip("numba", reason="numba (the [fast] extra) is not installed")

from sixtysix_env import PRESETS, make_rules, new_hand  # noqa: E402
from sixtysix_env.agents.expert import rollout_value  # noqa: E402
from sixtysix_env.agents.solver import Solver  # noqa: E402
from sixtysix_env.batched.solver import CompiledSolver  # noqa: E402
from sixtysix_env.game.actions import CLOSE  # noqa: E402
from sixtysix_env.game.view import determinize, player_view  # noqa: E402

#: The presets, and variants whose scoring paths the solver must follow too.
ALL_RULES = {
    **{n: make_rules(n) for n in sorted(PRESETS)},
    "close-totals-2or3": make_rules(
        "pagat66", opponent_totals_at="close", failed_close_penalty="2-or-3"
    ),
    "close-totals-santase": make_rules("santase", opponent_totals_at="close"),
    "carry-over-short": make_rules("altmisalti", tie_rule="carry-over", going_out=50),
    "no-bonus-3": make_rules("santase", last_trick_bonus=0, failed_close_penalty="3"),
}


def positions(rules, count, seed):
    """Seeded strict-phase positions reached by random play: each hand stops at its first
    strict decision or a few moves later (a lead right after the close, a follow, a later
    trick); a third are the closed position determinized from the mover's view."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = new_hand(rng, dealer=rng.randrange(2), rules=rules)
        close_prob = rng.choice((0.0, 0.15, 0.5))
        while not s.is_terminal() and not s.is_strict():
            legal = s.legal_actions()
            if CLOSE in legal and rng.random() < close_prob:
                s = s.apply(CLOSE)
                continue
            s = s.apply(rng.choice([a for a in legal if a != CLOSE]))
        for _ in range(rng.choice((0, 0, 1, 2, 3, 5))):
            if s.is_terminal():
                break
            s = s.apply(rng.choice(s.legal_actions()))
        if s.is_terminal():
            continue
        if s.closed_by is not None and rng.random() < 0.35:
            s = determinize(player_view(s, s.current_player()), rng)
        out.append(s)
    return out


def assert_same(rules, states, keep_tables):
    ref = Solver(rules, keep_tables=keep_tables)
    fast = CompiledSolver(rules, keep_tables=keep_tables)
    for s in states:
        assert fast.value(s) == ref.value(s), s
        assert fast.action_values(s) == ref.action_values(s), s
        assert list(fast.action_values(s)) == list(ref.action_values(s)), s
        assert fast.best_actions(s) == ref.best_actions(s), s


# The fast lane compares the first half of the positions; the full suite all of them.
@pytest.mark.parametrize("name", two_presets_in_the_fast_lane(sorted(ALL_RULES)))
@pytest.mark.parametrize("share", HALF_IN_THE_FAST_LANE)
def test_same_values_as_python_solver(name, share):
    rules = ALL_RULES[name]
    states = positions(rules, 60 // share, seed=len(name))
    assert sum(s.closed_by is not None for s in states) > 10 // share or not rules.closing
    assert sum(s.closed_by is None for s in states) > 10 // share
    assert sum(s.lead_card is not None for s in states) > 5 // share
    assert_same(rules, states, keep_tables=False)


def test_kept_tables_across_positions():
    # One table for many positions (the expert's decision): still the same values.
    for name in ("santase", "close-totals-2or3"):
        rules = ALL_RULES[name]
        assert_same(rules, positions(rules, 80, seed=11), keep_tables=True)


def test_finished_hand_and_open_stock():
    rules = make_rules("altmisalti")
    s = new_hand(random.Random(3), rules=rules)
    with pytest.raises(ValueError, match="stock closed or exhausted"):
        CompiledSolver(rules).value(s)
    while not s.is_terminal():
        s = s.apply(s.legal_actions()[0])
    assert CompiledSolver(rules).value(s) == s.returns()[0]
    assert CompiledSolver(rules).action_values(s) == {}


def test_the_comparison_can_fail():
    # Another rule set is another game: some values must differ.
    states = positions(ALL_RULES["altmisalti"], 60, seed=5)
    ref = Solver(ALL_RULES["altmisalti"])
    other = CompiledSolver(make_rules("altmisalti", going_out=50))
    assert any(other.value(s) != ref.value(s) for s in states)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ALL_RULES))
def test_same_values_over_many_positions(name):
    rules = ALL_RULES[name]
    assert_same(rules, positions(rules, 1500, seed=100 + len(name)), keep_tables=False)
    assert_same(rules, positions(rules, 1500, seed=200 + len(name)), keep_tables=True)


# -- the rollouts ------------------------------------------------------------------------
# -- the rollouts ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["altmisalti", "santase", "close-totals-2or3"])
def test_a_loaded_lane_is_the_state(name):
    # load_state: the same legal moves, observations (both seats) and, played on with the
    # same moves, the same result as the reference engine.
    import numpy as np

    from sixtysix_env.batched import kernels as kn
    from sixtysix_env.batched.engine import BatchedHands
    from sixtysix_env.batched.solver import load_state
    from sixtysix_env.policy.observation import observe_view

    rules = ALL_RULES[name]
    rng = random.Random(6)
    hands = BatchedHands(1, rules)
    lane = np.zeros(1, np.int64)
    for s in open_positions(rules, 30, seed=8) + positions(rules, 30, seed=9):
        load_state(hands.S, hands.K, 0, s)
        while True:
            assert int(hands.legal_masks(lane)[0]) == s.legal_mask(), s
            for seat in (0, 1):
                obs, masks = hands.observe(lane, np.array([seat]))
                want = observe_view(player_view(s, seat))
                assert (obs[0] == want["observation"]).all(), (s, seat)
                assert (masks[0] == want["action_mask"]).all(), (s, seat)
            if s.is_terminal():
                break
            a = rng.choice(s.legal_actions())
            s = s.apply(a)
            kn.apply_one(hands.S, hands.K, hands.R, 0, a)
        assert hands.result(0) == s.result


def open_positions(rules, count, seed):
    """Seeded open-phase decisions (random play, no close), as the expert samples them: the
    full state determinized from the mover's view."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        s = new_hand(rng, dealer=rng.randrange(2), rules=rules)
        for _ in range(rng.randrange(0, 12)):
            legal = [a for a in s.legal_actions() if a != CLOSE]
            s = s.apply(rng.choice(legal))
            if s.is_terminal() or s.is_strict():
                break
        if s.is_terminal() or s.is_strict():
            continue
        out.append(determinize(player_view(s, s.current_player()), rng))
    return out


def python_value_after(s2, solver, close, searcher, close_points):
    """``ExpertAgent._value_after`` without a prior or ``exact_last_trick``."""
    if s2.result is not None:
        return s2.returns()[0]
    if s2.is_strict():
        return solver.value(s2)
    return rollout_value(s2, solver, close, searcher, close_points)


def assert_same_rollouts(rules, states, seed):
    rng = random.Random(seed)
    ref = Solver(rules, keep_tables=True)
    fast = CompiledSolver(rules, keep_tables=True)
    compared = 0
    for s in states:
        ref.clear()
        fast.clear()
        close = rng.random() < 0.8
        me = s.current_player() if rng.random() < 0.8 else -1
        close_points = rng.choice((0, 30, 45))
        actions = s.legal_actions()
        want = [python_value_after(s.apply(a), ref, close, me, close_points) for a in actions]
        assert fast.values_after(s, actions, close, me, close_points) == want, s
        compared += len(actions)
    return compared


@pytest.mark.parametrize("name", two_presets_in_the_fast_lane(sorted(ALL_RULES)))
@pytest.mark.parametrize("share", HALF_IN_THE_FAST_LANE)
def test_same_rollout_values(name, share):
    rules = ALL_RULES[name]
    states = open_positions(rules, 25 // share, seed=len(name))
    assert assert_same_rollouts(rules, states, 1) > 100 // share


def test_rollout_comparison_can_fail():
    # Without this seat's close in the compiled rollouts some values must differ.
    rules = ALL_RULES["altmisalti"]
    ref = Solver(rules, keep_tables=True)
    fast = CompiledSolver(rules, keep_tables=True)
    diff = 0
    for s in open_positions(rules, 40, seed=3):
        me = s.current_player()
        actions = s.legal_actions()
        want = [python_value_after(s.apply(a), ref, True, me, 0) for a in actions]
        diff += fast.values_after(s, actions, True, -1, 0) != want
    assert diff


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ALL_RULES))
def test_same_rollout_values_many(name):
    rules = ALL_RULES[name]
    assert_same_rollouts(rules, open_positions(rules, 800, seed=300 + len(name)), 2)


@pytest.mark.parametrize("seats", [(0,), (1,), (0, 1)])
def test_same_rollout_values_with_a_prior(seats):
    # guided's rollouts: the prior's argmax plays the moves of ``seats``, all the waiting
    # rollouts with one forward pass, as PolicyAgent.act plays one view.
    from sixtysix_env.agents.expert import load_prior
    from sixtysix_env.policy.network import SYMMETRY_TIE

    prior = load_prior("sixtysix-ppo")
    rules = ALL_RULES["altmisalti"]
    ref = Solver(rules, keep_tables=True)
    fast = CompiledSolver(rules, keep_tables=True)

    def move(s):
        return prior.act(player_view(s, s.current_player()), random.Random(0))

    states = open_positions(rules, 18, seed=40 + len(seats))
    compared = 0
    for k in (1, 3):  # one sampled deal at a time, and three side by side
        for batch in zip(*[iter(states)] * k):
            me = batch[0].current_player()
            actions = [a for a in batch[0].legal_actions()
                       if all(s.legal_mask() >> a & 1 for s in batch)]
            want = [
                [rollout_value(s.apply(a), ref, True, me, 30, move, seats)
                 if not s.apply(a).is_terminal() and not s.apply(a).is_strict()
                 else python_value_after(s.apply(a), ref, True, me, 30)
                 for a in actions]
                for s in batch
            ]
            got = fast.values_after_many(list(batch), actions, True, me, 30, prior.network,
                                         seats, SYMMETRY_TIE)
            assert got == want, batch
            compared += len(actions) * k
    assert compared > 100
