"""Running a benchmark: each agent against every rung of the ladder, and its figures.

Every pair is one :func:`~sixtysix_env.evaluation.evaluate` in hand mode and
one in match mode, with the protocol's seeds. A pair of two rungs is always
played in the ladder's order (the earlier rung in the first seat of the
first game), so it gives the same figures whichever of the two is being
benchmarked, and a run of several agents plays it once (``cache``).
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from typing import Any

from ..agents import make_agent
from ..agents.registry import FILE_SUFFIXES, parse_agent_spec
from ..evaluation import (
    EvalResult,
    PairStats,
    bradley_terry,
    deal_deck,
    evaluate,
    play_paired_deal,
)
from ..evaluation.blas import one_blas_thread
from ..game.engine import deal_from_deck
from ..game.rules import make_rules
from ..game.view import player_view
from ..policy.shipped import policy_summary, shipped_policies
from ..ranking.standings import (
    MAX_LADDER_BYTES,
    MAX_PAIR_BYTES,
    MAX_RESULT_BYTES,
    BenchmarkFileError,
    is_number,
    read_json,
)
from ..util.files import write_json
from ..util.machine import machine
from ..util.version import __version__
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
        check_values(values, RESULT_KINDS)
        for i, o in enumerate(values["opponents"]):
            if not isinstance(o, dict):
                raise ValueError(f"a value of the wrong type: opponents[{i}] is {_shown(o)}; "
                                 "it is an object")
            _check_fields(f"the opponent {_shown(o.get('name', '?'))}", o, Opponent)
            check_values(o, OPPONENT_KINDS, f"opponents[{i}].")
            _check_counts(o, f"opponents[{i}] ({_shown(o['name'])})")
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
        """Write the file, once each figure lies within its own interval (else
        :class:`BenchmarkFileError` naming ``path``, and nothing written)."""
        for o in self.opponents:
            outside = outside_interval(asdict(o), RESULT_INTERVALS, f"the opponent {o.name}: ")
            if outside:
                raise BenchmarkFileError(f"{path}: not written: {outside}")
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


# -- what a file may hold -------------------------------------------------------------------
#
# Each field of a benchmark file (and of an opponent in it): a test, and what it allows in
# words. A value of another type is refused by name (the field, what it is, what is
# allowed), never found by a traceback while a page is made.


@dataclass(frozen=True)
class Kind:
    """What a field may hold: ``test`` accepts it, ``allowed`` says it in words."""

    test: Callable[[Any], bool]
    allowed: str

    def __or__(self, other: Kind) -> Kind:
        return Kind(lambda v: self.test(v) or other.test(v), f"{self.allowed} or {other.allowed}")


def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _is_interval(v: Any) -> bool:
    return isinstance(v, list) and len(v) == 2 and all(map(is_number, v)) and v[0] <= v[1]


def _is_times(v: Any) -> bool:
    """A timing summary: decisions and milliseconds (numbers), ``against`` a name."""
    return isinstance(v, dict) and all(
        isinstance(k, str) and (isinstance(x, str) if k == "against" else is_number(x))
        for k, x in v.items())


NULL = Kind(lambda v: v is None, "null")
TEXT = Kind(lambda v: isinstance(v, str), "text")
NAME = Kind(lambda v: isinstance(v, str) and v.strip() != "", "a name (text, not blank)")
FLAG = Kind(lambda v: isinstance(v, bool), "true or false")
COUNT = Kind(_is_count, "a whole number, 0 or more")
NUMBER = Kind(is_number, "a number")
SECONDS = Kind(lambda v: is_number(v) and v >= 0, "a number, 0 or more")
SHARE = Kind(lambda v: is_number(v) and 0 <= v <= 1, "a number from 0 to 1")
INTERVAL = Kind(_is_interval, "a list of two numbers, the lower first")
RATINGS = Kind(lambda v: isinstance(v, dict) and all(isinstance(k, str) and is_number(x)
                                                     for k, x in v.items()),
               "an object of names and numbers")
TIMES = Kind(_is_times, "an object of numbers (decisions, milliseconds) and against, a name")
TIMES_BY_AGENT = Kind(lambda v: isinstance(v, dict) and all(
    isinstance(k, str) and _is_times(x) for k, x in v.items()),
    "an object of each agent's timing (numbers)")
AGENT_FILE = Kind(lambda v: isinstance(v, dict) and set(v) == {"path", "sha256"}
                  and isinstance(v["path"], str)
                  and isinstance(v["sha256"], str) and len(v["sha256"]) == 64
                  and all(c in "0123456789abcdef" for c in v["sha256"]),
                  "an object of path (text) and sha256 (64 hexadecimal digits)")
OBJECTS = Kind(lambda v: isinstance(v, list), "a list of objects")

#: Every field of a benchmark file but ``format`` and ``format_version``.
RESULT_KINDS: dict[str, Kind] = {
    "agent": NAME, "protocol": NAME, "quick": FLAG, "rules": NAME, "package_version": TEXT,
    "agent_file": AGENT_FILE | NULL, "opponents": OBJECTS, "elo": NUMBER | NULL,
    "ladder_elo": RATINGS, "elo_anchor": RATINGS, "timing": TIMES, "machine": TEXT,
    "workers": Kind(lambda v: _is_count(v) and v >= 1, "a whole number, 1 or more"),
    "address": TEXT | NULL, "wall_seconds": SECONDS, "command": TEXT | NULL,
    "protocol_text": TEXT,
}
#: Every field of an opponent in a benchmark file.
OPPONENT_KINDS: dict[str, Kind] = {
    "name": NAME, "deals": COUNT, "hands": COUNT, "gp_per_hand": NUMBER | NULL,
    "gp_ci95": INTERVAL | NULL, "hands_won": COUNT, "hands_lost": COUNT, "hands_tied": COUNT,
    "match_seeds": COUNT, "matches": COUNT, "matches_won": COUNT, "match_rate": SHARE | NULL,
    "match_ci95": INTERVAL | NULL, "match_gp_per_hand": NUMBER | NULL,
    "match_gp_ci95": INTERVAL | NULL, "timing": TIMES_BY_AGENT,
}


def _shown(value: Any, most: int = 60) -> str:
    """``value``'s repr, cut to ``most`` characters (a message quotes what a file holds)."""
    text = repr(value)
    return text if len(text) <= most else text[:most - 3] + "..."


