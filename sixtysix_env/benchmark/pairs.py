"""The pairs of a benchmark: each played once, in the ladder's order
(:func:`pair_order`, :func:`play_pair`), its figures from either side, and the folder that
keeps them between runs (:class:`PairStore`), which reuses a kept pair only as the
protocol plays it."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from typing import Any

from ..evaluation import EvalResult, PairStats, evaluate
from ..game.rules import make_rules
from ..ranking.standings import MAX_PAIR_BYTES, BenchmarkFileError, read_json
from ..util.files import write_json
from ..util.version import GAMES_VERSION
from .filenames import file_stem
from .identity import agent_file, unknown_here
from .protocol import Protocol
from .schema import (
    COUNT,
    INTERVAL,
    NAME,
    NULL,
    NUMBER,
    PAIR_INTERVALS,
    SECONDS,
    SHARE,
    TIMES_BY_AGENT,
    Kind,
    Opponent,
    check_values,
    outside_interval,
    shown,
)


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


def pair_side(run: PairRun, opponent: str, first: bool) -> Opponent:
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


def _games_stamp(stamp: dict[str, Any]) -> dict[str, Any]:
    """A kept pair's stamp as this release writes it: 0.1.0 stamped the package's version,
    ``package_version``, which was its games' version."""
    if "package_version" in stamp and "games_version" not in stamp:
        stamp = {("games_version" if k == "package_version" else k): v
                 for k, v in stamp.items()}
    return stamp


class PairStore(dict):
    """A pair cache kept in a folder: each pair played is saved, and found again next time.

    A saved pair is used only if its stamp says it was played under the same protocol
    (quick or not), by a package of the same games (``util.version.GAMES_VERSION``: a
    release that changes no game keeps every pair), with the same agent files (their
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

    def _stamp(self, key: tuple[str, str], kept: dict[str, Any] | None = None) -> dict[str, Any]:
        """The stamp of the pair ``key`` played here; compared with a ``kept`` pair's, the
        file of a ``schnapsen`` package bot where the package is not installed is the kept
        one (it cannot be read here, and the pair is only read: playing it needs the
        package, which says so)."""
        files = [agent_file(k) for k in key]
        recorded = kept.get("files") if kept else None
        if isinstance(recorded, list) and len(recorded) == 2:
            files = [old if unknown_here(k) else f for k, f, old in zip(key, files, recorded)]
        return {
            "protocol": self.protocol.name,
            "quick": self.protocol.quick,
            "games_version": GAMES_VERSION,
            "agents": list(key),
            "files": files,
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
        stamp = _games_stamp(data["stamp"])
        if stamp != self._stamp(key, stamp):
            return False  # other games or another agent file: played again, replaced
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
        return (f"complete is {shown(res.complete)} (stopped: {shown(res.stopped)}); only "
                "a pair played in full is kept")
    if res.mode != mode:
        return f"mode {res.mode!r}; they are played in mode {mode!r}"
    if res.agents != list(key):
        return f"agents {shown(res.agents)}; the pair is {list(key)}"
    if res.seed != seed or not COUNT.test(res.seed):
        return f"seed {shown(res.seed)}; {protocol.name} plays them from seed {seed}"
    if res.requested != count or not COUNT.test(res.requested):
        return f"{shown(res.requested)} {unit} asked for; {protocol.name} plays {count}"
    rules = make_rules(protocol.rules).to_dict()
    if res.rules != rules:
        if not isinstance(res.rules, dict):
            return f"rules {shown(res.rules)}; {protocol.name} plays {protocol.rules!r}"
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



def pair_order(protocol: Protocol, agent: str, rung: str) -> tuple[str, str, bool]:
    """(first, second, whether ``agent`` is first) for the pair ``agent``, ``rung``: the
    earlier rung of the ladder first, so a pair gives the same figures whichever of the
    two is benchmarked."""
    ladder = protocol.ladder
    if agent in ladder and ladder.index(agent) > ladder.index(rung):
        return rung, agent, False
    return agent, rung, True
