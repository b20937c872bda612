"""The statistics of an evaluation: means with confidence intervals, Bradley-Terry ratings.

:func:`summarise` turns the played records (:mod:`.play`) into one
:class:`~.result.PairStats` per pair and the field's ratings.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from .play import HAND, DealRecord, MatchRecord
from .result import PairStats

#: The two-sided 95% quantile of the standard normal distribution.
Z95 = 1.959963984540054

#: The ratings' anchor: the first of these agents in the field, at its rating
#: (``heuristic`` = 1500 as in the benchmark's ladder); else the first agent at 1000.
ELO_ANCHORS: tuple[tuple[str, float], ...] = (("heuristic", 1500.0), ("random", 1000.0))
FALLBACK_ELO = 1000.0


def elo_anchor(names: Sequence[str]) -> tuple[int, float]:
    """(the index of the anchor agent among ``names``, its rating): see :data:`ELO_ANCHORS`."""
    for name, rating in ELO_ANCHORS:
        if name in names:
            return list(names).index(name), rating
    return 0, FALLBACK_ELO


def _mean_ci(xs: Sequence[float]) -> tuple[float | None, list[float] | None]:
    if not xs:
        return None, None
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, None
    half = Z95 * statistics.stdev(xs) / math.sqrt(len(xs))
    return m, [m - half, m + half]


def _ratio_ci(clusters: Sequence[tuple[int, int]]) -> tuple[float | None, list[float] | None]:
    """Mean per hand over clusters of (sum, hands), with a cluster-robust 95% interval."""
    total_y = sum(y for y, _ in clusters)
    total_n = sum(n for _, n in clusters)
    if not total_n:
        return None, None
    r = total_y / total_n
    k = len(clusters)
    if k < 2:
        return r, None
    nbar = total_n / k
    var = sum((y - r * n) ** 2 for y, n in clusters) / (k * (k - 1) * nbar * nbar)
    half = Z95 * math.sqrt(var)
    return r, [r - half, r + half]


def _wilson(k: int, n: int) -> list[float] | None:
    if n == 0:
        return None
    p = k / n
    den = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / den
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / den
    return [centre - half, centre + half]


def bradley_terry(
    names: Sequence[str],
    wins: dict[tuple[int, int], float],
    anchor: int = 0,
    prior: float = 0.5,
    anchor_rating: float = 1000.0,
) -> dict[str, float]:
    """Elo-scale Bradley-Terry ratings from ``wins[(i, j)]`` (i's wins over j, ties as halves).

    ``prior`` virtual wins each way for every pair that played keep the fit
    finite when one side won everything. Fitted by minorisation-maximisation.
    """
    n = len(names)
    w = [[0.0] * n for _ in range(n)]
    played = [[False] * n for _ in range(n)]
    for (i, j), x in wins.items():
        w[i][j] += x
    for i in range(n):
        for j in range(n):
            if i != j and (w[i][j] + w[j][i]) > 0:
                played[i][j] = played[j][i] = True
    for i in range(n):
        for j in range(n):
            if played[i][j]:
                w[i][j] += prior
    p = [1.0] * n
    for _ in range(10000):
        new = []
        for i in range(n):
            wi = sum(w[i])
            den = sum((w[i][j] + w[j][i]) / (p[i] + p[j]) for j in range(n) if played[i][j])
            new.append(wi / den if den > 0 else p[i])
        g = math.exp(sum(math.log(x) for x in new) / n)
        new = [x / g for x in new]
        done = max(abs(math.log(x / y)) for x, y in zip(new, p)) < 1e-10
        p = new
        if done:
            break
    base = math.log10(p[anchor])
    return {names[i]: anchor_rating + 400.0 * (math.log10(p[i]) - base) for i in range(n)}


def timing(times: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """Per agent: decisions and mean/median/p90/max milliseconds per decision."""
    out = {}
    for name, ts in times.items():
        if not ts:
            continue
        s = sorted(ts)
        out[name] = {
            "decisions": len(s),
            "mean_ms": statistics.fmean(s),
            "median_ms": statistics.median(s),
            "p90_ms": s[min(len(s) - 1, int(0.9 * len(s)))],
            "max_ms": s[-1],
        }
    return out


def _count_hands(st: PairStats, hand_gps: Sequence[int]) -> None:
    for g in hand_gps:
        st.hands += 1
        if g > 0:
            st.hands_won_a += 1
        elif g < 0:
            st.hands_won_b += 1
        else:
            st.hands_tied += 1


def summarise(
    names: list[str],
    pairs: list[tuple[int, int]],
    records: Sequence[DealRecord | MatchRecord],
    mode: str,
) -> tuple[list[PairStats], dict[str, float], str]:
    """(each pair's figures, the ratings, the rating anchor) from the records of ``mode``.

    Ratings are fitted to hands (ties count half) in hand mode and to
    matches in match mode; the anchor is ``heuristic`` = 1500 when it played
    (the benchmark's scale), else ``random`` = 1000, else the first agent =
    1000 (:data:`ELO_ANCHORS`).
    """
    records = sorted(records, key=lambda r: (r.pair, r.index))
    stats = [PairStats(names[i], names[j]) for i, j in pairs]
    per_deal: list[list[float]] = [[] for _ in pairs]
    clusters: list[list[tuple[int, int]]] = [[] for _ in pairs]  # (A's gp, hands) per match seed
    wins: dict[tuple[int, int], float] = {}
    for r in records:
        st = stats[r.pair]
        i, j = pairs[r.pair]
        st.deals += 1
        if mode == HAND:
            hand_gps = list(r.gp)
            per_deal[r.pair].append((r.gp[0] + r.gp[1]) / 2)
            a_w = sum(1.0 if g > 0 else 0.5 if g == 0 else 0.0 for g in hand_gps)
            b_w = len(hand_gps) - a_w
        else:
            hand_gps = list(r.hand_gp[0]) + list(r.hand_gp[1])
            clusters[r.pair].append((sum(hand_gps), len(hand_gps)))
            st.matches += 2
            st.matches_won_a += int(r.won[0]) + int(r.won[1])
            a_w = float(r.won[0]) + float(r.won[1])
            b_w = 2.0 - a_w
        _count_hands(st, hand_gps)
        wins[(i, j)] = wins.get((i, j), 0.0) + a_w
        wins[(j, i)] = wins.get((j, i), 0.0) + b_w
    for k, st in enumerate(stats):
        if mode == HAND:
            st.gp_per_hand, st.gp_ci95 = _mean_ci(per_deal[k])
        else:
            # Per-hand mean over all hands; the interval treats each match
            # seed (its two matches) as one cluster of hands.
            st.gp_per_hand, st.gp_ci95 = _ratio_ci(clusters[k])
            if st.matches:
                st.match_rate_a = st.matches_won_a / st.matches
                st.match_ci95 = _wilson(st.matches_won_a, st.matches)
    anchor, rating = elo_anchor(names)
    elo = bradley_terry(names, wins, anchor=anchor, anchor_rating=rating) if wins else {}
    return stats, elo, names[anchor]