def check_values(values: dict[str, Any], kinds: dict[str, Kind], prefix: str = "") -> None:
    """ValueError naming the first field of ``values`` whose value ``kinds`` does not allow:
    the field (after ``prefix``), what it holds and what is allowed."""
    for name, kind in kinds.items():
        if name in values and not kind.test(values[name]):
            raise ValueError(f"a value of the wrong type: {prefix}{name} is "
                             f"{_shown(values[name])}; it is {kind.allowed}")


#: The slack a figure may lie beyond its interval's ends (rounding, none in a file written
#: here: a figure and its interval are stored as computed).
_INSIDE_SLACK = 1e-9

#: Each figure of a benchmark file's opponent and of a kept pair's figures that has an
#: interval of its own, by the interval's field.
RESULT_INTERVALS = (("gp_per_hand", "gp_ci95"), ("match_rate", "match_ci95"),
                    ("match_gp_per_hand", "match_gp_ci95"))
PAIR_INTERVALS = (("gp_per_hand", "gp_ci95"), ("match_rate_a", "match_ci95"))


def outside_interval(values: dict[str, Any], pairs: Sequence[tuple[str, str]],
                     prefix: str = "") -> str | None:
    """What is wrong where a figure of ``values`` lies outside its own 95% interval
    (``pairs``: (figure, interval) field names; a figure or interval that is null is not
    compared), or None. Such a figure was not computed with its interval (a file edited, or
    a bug): it is never published nor reused."""
    for value_key, ci_key in pairs:
        value, ci = values.get(value_key), values.get(ci_key)
        if value is None or ci is None:
            continue
        if not ci[0] - _INSIDE_SLACK <= value <= ci[1] + _INSIDE_SLACK:
            return (f"{prefix}{value_key} {value!r} lies outside its own 95% interval "
                    f"{prefix}{ci_key} {list(ci)!r}; a figure lies within its interval")
    return None


