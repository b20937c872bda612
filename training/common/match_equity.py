"""Match play in training: hands dealt at the scores real matches reach, rewarded by the match.

A match to 7 (11 under ``santase``) is won by game points, 1 to 3 a hand, and
good play depends on the score: at 6-6 a hand won by one point is as good as
one won by three, while at 0-6 only three points keep the match alive. With
option ``match_play`` a training game is still one hand (short episodes,
which PPO learns from well), but

* it is dealt at a match score drawn as often as matches between equal
  players reach it (:meth:`MatchEquity.draw_scores`; the observation's
  ``my_score`` and ``opp_score`` show it), and
* its reward is the change in the learner's chance of winning the match,
  times the match target (:meth:`MatchEquity.rewards`), so that a hand at
  0-0 is worth about what its game points were (winning one point at 0-0
  moves the chance by about 0.08, times 7) and a hand at 6-6 decides all.

The chance of winning from each score (:attr:`MatchEquity.table`, a "match
equity table" as backgammon players call it) is exact for two equal players
whose hands end with the game points of :data:`HAND_POINTS` and who ignore
the deal: ties score nothing under every preset's ``tie_rule``
(``no-points``), so a tied hand leaves the score as it was.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

#: How often a decided hand scores 1, 2 and 3 game points between equal players:
#: ``sixtysix-ppo-v4`` against itself, 3,000 hands of the altmisalti rules at 0-0
#: (1,381, 1,300 and 308 of the 2,989 decided; 11 ties).
HAND_POINTS = {1: 1381 / 2989, 2: 1300 / 2989, 3: 308 / 2989}


class MatchEquity:
    """The learner's chance to win a match to ``target`` from each score, the scores
    matches reach, and the reward of a hand played at a score."""

    def __init__(self, target: int, hand_points: dict[int, float] | None = None) -> None:
        if not isinstance(target, int) or isinstance(target, bool) or target < 1:
            raise ValueError(f"target must be a whole number of game points >= 1, got {target!r}")
        points = dict(HAND_POINTS if hand_points is None else hand_points)
        total = sum(points.values())
        if not points or total <= 0 or any(p < 0 for p in points.values()):
            raise ValueError(f"hand_points must hold non-negative chances, got {points!r}")
        self.target = target
        self.points = {int(g): p / total for g, p in points.items()}
        self.table = _equity(target, tuple(sorted(self.points.items())))
        self.reach = _reach(target, tuple(sorted(self.points.items())))

    def equity(self, mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
        """The chance that the side with ``mine`` game points wins against ``theirs``."""
        t = self.target
        mine = np.asarray(mine, np.int64)
        theirs = np.asarray(theirs, np.int64)
        out = self.table[np.minimum(mine, t - 1), np.minimum(theirs, t - 1)]
        out = np.where(mine >= t, 1.0, out)
        return np.where((theirs >= t) & (mine < t), 0.0, out)

    def close_scores(self) -> np.ndarray:
        """(target, target) booleans: the scores where a side has ``target - 3`` game points
        or more (all of them for a target of 3 or less). There the match's stakes are far
        from proportional to the hand's game points: at 5-5 of 7, a hand won by two points
        wins the match, one won by one point does not."""
        a = np.arange(self.target)
        return np.maximum(a[:, None], a[None, :]) >= self.target - 3

    def rewards(self, mine: np.ndarray, theirs: np.ndarray, game_points: np.ndarray) -> np.ndarray:
        """The learner's reward for hands played at ``mine``-``theirs`` that it scored
        ``game_points`` in (negative: the opponent's points): the change in its chance to
        win the match, times the target."""
        g = np.asarray(game_points, np.int64)
        before = self.equity(mine, theirs)
        after = self.equity(np.asarray(mine) + np.maximum(g, 0),
                            np.asarray(theirs) + np.maximum(-g, 0))
        return (after - before) * self.target

    def draw_scores(self, rng: np.random.Generator, k: int, close: bool = False) -> np.ndarray:
        """``k`` match scores (k, 2), each drawn as often as a match reaches it; with
        ``close``, only scores where a side has at least ``target - 3`` game points (the
        others are never drawn; these keep their proportions)."""
        flat = self.reach.ravel()
        if close:
            flat = np.where(self.close_scores().ravel(), flat, 0.0)
        idx = rng.choice(flat.size, size=k, p=flat / flat.sum())
        return np.stack(np.divmod(idx, self.target), axis=1).astype(np.int64)


@lru_cache(maxsize=16)
def _equity(target: int, points: tuple[tuple[int, float], ...]) -> np.ndarray:
    """table[a, b]: the chance that the side at ``a`` wins against ``b`` (a, b < target)."""
    t = target
    win = np.zeros((t + 3, t + 3))
    win[t:, :] = 1.0  # one side reached the target first: the other is below it
    win[:t, t:] = 0.0
    for total in range(2 * t - 2, -1, -1):  # every hand adds points: from the end back
        for a in range(min(total, t - 1), -1, -1):
            b = total - a
            if b >= t or b < 0:
                continue
            e = 0.0
            for g, p in points:
                e += 0.5 * p * (_at(win, a + g, b, t) + _at(win, a, b + g, t))
            win[a, b] = e
    return win[:t, :t].copy()


def _at(win: np.ndarray, a: int, b: int, t: int) -> float:
    if a >= t:
        return 1.0
    if b >= t:
        return 0.0
    return win[a, b]


@lru_cache(maxsize=16)
def _reach(target: int, points: tuple[tuple[int, float], ...]) -> np.ndarray:
    """reach[a, b]: how many hands of a match between equal players are played at a-b
    (the expected visits, from 0-0)."""
    t = target
    visits = np.zeros((t, t))
    visits[0, 0] = 1.0
    for total in range(0, 2 * t - 1):
        for a in range(0, min(total, t - 1) + 1):
            b = total - a
            if b >= t or visits[a, b] == 0.0:
                continue
            for g, p in points:
                for na, nb in ((a + g, b), (a, b + g)):
                    if na < t and nb < t:
                        visits[na, nb] += 0.5 * p * visits[a, b]
    return visits
