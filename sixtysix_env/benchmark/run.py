"""Running a benchmark: each agent against every rung of the ladder, and its figures.

Every pair is one :func:`~sixtysix_env.evaluation.evaluate` in hand mode and
one in match mode, with the protocol's seeds. A pair of two rungs is always
played in the ladder's order (the earlier rung in the first seat of the
first game), so it gives the same figures whichever of the two is being
benchmarked, and a run of several agents plays it once (``cache``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any

from .. import __version__
from ..agents import make_agent
from ..agents.registry import FILE_SUFFIXES, parse_agent_spec
from ..blas import one_blas_thread
from ..engine import deal_from_deck
from ..evaluation import (
    EvalResult,
    PairStats,
    bradley_terry,
    deal_deck,
    evaluate,
    play_paired_deal,
)
from ..files import write_json
from ..machine import machine
from ..rules import make_rules
from ..shipped import shipped_policies
from ..view import player_view
from .protocol import Protocol, get_protocol

#: The ``format`` of a benchmark file, and its version (a new field is a new version).
FORMAT = "sixtysix-benchmark"
FORMAT_VERSION = 1

#: Virtual hands won each way per pair in the Elo fits (keeps a clean sweep finite),
#: as in ``sixtysix eval``'s ratings.
PRIOR = 0.5


@dataclass
class Opponent:
    """One rung's figures, from the benchmarked agent's side."""

    name: str
    deals: int
    hands: int
    gp_per_hand: float | None
    gp_ci95: list[float] | None
    hands_won: int
    hands_lost: int
    hands_tied: int
    match_seeds: int
    matches: int
    matches_won: int
    match_rate: float | None
    match_ci95: list[float] | None
    match_gp_per_hand: float | None
    match_gp_ci95: list[float] | None
    #: This agent's and the opponent's time per decision in the hand games (machine-dependent).
    timing: dict[str, dict[str, float]] = field(default_factory=dict)


@dataclass
class BenchmarkResult:
    """One agent's benchmark (``to_dict`` is its JSON file)."""

    agent: str
    protocol: str
    quick: bool
    rules: str
    package_version: str
    #: For a policy file or a module of one's own: its path and SHA-256; else None.
    agent_file: dict[str, str] | None
    opponents: list[Opponent]
    elo: float | None
    #: The ladder's ratings this one is fitted against (anchor included).
    ladder_elo: dict[str, float]
    elo_anchor: dict[str, float]
    #: This agent's time per decision against the anchor (against random for the anchor).
    timing: dict[str, Any]
    machine: str
    workers: int
    address: str | None
    #: The time its pairs took to play, pairs kept from an earlier run included.
    wall_seconds: float
    command: str | None = None
    protocol_text: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = {"format": FORMAT, "format_version": FORMAT_VERSION}
        d.update(asdict(self))
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BenchmarkResult:
        if data.get("format") != FORMAT or data.get("format_version") != FORMAT_VERSION:
            raise ValueError(
                f"not a {FORMAT} file of format_version {FORMAT_VERSION} "
                f"(format {data.get('format')!r}, format_version {data.get('format_version')!r})"
            )
        values = {k: v for k, v in data.items() if k not in ("format", "format_version")}
        _check_fields("a benchmark file", values, cls)
        if not isinstance(values["opponents"], list):
            raise ValueError("a benchmark file's opponents are a list")
        for o in values["opponents"]:
            if not isinstance(o, dict):
                raise ValueError(f"an opponent in a benchmark file is an object, not {o!r}")
            _check_fields(f"the opponent {o.get('name', '?')!r}", o, Opponent)
        values["opponents"] = [Opponent(**o) for o in values["opponents"]]
        return cls(**values)

    def figures(self) -> dict[str, Any]:
        """What must be the same on any machine with any workers: no times, no machine."""
        d = self.to_dict()
        for key in ("timing", "machine", "workers", "address", "wall_seconds", "command",
                    "package_version"):
            d.pop(key)
        for o in d["opponents"]:
            o.pop("timing")
        return d

    def save_json(self, path: str) -> None:
        write_json(path, self.to_dict())

    def opponent(self, name: str) -> Opponent:
        for o in self.opponents:
            if o.name == name:
                return o
        raise KeyError(f"{self.agent} has no figures against {name!r}")


