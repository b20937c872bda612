"""``match_play``'s match equity: the chance to win from each score, checked against a
brute-force simulation of matches, and the scores matches reach (the batched training
games that use it are checked in test_batched_vec_env.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sixtysix_training.common.match_equity import HAND_POINTS, MatchEquity


def _simulate(target: int, start: tuple[int, int], matches: int, seed: int):
    """Matches between equal players from ``start``: how often the first side wins, and
    how many hands were played at each score."""
    rng = random.Random(seed)
    points, weights = zip(*HAND_POINTS.items())
    wins = 0
    visits = np.zeros((target, target))
    for _ in range(matches):
        a, b = start
        while a < target and b < target:
            visits[a, b] += 1
            g = rng.choices(points, weights)[0]
            if rng.random() < 0.5:
                a += g
            else:
                b += g
        wins += a >= target
    return wins / matches, visits / matches


def test_the_table_is_the_chance_to_win_as_simulated():
    m = MatchEquity(7)
    assert np.allclose(m.table + m.table.T, 1.0)  # one side wins
    assert m.table[0, 0] == pytest.approx(0.5) and m.table[6, 6] == pytest.approx(0.5)
    assert (np.diff(m.table, axis=0) > 0).all() and (np.diff(m.table, axis=1) < 0).all()
    for start in [(0, 0), (2, 5), (6, 4), (5, 6)]:
        won, _ = _simulate(7, start, 20_000, seed=sum(start))
        assert won == pytest.approx(m.table[start], abs=0.012), start


def test_the_scores_are_drawn_as_matches_reach_them():
    m = MatchEquity(7)
    _, visits = _simulate(7, (0, 0), 20_000, seed=1)
    assert np.abs(m.reach - visits).max() < 0.02
    drawn = m.draw_scores(np.random.default_rng(0), 50_000)
    counts = np.zeros((7, 7))
    np.add.at(counts, (drawn[:, 0], drawn[:, 1]), 1)
    assert np.abs(counts / len(drawn) - m.reach / m.reach.sum()).max() < 0.006


def test_close_scores_keep_the_proportions_of_the_scores_matches_reach():
    m = MatchEquity(7)
    close = m.close_scores()
    assert close[4, 0] and close[0, 6] and close[5, 5] and not close[3, 3] and not close[0, 2]
    drawn = m.draw_scores(np.random.default_rng(0), 50_000, close=True)
    counts = np.zeros((7, 7))
    np.add.at(counts, (drawn[:, 0], drawn[:, 1]), 1)
    assert counts[~close].sum() == 0
    want = np.where(close, m.reach, 0.0)
    assert np.abs(counts / len(drawn) - want / want.sum()).max() < 0.006
    assert MatchEquity(3).close_scores().all()


def test_the_reward_is_the_change_in_the_chance_to_win_times_the_target():
    m = MatchEquity(7)
    mine, theirs = np.array([0, 6, 6, 0, 4]), np.array([0, 6, 6, 6, 5])
    gp = np.array([1, 1, -3, 3, 3])
    want = [m.table[1, 0] - 0.5, 0.5, -0.5, m.table[3, 6] - m.table[0, 6], 1.0 - m.table[4, 5]]
    assert np.allclose(m.rewards(mine, theirs, gp), np.array(want) * 7)
    assert MatchEquity(11).table.shape == (11, 11)
    with pytest.raises(ValueError, match="target must be"):
        MatchEquity(0)
