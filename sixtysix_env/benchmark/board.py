"""``sixtysix leaderboard``: the leaderboard page from a folder of benchmark and exploit files.

Every refusal names the file it is about and why: a file that is not a small
regular file (a FIFO, ``/dev/zero``, a file over the bound), not JSON, not a
complete benchmark or exploitability file, or one holding a value of the wrong
type (named by its field); a folder that mixes protocols (a ``--quick`` result
beside full ones, say, named by file) or holds a result not played as its
protocol plays; two files for one agent; a folder with no benchmark file. A
command the page shows holds no path of the machine it ran on: a path outside
the folder it ran in is shown by its base name (:func:`.report.public_command`).
Every string from a file is escaped on the page (:mod:`.report`).
"""

from __future__ import annotations

import argparse
import glob
import os
import shlex
import sys
from typing import Any

from ..evaluation.play import normalize_mode
from ..ranking.standings import MAX_RESULT_BYTES, BenchmarkFileError, read_json
from ..util.files import replaced
from .report import leaderboard, one_protocol
from .run import (
    COUNT,
    FLAG,
    FORMAT,
    INTERVAL,
    NAME,
    NULL,
    NUMBER,
    SECONDS,
    TEXT,
    BenchmarkResult,
    Kind,
    check_values,
)

#: The ``format`` of an exploitability estimate's file (written by ``sixtysix exploit``).
EXPLOIT_FORMAT = "sixtysix-exploit"

#: The ``format_version`` written now: 2 names the ``method`` ("ppo", a trained best
#: response; "lbr", a local best response). Files of version 1 are trained responses.
EXPLOIT_FORMAT_VERSION = 2
EXPLOIT_VERSIONS = (1, 2)
EXPLOIT_METHODS = ("ppo", "lbr")

#: The fields the page reads from an exploitability file, by method (``start`` may be left
#: out).
EXPLOIT_FIELDS = {
    "ppo": ("target", "gp_per_hand", "gp_ci95", "deals", "steps", "train_seconds", "command"),
    "lbr": ("target", "gp_per_hand", "gp_ci95", "deals", "command"),
}
EXPLOIT_KINDS: dict[str, Kind] = {
    "target": NAME, "gp_per_hand": NUMBER | NULL, "gp_ci95": INTERVAL | NULL, "deals": COUNT,
    "steps": COUNT, "train_seconds": SECONDS, "command": TEXT,
    "start": Kind(lambda v: isinstance(v, dict), "an object") | NULL,
    "ms_per_decision": NUMBER | NULL,
    "rules": NAME,
}
#: The rules of an exploitability file that records none (every file before ``--rules``).
EXPLOIT_DEFAULT_RULES = "altmisalti"
#: The fields of an exploitability file's ``start``.
START_KINDS: dict[str, Kind] = {"from": TEXT, "agent": NAME, "symmetry_dropped": FLAG}