def _check_fields(what: str, values: dict[str, Any], cls: type) -> None:
    """ValueError naming the fields of ``cls`` missing from ``values`` and those unknown."""
    known = {f.name: f for f in fields(cls)}
    required = {n for n, f in known.items()
                if f.default is MISSING and f.default_factory is MISSING}
    missing = sorted(required - set(values))
    unknown = sorted(set(values) - set(known))
    if missing or unknown:
        said = [f"without {', '.join(missing)}"] if missing else []
        said += [f"with fields it does not have: {', '.join(unknown)}"] if unknown else []
        raise ValueError(f"{what} {' and '.join(said)} (written by another version?)")


def load_benchmark(path: str) -> BenchmarkResult:
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not a JSON file ({e})") from None
    try:
        return BenchmarkResult.from_dict(data)
    except (TypeError, KeyError, ValueError) as e:
        raise ValueError(f"{path}: {e}") from None


# -- what the agent is -----------------------------------------------------------------


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def agent_file(spec: str) -> dict[str, str] | None:
    """The file behind an agent spec (policy file, shipped policy, own module) and its hash."""
    name, _ = parse_agent_spec(spec)
    shipped = shipped_policies().get(name)
    path: str | None = None
    if shipped is not None:
        path = str(shipped.path)
    elif name.endswith(FILE_SUFFIXES) and os.path.isfile(name):  # a policy file, an SB3 model
        path = name
    elif ":" in name:
        found = importlib.util.find_spec(name.partition(":")[0])
        path = found.origin if found is not None else None
    if not path or not os.path.isfile(path):
        return None
    return {"path": os.path.basename(path) if shipped else path, "sha256": _sha256(path)}


# -- Elo ---------------------------------------------------------------------------------


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
    """The ladder's ratings installed with the package for ``protocol`` (None if none)."""
    path = os.path.join(os.path.dirname(__file__), f"{protocol.name}-ladder.json")
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return {k: float(v) for k, v in data["ratings"].items()}


# -- playing -------------------------------------------------------------------------------


@dataclass
class PairRun:
    """A pair played in the ladder's order: its hand and its match evaluation."""

    hands: EvalResult
    matches: EvalResult


def _flip_ci(ci: list[float] | None, one: float = 0.0) -> list[float] | None:
    if ci is None:
        return None
    if one:
        return [one - ci[1], one - ci[0]]
    return [-ci[1], -ci[0]]


def _neg(x: float | None) -> float | None:
    return None if x is None else -x


def _side(run: PairRun, opponent: str, first: bool) -> Opponent:
    """The pair's figures from one side: the first agent's (``first``) or the second's."""
    h: PairStats = run.hands.pairs[0]
    m: PairStats = run.matches.pairs[0]
    timing = dict(run.hands.timing)
    if first:
        return Opponent(
            opponent, h.deals, h.hands, h.gp_per_hand, h.gp_ci95, h.hands_won_a, h.hands_won_b,
            h.hands_tied, m.deals, m.matches, m.matches_won_a, m.match_rate_a, m.match_ci95,
            m.gp_per_hand, m.gp_ci95, timing,
        )
    return Opponent(
        opponent, h.deals, h.hands, _neg(h.gp_per_hand), _flip_ci(h.gp_ci95), h.hands_won_b,
        h.hands_won_a, h.hands_tied, m.deals, m.matches, m.matches - m.matches_won_a,
        None if m.match_rate_a is None else 1.0 - m.match_rate_a,
        _flip_ci(m.match_ci95, one=1.0), _neg(m.gp_per_hand), _flip_ci(m.gp_ci95), timing,
    )


class BenchmarkStopped(KeyboardInterrupt):
    """Ctrl-C or SIGTERM during a benchmark: nothing is written for an unfinished agent."""


def play_pair(
    protocol: Protocol,
    first: str,
    second: str,
    *,
    workers: int = 1,
    address: str | None = None,
    progress: bool = False,
) -> PairRun:
    """``first`` against ``second`` on the protocol's deals and match seeds."""
    deals, matches = protocol.counts(first, second)
    out = []
    for kw, seed in (({"deals": deals}, protocol.hand_seed),
                     ({"matches": matches}, protocol.match_seed)):
        res = evaluate([first, second], rules=protocol.rules, seed=seed, workers=workers,
                       address=address, progress=progress, **kw)
        if not res.complete:
            raise BenchmarkStopped(res.stopped)
        out.append(res)
    return PairRun(*out)