def _check_counts(o: dict[str, Any], what: str) -> None:
    """ValueError where an opponent's counts contradict one another (a file not written
    by a benchmark, or edited)."""
    said = []
    if o["hands"] != 2 * o["deals"]:
        said.append(f"hands {o['hands']} are not twice its {o['deals']} paired deals")
    if o["hands_won"] + o["hands_lost"] + o["hands_tied"] != o["hands"]:
        said.append(f"hands won, lost and tied ({o['hands_won']}, {o['hands_lost']}, "
                    f"{o['hands_tied']}) do not add up to its {o['hands']} hands")
    if o["matches"] != 2 * o["match_seeds"]:
        said.append(f"matches {o['matches']} are not twice its {o['match_seeds']} match seeds")
    if o["matches_won"] > o["matches"]:
        said.append(f"matches won {o['matches_won']} are more than its {o['matches']} matches")
    outside = outside_interval(o, RESULT_INTERVALS)
    if outside:
        said.append(outside)
    if said:
        raise ValueError(f"{what}: {'; '.join(said)}")


def check_protocol(result: BenchmarkResult, protocol: Protocol, what: str) -> None:
    """ValueError naming ``what`` (its file) where ``result`` was not played as
    ``protocol`` plays: other rules, other rungs, other counts, another Elo anchor. A file
    of another protocol's version is so never mixed into a page of this one."""
    name = f"{protocol.name}{' --quick' if protocol.quick else ''}"
    rungs = [r for r in protocol.ladder if r != result.agent]
    said = []
    if result.rules != protocol.rules:
        said.append(f"rules {result.rules!r}; {name} plays {protocol.rules!r}")
    if [o.name for o in result.opponents] != rungs:
        said.append(f"opponents {', '.join(o.name for o in result.opponents) or 'none'}; "
                    f"{name} plays {', '.join(rungs)}")
    else:
        for o in result.opponents:
            deals, seeds = protocol.counts(result.agent, o.name)
            if (o.deals, o.match_seeds) != (deals, seeds):
                said.append(f"{o.deals} paired deals and {o.match_seeds} match seeds against "
                            f"{o.name}; {name} plays {deals} and {seeds}")
    if result.elo_anchor != {protocol.anchor: protocol.anchor_elo}:
        said.append(f"Elo anchor {result.elo_anchor}; {name} anchors "
                    f"{protocol.anchor} = {protocol.anchor_elo:g}")
    if said:
        raise ValueError(f"{what}: not played as {name} plays: {'; '.join(said)}")


def load_benchmark(path: str) -> BenchmarkResult:
    """The result in a benchmark file; :class:`BenchmarkFileError` (a ValueError) naming
    the file and what is wrong with it."""
    data = read_json(path, "a benchmark file", MAX_RESULT_BYTES)
    if not isinstance(data, dict):
        raise BenchmarkFileError(f"{path}: not a benchmark file (a JSON object)")
    try:
        return BenchmarkResult.from_dict(data)
    except (TypeError, KeyError, ValueError) as e:
        raise BenchmarkFileError(f"{path}: {e}") from None


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


