"""The Elo fits of a benchmark: an agent's rating against the ladder's fixed ones
(:func:`fit_against`), the ladder's own from its round robin (:func:`fit_ladder`), and the
ladder's ratings installed for a protocol (:func:`reference_ratings`)."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from ..evaluation import bradley_terry
from ..ranking.standings import MAX_LADDER_BYTES, BenchmarkFileError, read_json
from .protocol import Protocol
from .schema import RATINGS, shown

#: Virtual hands won each way per pair in the Elo fits (keeps a clean sweep finite),
#: as in ``sixtysix eval``'s ratings.
PRIOR = 0.5


def _p(r: float, s: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((s - r) / 400.0))


def fit_against(results: dict[str, tuple[float, float]], ratings: dict[str, float]) -> float:
    """The Elo-scale rating whose expected wins match ``results[opp] = (won, played)``.

    The opponents' ``ratings`` stay fixed (a maximum-likelihood fit of one
    Bradley-Terry strength, with :data:`PRIOR` virtual wins each way).
    """
    items = [(ratings[o], w + PRIOR, n + 2 * PRIOR) for o, (w, n) in results.items()]
    lo, hi = -10000.0, 10000.0
    for _ in range(200):  # expected wins rise with the rating: bisection
        mid = (lo + hi) / 2
        if sum(n * _p(mid, s) for s, _, n in items) < sum(w for _, w, _ in items):
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def fit_ladder(
    protocol: Protocol, wins: dict[tuple[str, str], tuple[float, float]]
) -> dict[str, float]:
    """The ladder's ratings from its round robin, ``wins[(a, b)] = (a's wins, hands)``."""
    names = list(protocol.ladder)
    index = {n: i for i, n in enumerate(names)}
    table: dict[tuple[int, int], float] = {}
    for (a, b), (w, n) in wins.items():
        table[(index[a], index[b])] = w
        table[(index[b], index[a])] = n - w
    return bradley_terry(names, table, anchor=index[protocol.anchor], prior=PRIOR,
                         anchor_rating=protocol.anchor_elo)


def reference_ratings(protocol: Protocol) -> dict[str, float] | None:
    """The ladder's ratings installed with the package for ``protocol`` (None if none);
    :class:`BenchmarkFileError` naming the file if it is not the ladder's ratings of
    ``protocol``'s full run."""
    path = os.path.join(os.path.dirname(__file__), f"{protocol.name}-ladder.json")
    if not os.path.lexists(path):
        return None
    data = read_json(path, "a ladder's ratings file", MAX_LADDER_BYTES)
    try:
        return ladder_file_ratings(data, replace(protocol, quick=False))
    except ValueError as e:
        raise BenchmarkFileError(f"{path}: {e}") from None


def ladder_file_ratings(data: Any, protocol: Protocol) -> dict[str, float]:
    """The ratings a ladder's file (``PROTOCOL-ladder.json``) holds; ValueError where it is
    not the ladder's ratings of ``protocol`` (its name and mode): each rung rated, the
    anchor at its rating."""
    if not isinstance(data, dict) or not RATINGS.test(data.get("ratings")):
        raise ValueError("not a ladder's ratings file (an object whose ratings are an object "
                         "of names and numbers)")
    if data.get("protocol") != protocol.name or data.get("quick") is not protocol.quick:
        raise ValueError(f"the ratings of protocol {shown(data.get('protocol'))}, quick "
                         f"{shown(data.get('quick'))}; wanted: {protocol.name}, quick "
                         f"{protocol.quick}")
    ratings = data["ratings"]
    if set(ratings) != set(protocol.ladder) or ratings[protocol.anchor] != protocol.anchor_elo:
        raise ValueError(f"ratings of {', '.join(ratings) or 'no one'}; {protocol.name}'s "
                         f"ladder is {', '.join(protocol.ladder)}, {protocol.anchor} at "
                         f"{protocol.anchor_elo:g}")
    return {k: float(v) for k, v in ratings.items()}
