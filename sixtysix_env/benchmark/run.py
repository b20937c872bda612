"""Running a benchmark: each agent against every rung of the ladder, and its figures.

Every pair is one :func:`~sixtysix_env.evaluation.evaluate` in hand mode and
one in match mode, with the protocol's seeds. A pair of two rungs is always
played in the ladder's order (the earlier rung in the first seat of the
first game), so it gives the same figures whichever of the two is being
benchmarked, and a run of several agents plays it once (``cache``).

:func:`benchmark` is here; the parts it runs are each in a module of their own, and
their public names are importable from here too (as they were before the split):
:mod:`.schema` (the file's fields and their checks, :func:`load_benchmark`),
:mod:`.identity` (the agent's file and its SHA-256), :mod:`.elo` (the fits),
:mod:`.pairs` (playing a pair, :class:`PairStore`), :mod:`.filenames` (the files'
names, :func:`check_replaceable`) and :mod:`.estimates` (how long a run takes).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

from ..ranking.standings import BenchmarkFileError
from ..util.machine import machine
from ..util.version import __version__
from .elo import PRIOR, fit_against, fit_ladder, ladder_file_ratings, reference_ratings
from .estimates import (
    HANDS_PER_MATCH,
    Estimate,
    PairTiming,
    duration_text,
    estimate,
    pairs_to_play,
    time_pairs,
)
from .filenames import check_replaceable, file_stem, ladder_file_name, result_file_name
from .identity import agent_file, recorded_policy
from .pairs import BenchmarkStopped, PairRun, PairStore, pair_order, pair_side, play_pair
from .protocol import Protocol, get_protocol
from .schema import (
    AGENT_FILE,
    COUNT,
    FLAG,
    FORMAT,
    FORMAT_VERSION,
    INTERVAL,
    NAME,
    NULL,
    NUMBER,
    OBJECTS,
    OPPONENT_KINDS,
    PAIR_INTERVALS,
    RATINGS,
    RESULT_INTERVALS,
    RESULT_KINDS,
    SECONDS,
    SHARE,
    TEXT,
    TIMES,
    TIMES_BY_AGENT,
    BenchmarkResult,
    Kind,
    Opponent,
    check_protocol,
    check_values,
    load_benchmark,
    outside_interval,
)

#: The names importable from here: :func:`benchmark`, and those of the modules it runs.
__all__ = [
    "AGENT_FILE", "COUNT", "FLAG", "FORMAT", "FORMAT_VERSION", "HANDS_PER_MATCH", "INTERVAL",
    "NAME", "NULL", "NUMBER", "OBJECTS", "OPPONENT_KINDS", "PAIR_INTERVALS", "PRIOR",
    "RATINGS", "RESULT_INTERVALS", "RESULT_KINDS", "SECONDS", "SHARE", "TEXT", "TIMES",
    "TIMES_BY_AGENT", "BenchmarkFileError", "BenchmarkResult", "BenchmarkStopped", "Estimate",
    "Kind", "Opponent", "PairRun", "PairStore", "PairTiming", "agent_file", "benchmark",
    "check_protocol", "check_replaceable", "check_values", "duration_text", "estimate",
    "file_stem", "fit_against", "fit_ladder", "ladder_file_name", "ladder_file_ratings",
    "load_benchmark", "outside_interval", "pairs_to_play", "play_pair", "recorded_policy",
    "reference_ratings", "result_file_name", "time_pairs",
]


def benchmark(
    agents: Sequence[str],
    protocol: Protocol | str = "benchmark-v1",
    *,
    quick: bool = False,
    workers: int = 1,
    address: str | None = None,
    progress: bool = False,
    cache: dict[tuple[str, str], PairRun] | None = None,
    on_pair: Callable[[str, str, Opponent, float], None] | None = None,
    on_result: Callable[[BenchmarkResult], None] | None = None,
    command: str | None = None,
) -> list[BenchmarkResult]:
    """Each of ``agents`` (names, specs, policy files, ``module:Class``) against the ladder.

    Pairs played for one agent are reused for another (``cache``, which a
    caller may keep between calls). The Elo ratings are fitted against the
    ladder's own: from this run's pairs when it played the whole round robin
    of the ladder, else the ratings installed for the protocol.
    """
    if isinstance(protocol, str):
        protocol = get_protocol(protocol, quick=quick)
    if not agents:
        raise ValueError("name at least one agent to benchmark")
    for a in agents:
        if not isinstance(a, str) or not a.strip():
            raise ValueError(f"an agent to benchmark is a name, spec or file path, got {a!r}")
    cache = {} if cache is None else cache
    figures: dict[str, list[Opponent]] = {}
    walls: dict[str, float] = {}
    for agent in agents:
        start = time.perf_counter()
        figures[agent] = []
        walls[agent] = 0.0
        for rung in protocol.ladder:
            if rung == agent:
                continue
            first, second, is_first = pair_order(protocol, agent, rung)
            if (first, second) not in cache:
                cache[(first, second)] = play_pair(protocol, first, second, workers=workers,
                                                   address=address, progress=progress)
            pair = cache[(first, second)]
            opp = pair_side(pair, rung, is_first)
            figures[agent].append(opp)
            # The time its games took when they were played (also when kept from before).
            walls[agent] += pair.hands.wall_seconds + pair.matches.wall_seconds
            if on_pair is not None:
                on_pair(agent, rung, opp, time.perf_counter() - start)
    # The ratings once every pair is played: a run of the whole ladder fits its own.
    ladder = _ladder_ratings(protocol, cache)
    results = []
    for agent in agents:
        result = _result(protocol, agent, figures[agent], ladder, workers, address,
                         walls[agent], command)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


def _ladder_ratings(protocol: Protocol, cache: dict[tuple[str, str], PairRun]) -> dict[str, float]:
    wins = {}
    ladder = protocol.ladder
    for i, a in enumerate(ladder):
        for b in ladder[i + 1:]:
            if (a, b) not in cache:
                return reference_ratings(protocol) or {}
            run = cache[(a, b)]
            h = run.hands.pairs[0]
            wins[(a, b)] = (h.hands_won_a + 0.5 * h.hands_tied, float(h.hands))
    return fit_ladder(protocol, wins)


def _result(
    protocol: Protocol,
    agent: str,
    opponents: list[Opponent],
    ladder: dict[str, float],
    workers: int,
    address: str | None,
    wall: float,
    command: str | None,
) -> BenchmarkResult:
    elo = None
    if agent == protocol.anchor:
        elo = protocol.anchor_elo
    elif ladder:
        won = {o.name: (o.hands_won + 0.5 * o.hands_tied, float(o.hands)) for o in opponents}
        elo = fit_against(won, ladder)
    reference = protocol.anchor if agent != protocol.anchor else "random"
    timing = {}
    for o in opponents:
        if o.name == reference and agent in o.timing:
            timing = dict(o.timing[agent], against=reference)
    return BenchmarkResult(
        agent=agent,
        protocol=protocol.name,
        quick=protocol.quick,
        rules=protocol.rules,
        package_version=__version__,
        agent_file=agent_file(agent),
        opponents=opponents,
        elo=None if elo is None or not math.isfinite(elo) else round(elo, 1),
        ladder_elo={k: round(v, 1) for k, v in ladder.items()},
        elo_anchor={protocol.anchor: protocol.anchor_elo},
        timing=timing,
        machine=machine(),
        workers=workers,
        address=address,
        wall_seconds=round(wall, 1),
        command=command,
        protocol_text=protocol.describe(),
    )