def recorded_policy(file: dict[str, str] | None) -> dict[str, Any] | None:
    """The summary (``policy_summary``) of a benchmarked policy file: the shipped policy of
    that file name, or the file at the recorded path, if its SHA-256 is the recorded one
    (None for a built-in agent, an SB3 model or module, or a file not here or changed
    since)."""
    if not file:
        return None
    path = file["path"]
    shipped = shipped_policies().get(os.path.splitext(os.path.basename(path))[0])
    for candidate in ((str(shipped.path),) if shipped else ()) + (path,):
        if (candidate.endswith(".npz") and os.path.isfile(candidate)
                and _sha256(candidate) == file["sha256"]):
            if file["sha256"] not in _SUMMARIES:  # by content: the same bytes, the same summary
                _SUMMARIES[file["sha256"]] = policy_summary(candidate)
            return copy.deepcopy(_SUMMARIES[file["sha256"]])
    return None


#: The summaries :func:`recorded_policy` read, by the SHA-256 of the file's bytes (each file
#: is hashed again on every call; only reading and checking its network is saved).
_SUMMARIES: dict[str, dict[str, Any]] = {}


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
        raise ValueError(f"the ratings of protocol {_shown(data.get('protocol'))}, quick "
                         f"{_shown(data.get('quick'))}; wanted: {protocol.name}, quick "
                         f"{protocol.quick}")
    ratings = data["ratings"]
    if set(ratings) != set(protocol.ladder) or ratings[protocol.anchor] != protocol.anchor_elo:
        raise ValueError(f"ratings of {', '.join(ratings) or 'no one'}; {protocol.name}'s "
                         f"ladder is {', '.join(protocol.ladder)}, {protocol.anchor} at "
                         f"{protocol.anchor_elo:g}")
    return {k: float(v) for k, v in ratings.items()}


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

    A saved pair is used only if its stamp says it was played under the same protocol
    (quick or not), by the same package version, with the same agent files (their
    SHA-256); a pair of another stamp is played again and replaced. A stopped benchmark so
    resumes from its last whole pair. A file of the right stamp is reused only as the
    protocol plays the pair, in full: its two evaluations complete, of these agents, in
    hand and match mode, on the protocol's seeds, deal and match counts and rules. Any
    other file where a pair is kept (one that is not a kept pair, not JSON, not a small
    regular file, or whose figures contradict its stamp) is refused by name
    (:class:`BenchmarkFileError`, from ``in``), never played over: delete it to play the
    pair again.
    """

    def __init__(self, folder: str, protocol: Protocol):
        super().__init__()
        self.folder = folder
        self.protocol = protocol
        if os.path.lexists(folder) and not os.path.isdir(folder):
            raise BenchmarkFileError(f"{folder} is not a folder (where the pairs played are "
                                     "kept): move it away")
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
        if not os.path.lexists(path):
            return False
        try:
            data = read_json(path, "a kept pair file", MAX_PAIR_BYTES)
        except BenchmarkFileError as e:
            raise BenchmarkFileError(f"{e}: a kept pair this benchmark will not reuse. "
                                     "Delete the file to play the pair again") from None
        if not isinstance(data, dict) or not isinstance(data.get("stamp"), dict):
            raise self._refusal(path, "it is not a kept pair (a JSON object of its stamp, "
                                "hands and matches)")
        if data["stamp"] != self._stamp(key):
            return False  # another package version or agent file: played again, replaced
        run = []
        deals, matches = self.protocol.counts(*key)
        for part, mode, seed, count in (("hands", "hand", self.protocol.hand_seed, deals),
                                        ("matches", "match", self.protocol.match_seed, matches)):
            try:
                res = EvalResult.from_dict(data.get(part))
            except (TypeError, ValueError, KeyError, AttributeError) as e:
                raise self._refusal(path, f"its {part} are not an evaluation's result "
                                    f"({e})") from None
            problem = _pair_problem(res, key, mode, seed, count, self.protocol)
            if problem:
                raise self._refusal(path, f"its {part}: {problem}")
            run.append(res)
        super().__setitem__(key, PairRun(*run))
        return True

    def _refusal(self, path: str, why: str) -> BenchmarkFileError:
        return BenchmarkFileError(
            f"{path}: a kept pair this benchmark will not reuse: {why}. Delete the file to "
            "play the pair again")

    def __setitem__(self, key: tuple[str, str], run: PairRun) -> None:
        for part, res in (("hands", run.hands), ("matches", run.matches)):
            for i, stats in enumerate(res.pairs):
                outside = outside_interval(asdict(stats), PAIR_INTERVALS, f"pairs[{i}].")
                if outside:
                    raise BenchmarkFileError(f"{self._path(key)}: not written: its {part}: "
                                             f"{outside}")
        super().__setitem__(key, run)
        data = {"stamp": self._stamp(key), "hands": run.hands.to_dict(),
                "matches": run.matches.to_dict()}
        write_json(self._path(key), data, indent=1)


#: What a kept pair's figures hold, by mode: each field of its one :class:`PairStats`.
_PAIR_KINDS: dict[str, dict[str, Kind]] = {
    mode: {"a": NAME, "b": NAME, "deals": COUNT, "hands": COUNT, "gp_per_hand": NUMBER,
           "gp_ci95": INTERVAL | NULL,  # null: one paired deal (or match seed) only
           "hands_won_a": COUNT, "hands_won_b": COUNT, "hands_tied": COUNT, "matches": COUNT,
           "matches_won_a": COUNT, "match_rate_a": SHARE if mode == "match" else NULL,
           "match_ci95": INTERVAL if mode == "match" else NULL}
    for mode in ("hand", "match")
}


def _pair_problem(res: EvalResult, key: tuple[str, str], mode: str, seed: int, count: int,
                  protocol: Protocol) -> str | None:
    """What makes ``res`` other than ``protocol``'s evaluation of the pair ``key`` in
    ``mode`` (``count`` paired deals or match seeds from ``seed``), played in full; None if
    nothing."""
    unit = "paired deals" if mode == "hand" else "paired match seeds"
    if res.complete is not True or res.stopped is not None:
        return (f"complete is {_shown(res.complete)} (stopped: {_shown(res.stopped)}); only "
                "a pair played in full is kept")
    if res.mode != mode:
        return f"mode {res.mode!r}; they are played in mode {mode!r}"
    if res.agents != list(key):
        return f"agents {_shown(res.agents)}; the pair is {list(key)}"
    if res.seed != seed or not COUNT.test(res.seed):
        return f"seed {_shown(res.seed)}; {protocol.name} plays them from seed {seed}"
    if res.requested != count or not COUNT.test(res.requested):
        return f"{_shown(res.requested)} {unit} asked for; {protocol.name} plays {count}"
    rules = make_rules(protocol.rules).to_dict()
    if res.rules != rules:
        if not isinstance(res.rules, dict):
            return f"rules {_shown(res.rules)}; {protocol.name} plays {protocol.rules!r}"
        diff = sorted(k for k in set(rules) | set(res.rules) if res.rules.get(k) != rules.get(k))
        return (f"rules that differ from {protocol.name}'s ({protocol.rules!r}) in "
                f"{', '.join(diff)}")
    if not TIMES_BY_AGENT.test(res.timing) or not SECONDS.test(res.wall_seconds):
        return "a timing or wall_seconds of the wrong type"
    if len(res.pairs) != 1:
        return f"{len(res.pairs)} pairs' figures; a kept pair holds its own only"
    p = asdict(res.pairs[0])
    try:
        check_values(p, _PAIR_KINDS[mode], "pairs[0].")
    except ValueError as e:
        return str(e)
    if (p["a"], p["b"]) != key:
        return f"the figures of {p['a']!r} against {p['b']!r}; the pair is {list(key)}"
    outside = outside_interval(p, PAIR_INTERVALS, "pairs[0].")
    if outside:
        return outside
    if p["deals"] != count:
        return f"{p['deals']} {unit} played; {protocol.name} plays {count}"
    if p["hands_won_a"] + p["hands_won_b"] + p["hands_tied"] != p["hands"]:
        return (f"hands won by each and tied ({p['hands_won_a']}, {p['hands_won_b']}, "
                f"{p['hands_tied']}) that do not add up to its {p['hands']} hands")
    if mode == "hand" and (p["hands"], p["matches"]) != (2 * count, 0):
        return f"{p['hands']} hands and {p['matches']} matches; {count} {unit} are " \
               f"{2 * count} hands and no match"
    if mode == "match" and (p["matches"] != 2 * count or p["matches_won_a"] > p["matches"]):
        return (f"{p['matches_won_a']} of {p['matches']} matches won; {count} {unit} are "
                f"{2 * count} matches")
    return None


def file_stem(spec: str) -> str:
    """A file name for an agent spec: its letters, digits, '.', '-' and '_' (others as '_')."""
    base = os.path.basename(spec[:-4]) if spec.endswith(FILE_SUFFIXES) else spec
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in base) or "agent"


def result_file_name(spec: str, protocol: Protocol) -> str:
    """The file ``--out-dir`` writes an agent's figures to: ``NAME.json``, and
    ``NAME-quick.json`` for ``--quick`` (so a quick look never replaces a full run). Two
    specs can still have one name (``a/policy.npz``, ``b/policy.npz``):
    :func:`check_replaceable` refuses to write one over the other."""
    return f"{file_stem(spec)}{'-quick' if protocol.quick else ''}.json"


def ladder_file_name(protocol: Protocol) -> str:
    """The file ``--ladder`` writes the ladder's ratings to: ``PROTOCOL-ladder.json``, and
    ``PROTOCOL-ladder-quick.json`` for ``--quick``."""
    return f"{protocol.name}-ladder{'-quick' if protocol.quick else ''}.json"


def _held(data: Any) -> str:
    """What a JSON file holds, in words (the refusal to write over it says it)."""
    if isinstance(data, dict):
        protocol = data.get("protocol")
        protocol = protocol if NAME.test(protocol) and len(protocol) < 60 else _shown(protocol)
        quick = " --quick" if data.get("quick") is True else ""
    if isinstance(data, dict) and data.get("format") == FORMAT:
        return f"the figures of {_shown(data.get('agent'))} ({protocol}{quick})"
    if isinstance(data, dict) and "ratings" in data and "format" not in data:
        return f"the ladder's ratings of {protocol}{quick}"
    if isinstance(data, dict) and isinstance(data.get("format"), str):
        return f"a file of format {_shown(data['format'])}"
    return "a JSON file that is not a benchmark's"


def check_replaceable(path: str, protocol: Protocol, agent: str | None = None) -> None:
    """Refuse (:class:`BenchmarkFileError`) to write over ``path`` what it does not already
    hold: ``agent``'s figures under ``protocol`` in the same mode (``agent`` None: the
    ladder's ratings of ``protocol``, the same mode). Nothing there: nothing to refuse. A
    benchmark file is so replaced only by a run of the same spec, protocol and mode."""
    if not os.path.lexists(path):
        return
    mode = f"{protocol.name}{' --quick' if protocol.quick else ''}"
    new = (f"the ladder's ratings of {mode}" if agent is None
           else f"the figures of {agent!r} ({mode})")
    try:
        data = read_json(path, "a benchmark file", MAX_RESULT_BYTES)
    except BenchmarkFileError as e:
        raise BenchmarkFileError(f"{e}: {new} would be written over it; write them "
                                 "elsewhere, or move that file away first") from None
    same = (isinstance(data, dict) and data.get("protocol") == protocol.name
            and data.get("quick") is protocol.quick)
    if same and (data.get("format") == FORMAT and data.get("agent") == agent if agent
                 else "format" not in data and "ratings" in data):
        return
    raise BenchmarkFileError(
        f"{path} holds {_held(data)}; {new} would replace it: write them elsewhere "
        "(another --out-dir, or --json PATH), or move that file away first")


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
