"""``sixtysix leaderboard``: the leaderboard page from a folder of benchmark and exploit files."""

from __future__ import annotations

import argparse
import glob
import json
import os
import shlex
import sys

from ..files import replaced
from .report import leaderboard
from .run import FORMAT, BenchmarkResult

#: The ``format`` of an exploitability estimate's file (written by ``sixtysix exploit``).
EXPLOIT_FORMAT = "sixtysix-exploit"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", help="the folder of benchmark files (sixtysix benchmark "
                        "--out-dir) and exploitability files (sixtysix exploit --json)")
    parser.add_argument("-o", "--output", metavar="PATH",
                        help="write the page here (default: print it)")


def read_folder(folder: str) -> tuple[list[BenchmarkResult], list[dict]]:
    """The benchmark results and exploitability estimates among ``folder``'s JSON files."""
    results, exploits = [], []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path, encoding="utf-8") as f:
            try:
                data = json.load(f)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}: not a JSON file ({e})") from None
        kind = data.get("format") if isinstance(data, dict) else None
        try:
            if kind == FORMAT:
                results.append(BenchmarkResult.from_dict(data))
            elif kind == EXPLOIT_FORMAT:
                exploits.append(data)
        except (TypeError, KeyError, ValueError) as e:
            raise ValueError(f"{path}: {e}") from None
    return results, exploits


def run(args: argparse.Namespace) -> int:
    if not os.path.isdir(args.folder):
        print(f"sixtysix leaderboard: {args.folder!r} is not a folder", file=sys.stderr)
        return 2
    command = " ".join(shlex.quote(p) for p in
                       ["sixtysix", "leaderboard", args.folder,
                        *(["-o", args.output] if args.output else [])])
    try:
        results, exploits = read_folder(args.folder)
        page = leaderboard(results, exploits, command)
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
