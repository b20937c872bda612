"""A benchmark file's schema and its checks: the figures of one agent against a ladder
(:class:`BenchmarkResult`, one :class:`Opponent` a rung), what each field may hold
(:class:`Kind`), the figures' intervals, and the refusals of a file that is not one
(:func:`load_benchmark`: :class:`BenchmarkFileError` naming the file and what is wrong).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any

from ..ranking.standings import MAX_RESULT_BYTES, BenchmarkFileError, is_number, read_json
from ..util.files import write_json
from .protocol import Protocol

#: The ``format`` of a benchmark file, and its version (a new field is a new version).
FORMAT = "sixtysix-benchmark"
FORMAT_VERSION = 1


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
                raise ValueError(f"a value of the wrong type: opponents[{i}] is {shown(o)}; "
                                 "it is an object")
            _check_fields(f"the opponent {shown(o.get('name', '?'))}", o, Opponent)
            check_values(o, OPPONENT_KINDS, f"opponents[{i}].")
            _check_counts(o, f"opponents[{i}] ({shown(o['name'])})")
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


def shown(value: Any, most: int = 60) -> str:
    """``value``'s repr, cut to ``most`` characters (a message quotes what a file holds)."""
    text = repr(value)
    return text if len(text) <= most else text[:most - 3] + "..."


def check_values(values: dict[str, Any], kinds: dict[str, Kind], prefix: str = "") -> None:
    """ValueError naming the first field of ``values`` whose value ``kinds`` does not allow:
    the field (after ``prefix``), what it holds and what is allowed."""
    for name, kind in kinds.items():
        if name in values and not kind.test(values[name]):
            raise ValueError(f"a value of the wrong type: {prefix}{name} is "
                             f"{shown(values[name])}; it is {kind.allowed}")


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