class PairStore(dict):
    """A pair cache kept in a folder: each pair played is saved, and found again next time.

    A saved pair is used only if it was played under the same protocol
    (quick or not), by the same package version, with the same agent files
    (their SHA-256); otherwise it is played again and replaced. A stopped
    benchmark so resumes from its last whole pair.
    """

    def __init__(self, folder: str, protocol: Protocol):
        super().__init__()
        self.folder = folder
        self.protocol = protocol
        os.makedirs(folder, exist_ok=True)

    def _path(self, key: tuple[str, str]) -> str:
        quick = "-quick" if self.protocol.quick else ""
        return os.path.join(self.folder,
                            f"{file_stem(key[0])}--{file_stem(key[1])}{quick}.json")

    def _stamp(self, key: tuple[str, str]) -> dict[str, Any]:
        return {
            "protocol": self.protocol.name,
            "quick": self.protocol.quick,
            "package_version": __version__,
            "agents": list(key),
            "files": [agent_file(k) for k in key],
        }

    def __missing__(self, key: tuple[str, str]) -> PairRun:
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        if super().__contains__(key):
            return True
        assert isinstance(key, tuple)
        path = self._path(key)
        if not os.path.isfile(path):
            return False
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            if data.get("stamp") != self._stamp(key):
                return False
            run = PairRun(EvalResult.from_dict(data["hands"]),
                          EvalResult.from_dict(data["matches"]))
        except (OSError, ValueError, KeyError, TypeError):
            return False
        super().__setitem__(key, run)
        return True

    def __setitem__(self, key: tuple[str, str], run: PairRun) -> None:
        super().__setitem__(key, run)
        data = {"stamp": self._stamp(key), "hands": run.hands.to_dict(),
                "matches": run.matches.to_dict()}
        write_json(self._path(key), data, indent=1)


def file_stem(spec: str) -> str:
    """A file name for an agent spec: its letters, digits, '.', '-' and '_' (others as '_')."""
    base = os.path.basename(spec[:-4]) if spec.endswith(FILE_SUFFIXES) else spec
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in base) or "agent"


def _order(protocol: Protocol, agent: str, rung: str) -> tuple[str, str, bool]:
    """(first, second, whether ``agent`` is first) for the pair ``agent``, ``rung``."""
    ladder = protocol.ladder
    if agent in ladder and ladder.index(agent) > ladder.index(rung):
        return rung, agent, False
    return agent, rung, True


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
            first, second, is_first = _order(protocol, agent, rung)
            if (first, second) not in cache:
                cache[(first, second)] = play_pair(protocol, first, second, workers=workers,
                                                   address=address, progress=progress)
            pair = cache[(first, second)]
            opp = _side(pair, rung, is_first)
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


# -- how long it takes ---------------------------------------------------------------------

#: Hands in a match to 7, on average (measured on the protocol's match seeds: 4.1 between
#: random and heuristic, 6.7 between heuristic and sixtysix-ppo-v2-sym, 7.2 between
#: sixtysix-ppo-v4 and expert).
HANDS_PER_MATCH = 6.0


def pairs_to_play(agents: Sequence[str], protocol: Protocol) -> list[tuple[str, str]]:
    """The pairs a benchmark of ``agents`` plays, each once, in the order it plays them."""
    out: list[tuple[str, str]] = []
    for agent in agents:
        for rung in protocol.ladder:
            if rung == agent:
                continue
            first, second, _ = _order(protocol, agent, rung)
            if (first, second) not in out:
                out.append((first, second))
    return out


@dataclass
class PairTiming:
    """A pair's first paired deal of the protocol, timed: what the estimate scales up."""

    seconds_per_hand: float
    decisions_per_hand: float


def time_pairs(
    pairs: Sequence[tuple[str, str]], protocol: Protocol
) -> tuple[dict[tuple[str, str], PairTiming], dict[str, float], float]:
    """(each pair's timing, each agent's mean milliseconds per decision, the seconds it took).

    Each pair plays the protocol's first paired deal (2 hands) one decision at a time, as
    the evaluation plays it, after every agent is built and has made one untimed decision
    (a first call may load or compile). A bad agent raises (an
    :class:`~sixtysix_env.agents.AgentSpecError`) before anything is played.
    """
    t0 = time.perf_counter()
    rules = make_rules(protocol.rules)
    built = {n: make_agent(n) for p in pairs for n in p}
    start = deal_from_deck(deal_deck(protocol.hand_seed, 0), dealer=1, rules=rules)
    for agent in built.values():
        agent.act(player_view(start, start.current_player()), random.Random(0))
    timed: dict[tuple[str, str], PairTiming] = {}
    times: dict[str, list[float]] = {n: [] for n in built}
    for a, b in pairs:
        mine: tuple[list[float], list[float]] = ([], [])
        t = time.perf_counter()
        with one_blas_thread():  # as the evaluation plays
            play_paired_deal(built[a], built[b], protocol.hand_seed, 0, rules, names=(a, b),
                             times=mine)
        timed[(a, b)] = PairTiming((time.perf_counter() - t) / 2,
                                   (len(mine[0]) + len(mine[1])) / 2)
        times[a] += mine[0]
        times[b] += mine[1]
    ms = {n: sum(ts) / len(ts) for n, ts in times.items() if ts}
    return timed, ms, time.perf_counter() - t0


