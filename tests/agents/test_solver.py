"""The exact endgame solver agrees with brute-force minimax over the engine."""

from __future__ import annotations

import random
import zlib

import pytest
from _lanes import HALF_IN_THE_FAST_LANE, two_presets_in_the_fast_lane

from sixtysix_env import PRESETS, make_rules, new_hand
from sixtysix_env.agents.solver import Solver, action_values, brute_force_value, solve
from sixtysix_env.game.actions import CLOSE, FIRST_MARRIAGE
from sixtysix_env.game.cards import KING, QUEEN, card
from sixtysix_env.game.engine import LEAD

PRESET_NAMES = sorted(PRESETS)
#: Rule sets beyond the presets whose scoring paths the solver must follow too.
VARIANTS = {
    "close-totals-2or3": make_rules(
        "pagat66", opponent_totals_at="close", failed_close_penalty="2-or-3"
    ),
    "carry-over-short": make_rules("altmisalti", tie_rule="carry-over", going_out=50),
    "no-bonus-3": make_rules("santase", last_trick_bonus=0, failed_close_penalty="3"),
}
ALL_RULES = {**{n: make_rules(n) for n in PRESET_NAMES}, **VARIANTS}


def strict_positions(rules, count, seed, max_cards, close_prob=0.3, mid_trick=0.5):
    """Seeded random strict-phase positions with at most ``max_cards`` in the mover's hand."""
    rng = random.Random(seed)
    out = []
    attempts = 0
    while len(out) < count and attempts < count * 20:
        attempts += 1
        s = new_hand(rng, dealer=rng.randrange(2), rules=rules)
        while not s.is_terminal():
            if s.is_strict() and s.v[LEAD] < 0 and s.hand(s.current_player()).bit_count() <= max_cards:
                break
            legal = s.legal_actions()
            if CLOSE in legal and rng.random() < close_prob:
                s = s.apply(CLOSE)
                continue
            s = s.apply(rng.choice([a for a in legal if a != CLOSE]))
        if s.is_terminal():
            continue
        if rng.random() < mid_trick:
            s = s.apply(rng.choice(s.legal_actions()))
            if s.is_terminal():
                continue
        out.append(s)
    return out


# The fast lane solves the first half of each rule set's positions; the full suite all of them.
@pytest.mark.parametrize("share", HALF_IN_THE_FAST_LANE)
@pytest.mark.parametrize("name", two_presets_in_the_fast_lane(sorted(ALL_RULES)))
def test_solver_value_equals_brute_force(name, share):
    rules = ALL_RULES[name]
    seed = zlib.crc32(name.encode()) % 1000
    closed = strict_positions(rules, 70 // share, seed=seed, max_cards=4, close_prob=0.5)
    exhausted = strict_positions(rules, 50 // share, seed=seed + 1, max_cards=4, close_prob=0.0)
    assert len(closed) == 70 // share and len(exhausted) == 50 // share
    assert sum(s.closed_by is not None for s in closed) > 50 // share or not rules.closing
    assert all(s.closed_by is None for s in exhausted)
    positions = closed + exhausted
    for s in positions:
        assert solve(s) == brute_force_value(s), s


@pytest.mark.parametrize("name", sorted(ALL_RULES))
def test_solver_action_values_equal_brute_force(name):
    rules = ALL_RULES[name]
    for s in strict_positions(rules, 40, seed=7 + len(name), max_cards=3):
        vals = action_values(s)
        assert sorted(vals) == s.legal_actions()
        mover = s.current_player()
        for a, val in vals.items():
            ref = brute_force_value(s.apply(a))
            assert val == (ref if mover == 0 else -ref), (s, a)


def _just_closed_with_marriage(rules, seed):
    """A position right after a close by a leader who holds a marriage and has won a trick."""
    rng = random.Random(seed)
    for _ in range(5000):
        s = new_hand(rng, dealer=rng.randrange(2), rules=rules)
        while not s.is_terminal() and not s.is_strict():
            p = s.current_player()
            legal = s.legal_actions()
            hand = s.hand(p)
            has_marriage = any(
                hand >> card(su, QUEEN) & 1 and hand >> card(su, KING) & 1 for su in range(4)
            )
            if CLOSE in legal and s.tricks_won[p] and has_marriage:
                return s.apply(CLOSE)
            s = s.apply(rng.choice([a for a in legal if a != CLOSE]))
    raise AssertionError("no such position found")


@pytest.mark.slow  # over a second: the full run, not the fast lane
@pytest.mark.parametrize("preset", [p for p in PRESET_NAMES if make_rules(p).closing])
def test_solver_handles_declaring_right_after_closing(preset):
    # Six cards each: the biggest positions the solver sees; brute force is slow, so few.
    for seed in range(2):
        s = _just_closed_with_marriage(make_rules(preset), seed)
        legal = s.legal_actions()
        assert any(a >= FIRST_MARRIAGE for a in legal)
        vals = action_values(s)
        for a in legal:
            ref = brute_force_value(s.apply(a))
            assert vals[a] == (ref if s.current_player() == 0 else -ref)


def test_solver_refuses_open_positions_and_scores_terminal_ones():
    s = new_hand(3)
    with pytest.raises(ValueError, match="closed or exhausted"):
        solve(s)
    rng = random.Random(0)
    while not s.is_terminal():
        s = s.apply(rng.choice(s.legal_actions()))
    assert solve(s) == s.returns()[0]
    assert action_values(s) == {}


def test_best_actions_reach_the_value():
    sv = Solver(make_rules("altmisalti"))
    for s in strict_positions("altmisalti", 30, seed=11, max_cards=5):
        best, moves = sv.best_actions(s)
        value0 = sv.value(s)
        assert best == (value0 if s.current_player() == 0 else -value0)
        assert moves and all(m in s.legal_actions() for m in moves)


# Two rule sets in the fast lane (30 s) on the first 50 positions of each kind; every one
# on all 150 in the full suite.
@pytest.mark.parametrize(
    "count", [pytest.param(50, id="50"), pytest.param(150, id="150", marks=pytest.mark.slow)]
)
@pytest.mark.parametrize("name", [n if n in ("altmisalti", "santase") else
                                  pytest.param(n, marks=pytest.mark.slow) for n in sorted(ALL_RULES)])
def test_kept_tables_change_no_value(name, count):
    """A solver that keeps its transposition tables across calls gives every value unchanged."""
    rules = ALL_RULES[name]
    closed = strict_positions(rules, count, seed=31, max_cards=5, close_prob=0.5)
    exhausted = strict_positions(rules, count, seed=32, max_cards=5, close_prob=0.0)
    fresh, kept = Solver(make_rules(rules)), Solver(make_rules(rules), keep_tables=True)
    for s in closed + exhausted + closed[::-1]:
        assert kept.value(s) == fresh.value(s), s
        assert kept.action_values(s) == fresh.action_values(s), s
    assert kept._tables  # the tables were kept ...
    kept.clear()
    assert not kept._tables  # ... until cleared