#: The subfolder of evaluation files (``sixtysix eval A TARGET --json FILE``) that play an
#: agent against a target on a local best response's own paired deals: the page shows the
#: ladder's best on the same deals as the LBR, the comparison to read.
SAME_DEALS = "same-deals"
#: The fields the page reads from such a file, and from each of its pairs.
SAME_DEALS_KINDS: dict[str, Kind] = {
    "seed": COUNT, "mode": TEXT, "command": TEXT | NULL,
    "rules": Kind(lambda v: isinstance(v, dict) and isinstance(v.get("name"), str),
                  "an object with the rules' name"),
    "pairs": Kind(lambda v: isinstance(v, list) and all(isinstance(p, dict) for p in v),
                  "a list of objects"),
}
PAIR_KINDS: dict[str, Kind] = {
    "a": NAME, "b": NAME, "deals": COUNT, "gp_per_hand": NUMBER | NULL,
    "gp_ci95": INTERVAL | NULL,
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", help="the folder of benchmark files (sixtysix benchmark "
                        "--out-dir) and exploitability files (sixtysix exploit --json)")
    parser.add_argument("-o", "--output", metavar="PATH",
                        help="write the page here (default: print it)")


def check_exploit(data: dict[str, Any]) -> dict[str, Any]:
    """``data``, an exploitability file's content, once the fields the page reads are
    there with values of their types (``method`` set: "ppo" for a file of version 1);
    ValueError naming the field otherwise."""
    version = data.get("format_version")
    method = data.get("method", "ppo") if version == 2 else "ppo"
    if method not in EXPLOIT_METHODS:
        raise ValueError(f"method {method!r}; an exploitability file's method is "
                         f"{' or '.join(map(repr, EXPLOIT_METHODS))}")
    missing = [k for k in (*EXPLOIT_FIELDS[method], "format_version") if k not in data]
    if missing:
        raise ValueError(f"an exploitability file ({EXPLOIT_FORMAT}) without "
                         f"{', '.join(missing)}")
    if version not in EXPLOIT_VERSIONS:
        raise ValueError(f"format_version {version!r}; this version reads {EXPLOIT_FORMAT} "
                         f"files of format_version {' or '.join(map(str, EXPLOIT_VERSIONS))}")
    check_values(data, EXPLOIT_KINDS)
    if data.get("start") is not None:
        if "agent" not in data["start"]:
            raise ValueError("an exploitability file whose start is without agent")
        check_values(data["start"], START_KINDS, "start.")
    return {**data, "method": method}


def read_files(
    folder: str,
) -> tuple[list[tuple[str, BenchmarkResult]], list[tuple[str, dict]]]:
    """(path, result) of each benchmark file and (path, estimate) of each exploitability
    file among ``folder``'s JSON files; other JSON files are left alone. Each is read only
    as a small regular file (:func:`~sixtysix_env.ranking.standings.read_json`). A file of either
    kind that cannot be read, or holds a value of the wrong type, raises
    :class:`~sixtysix_env.ranking.standings.BenchmarkFileError` naming it and why."""
    results, exploits = [], []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        data = read_json(path, "a benchmark or exploitability file", MAX_RESULT_BYTES)
        kind = data.get("format") if isinstance(data, dict) else None
        try:
            if kind == FORMAT:
                results.append((path, BenchmarkResult.from_dict(data)))
            elif kind == EXPLOIT_FORMAT:
                exploits.append((path, check_exploit(data)))
        except (TypeError, KeyError, ValueError) as e:
            raise BenchmarkFileError(f"{path}: {e}") from None
    return results, exploits


def check_same_deals(data: Any) -> dict[str, Any]:
    """``data``, an evaluation file's content, once the fields the page reads are there with
    values of their types, its mode in today's spelling ("hand" for a version 1 file's
    "hands"); ValueError naming the field otherwise."""
    if not isinstance(data, dict) or "pairs" not in data or "format_version" not in data:
        raise ValueError("not an evaluation file (sixtysix eval --json writes one)")
    missing = [k for k in SAME_DEALS_KINDS if k not in data]
    if missing:
        raise ValueError(f"an evaluation file without {', '.join(missing)}")
    check_values(data, SAME_DEALS_KINDS)
    for i, pair in enumerate(data["pairs"]):
        gone = [k for k in PAIR_KINDS if k not in pair]
        if gone:
            raise ValueError(f"pairs[{i}] without {', '.join(gone)}")
        check_values(pair, PAIR_KINDS, f"pairs[{i}].")
    return {**data, "mode": normalize_mode(data["mode"])}


def read_same_deals(folder: str) -> list[tuple[str, dict]]:
    """(path, content) of each evaluation file in ``folder``'s :data:`SAME_DEALS` subfolder
    (none where there is no such subfolder); each read only as a small regular file. One that
    cannot be read, is not an evaluation file or holds a value of the wrong type raises
    :class:`~sixtysix_env.ranking.standings.BenchmarkFileError` naming it and why."""
    found = []
    for path in sorted(glob.glob(os.path.join(folder, SAME_DEALS, "*.json"))):
        data = read_json(path, "an evaluation file", MAX_RESULT_BYTES)
        try:
            found.append((path, check_same_deals(data)))
        except (TypeError, KeyError, ValueError) as e:
            raise BenchmarkFileError(f"{path}: {e}") from None
    return found


def read_folder(folder: str) -> tuple[list[BenchmarkResult], list[dict]]:
    """The benchmark results and exploitability estimates among ``folder``'s JSON files."""
    results, exploits = read_files(folder)
    return [r for _, r in results], [e for _, e in exploits]


def _same_agent(results: list[tuple[str, BenchmarkResult]]) -> str | None:
    """The refusal of two files for one agent (which row would the page show?), or None."""
    by: dict[str, list[str]] = {}
    for path, r in results:
        by.setdefault(r.agent, []).append(os.path.basename(path))
    for agent, files in by.items():
        if len(files) > 1:
            return (f"{len(files)} files benchmark the agent {agent!r}: {', '.join(files)}; "
                    "a leaderboard takes one row per agent: keep one of them in the folder")
    return None


def _other_rules(exploits: list[tuple[str, dict]], rules: str) -> str | None:
    """The refusal of an exploitability file made under other rules than the protocol's
    (its figure is not the target's exploitability in this protocol's game), or None."""
    for path, e in exploits:
        made = e.get("rules", EXPLOIT_DEFAULT_RULES)
        if made != rules:
            return (f"{os.path.basename(path)}: an exploitability estimate under the {made} "
                    f"rules beside benchmark files of the {rules} rules; keep it in a folder "
                    f"of that preset's protocol")
    return None


def _output_problem(path: str) -> str | None:
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"-o {path}: the folder {folder} does not exist (create it first)"
    if os.path.isdir(path):
        return f"-o {path}: is a folder; give the page's file name"
    return None


def run(args: argparse.Namespace) -> int:
    if not os.path.isdir(args.folder):
        print(f"sixtysix leaderboard: {args.folder!r} is not a folder", file=sys.stderr)
        return 2
    problem = _output_problem(args.output) if args.output else None
    if problem:
        print(f"sixtysix leaderboard: {problem}", file=sys.stderr)
        return 2
    command = " ".join(shlex.quote(p) for p in
                       ["sixtysix", "leaderboard", args.folder,
                        *(["-o", args.output] if args.output else [])])
    try:
        results, exploits = read_files(args.folder)
        same_deals = read_same_deals(args.folder)
        if not results:
            raise ValueError(
                f"{args.folder}: no benchmark file in it (a JSON file of format {FORMAT}, as "
                f"sixtysix benchmark AGENT --out-dir {args.folder} writes)"
            )
        # The protocols first: a --quick result beside the same agent's full one is named
        # as the quick result to move out.
        protocol = one_protocol([r for _, r in results], [p for p, _ in results])
        problem = _same_agent(results) or _other_rules(exploits, protocol.rules)
        if problem:
            raise ValueError(problem)
        page = leaderboard([r for _, r in results], [e for _, e in exploits], command,
                           files=[p for p, _ in results],
                           same_deals=[d for _, d in same_deals])
    except ValueError as e:
        print(f"sixtysix leaderboard: {e}", file=sys.stderr)
        return 2
    if args.output:
        with replaced(args.output) as tmp, open(tmp, "w", encoding="utf-8") as f:
            f.write(page)
        print(f"the leaderboard of {len(results)} agents is in {args.output}")
    else:
        print(page, end="")
    return 0