@dataclass
class Estimate:
    """How long a benchmark will take, from the protocol's counts and a short timing."""

    seconds: float
    #: Decisions of both seats in the pairs to play.
    decisions: float
    pairs: int
    #: Pairs kept from an earlier run (in ``--out-dir``), not played again.
    kept: int
    #: The mean milliseconds per decision of each agent in the pairs to play.
    ms_per_decision: dict[str, float]
    #: The share of the time spent in pairs with a search rung (expert, guided).
    search_share: float
    search: tuple[str, ...]
    #: The agents benchmarked (their times are shown).
    agents: tuple[str, ...]
    workers: int
    timing_seconds: float

    def describe(self) -> str:
        """One line: the time, and what it comes from."""
        if not self.pairs:
            return f"estimated time: a few seconds (all {self.kept} pairs are kept from before)"
        kept = f"; {self.kept} pairs kept from before" if self.kept else ""
        workers = f"{self.workers} worker{'s' if self.workers != 1 else ''}"
        ms = self.ms_per_decision
        parts = [f"{self.decisions:,.0f} decisions in {self.pairs} pairs{kept}"]
        if self.search:
            names = " and ".join(self.search)
            costs = " and ".join(_ms(ms[n]) for n in self.search)
            parts.append(f"{100 * self.search_share:.0f}% of the time against {names} at "
                         f"{costs} ms a decision")
        own = [n for n in self.agents if n in ms and n not in self.search]
        if own:
            more = f" and {len(own) - 3} more" if len(own) > 3 else ""
            parts.append(", ".join(f"{n} {_ms(ms[n])} ms" for n in own[:3]) + more)
        parts.append(f"timed on a paired deal per pair in {self.timing_seconds:.1f} s")
        return (f"estimated time: about {duration_text(self.seconds)} with {workers} "
                f"({'; '.join(parts)})")


def _ms(ms: float) -> str:
    return f"{ms:.0f}" if ms >= 10 else f"{ms:.2g}"


def duration_text(seconds: float) -> str:
    """``40 s``, ``12 min``, ``2.5 h``: rounded as an estimate should be."""
    if seconds < 90:
        return f"{max(5, 5 * round(seconds / 5)):.0f} s"
    if seconds < 120 * 60:
        return f"{round(seconds / 60):.0f} min"
    return f"{seconds / 3600:.1f} h"


def estimate(
    timed: dict[tuple[str, str], PairTiming],
    protocol: Protocol,
    ms_per_decision: dict[str, float],
    *,
    agents: Sequence[str] = (),
    workers: int = 1,
    kept: int = 0,
    timing_seconds: float = 0.0,
) -> Estimate:
    """The time the ``timed`` pairs take under ``protocol``: per pair, its hands (two per
    paired deal, :data:`HANDS_PER_MATCH` per match) at its timed seconds per hand,
    spread over ``workers``."""
    total = search = decisions = 0.0
    for (a, b), t in timed.items():
        deals, matches = protocol.counts(a, b)
        hands = 2 * deals + 2 * matches * HANDS_PER_MATCH
        total += hands * t.seconds_per_hand
        decisions += hands * t.decisions_per_hand
        if a in protocol.search or b in protocol.search:
            search += hands * t.seconds_per_hand
    return Estimate(
        seconds=total / max(1, workers),
        decisions=decisions,
        pairs=len(timed),
        kept=kept,
        ms_per_decision=dict(ms_per_decision),
        search_share=search / total if total else 0.0,
        search=tuple(n for n in protocol.ladder if n in protocol.search
                     and any(n in p for p in timed)),
        agents=tuple(agents),
        workers=workers,
        timing_seconds=timing_seconds,
    )
