"""``sixtysix leaderboard``: the leaderboard page from a folder of benchmark and exploit files.

Every refusal names the file it is about and why: a file that is not JSON or
not a complete benchmark or exploitability file, a folder that mixes
protocols (a ``--quick`` result beside full ones, say, named by file), two
files for one agent, a folder with no benchmark file. A command the page
shows holds no path of the machine it ran on: a path outside the folder it
ran in is shown by its base name (:func:`.report.public_command`).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shlex
import sys
from typing import Any

from ..files import replaced
from .report import leaderboard, one_protocol
from .run import FORMAT, BenchmarkResult

#: The ``format`` of an exploitability estimate's file (written by ``sixtysix exploit``).
EXPLOIT_FORMAT = "sixtysix-exploit"

#: The fields the page reads from an exploitability file.
EXPLOIT_FIELDS = ("target", "gp_per_hand", "gp_ci95", "deals", "steps", "train_seconds",
                  "command")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", help="the folder of benchmark files (sixtysix benchmark "
                        "--out-dir) and exploitability files (sixtysix exploit --json)")
    parser.add_argument("-o", "--output", metavar="PATH",
                        help="write the page here (default: print it)")


def _load(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a JSON file (not UTF-8 text)") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not a JSON file ({e})") from None
    except OSError as e:
        raise ValueError(f"{path}: cannot be read ({e.strerror or e})") from None


def read_files(
    folder: str,
) -> tuple[list[tuple[str, BenchmarkResult]], list[tuple[str, dict]]]:
    """(path, result) of each benchmark file and (path, estimate) of each exploitability
    file among ``folder``'s JSON files; other JSON files are left alone. A file of either
    kind that cannot be read raises ValueError naming it and why."""
    results, exploits = [], []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        data = _load(path)
        kind = data.get("format") if isinstance(data, dict) else None
        try:
            if kind == FORMAT:
                results.append((path, BenchmarkResult.from_dict(data)))
            elif kind == EXPLOIT_FORMAT:
                missing = [k for k in EXPLOIT_FIELDS if k not in data]
                if missing:
                    raise ValueError(f"an exploitability file ({EXPLOIT_FORMAT}) without "
                                     f"{', '.join(missing)}")
                exploits.append((path, data))
        except (TypeError, KeyError, ValueError) as e:
            raise ValueError(f"{path}: {e}") from None
    return results, exploits


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


#: What a file holding a value of the wrong type raises while its rows are made.
_BAD_VALUE = (TypeError, ValueError, KeyError, IndexError, AttributeError)


def _page(results: list[tuple[str, BenchmarkResult]], exploits: list[tuple[str, dict]],
          command: str) -> str:
    """The page; a file with a value of the wrong type (which only making its rows finds)
    is refused by its name."""
    try:
        return leaderboard([r for _, r in results], [e for _, e in exploits], command,
                           files=[p for p, _ in results])
    except _BAD_VALUE as error:
        for path, r in results:  # which file? each alone, with a file known to be good
            try:
                leaderboard([r])
            except _BAD_VALUE as e:
                raise ValueError(f"{path}: a value of the wrong type ({e})") from None
        for path, x in exploits:
            try:
                leaderboard([results[0][1]], [x])
            except _BAD_VALUE as e:
                raise ValueError(f"{path}: a value of the wrong type ({e})") from None
        raise ValueError(str(error)) from error


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
        if not results:
            raise ValueError(
                f"{args.folder}: no benchmark file in it (a JSON file of format {FORMAT}, as "
                f"sixtysix benchmark AGENT --out-dir {args.folder} writes)"
            )
        problem = _same_agent(results)
        if problem:
            raise ValueError(problem)
        one_protocol([r for _, r in results], [p for p, _ in results])
        page = _page(results, exploits, command)
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
