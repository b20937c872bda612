"""``sixtysix benchmark``: agents against the protocol's ladder; a JSON file and a row each."""

from __future__ import annotations

import argparse
import os
import shlex
import sys

from ..agents import make_agent
from ..evaluation.cli import add_address_argument, add_agents_argument
from ..evaluation.ray_pool import RayAddressError, ray_address
from ..evaluation.runner import check_json_path, sigterm_as_interrupt, stop_reason
from ..ranking.standings import (
    BEGIN,
    PAGES,
    BenchmarkFileError,
    leaderboard_page,
    shipped_table,
    write_tables,
)
from ..util.errors import SixtySixError
from ..util.files import write_json
from . import board
from .protocol import DEFAULT_PROTOCOL, PROTOCOLS, Protocol, get_protocol
from .report import markdown_rows
from .run import (
    BenchmarkResult,
    BenchmarkStopped,
    Opponent,
    PairStore,
    benchmark,
    check_replaceable,
    estimate,
    ladder_file_name,
    pairs_to_play,
    result_file_name,
    time_pairs,
)

EPILOG = """\
how long it takes:
  A full run of a fast agent takes a few minutes with one worker (2 min 22 s
  for sixtysix-ppo-v4 on a quiet 2-core machine), --quick seconds (5 s for
  random, 7 s for sixtysix-ppo-v4), with numba installed: the search bots'
  solver and rollouts run compiled. Without numba, or for a slow agent, the
  rounds against expert and guided take tens of minutes (about 20 on 2 cores).
  --workers N shares the deals over N processes. Before it starts, the command
  says on stderr how long it expects to take, from the protocol's counts and a
  short timing (the first paired deal of each pair it will play).

examples:
  sixtysix benchmark path/to/policy.npz --quick
  sixtysix benchmark path/to/policy.npz --out-dir bench --workers 2
  sixtysix leaderboard bench -o leaderboard.md
  sixtysix benchmark path/to/policy.npz --submit --workers 2   # in a clone's root"""

#: Where ``--submit`` keeps a protocol's files, from a clone's root.
LEADERBOARD_FOLDERS = os.path.join("docs", "benchmarks")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_agents_argument(parser, EPILOG, "*", "agents to benchmark (the kinds of name are below)")
    parser.add_argument("--ladder", action="store_true",
                        help="benchmark every rung of the ladder too (its round robin; "
                        "writes PROTOCOL-ladder.json, the ladder's ratings, into --out-dir)")
    parser.add_argument("--protocol", default=DEFAULT_PROTOCOL, choices=sorted(PROTOCOLS),
                        help=f"the protocol (default {DEFAULT_PROTOCOL})")
    parser.add_argument("--quick", action="store_true",
                        help="the first few deals of the protocol only (seconds with numba, "
                        "minutes without): a smoke test, not figures to cite")
    parser.add_argument("--json", metavar="PATH", help="write the (one) agent's figures here")
    parser.add_argument("--out-dir", metavar="DIR",
                        help="write each agent's figures to DIR/NAME.json (DIR/NAME-quick.json "
                        "with --quick), and keep the pairs played in DIR/pairs/ (a stopped "
                        "run resumes from them); a file there of another agent, protocol or "
                        "mode is never written over")
    parser.add_argument("--submit", action="store_true",
                        help="put the agents on this clone's leaderboard (run it in the "
                        "repository's root): their figures and pairs into "
                        "docs/benchmarks/PROTOCOL, as --out-dir writes them, then the "
                        "leaderboard's page (docs/leaderboard.md; docs/leaderboard-PROTOCOL.md "
                        "for another protocol) and the standings of README.md and "
                        "docs/benchmark.md: the clone's tests stay green")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    add_address_argument(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def _command(args: argparse.Namespace) -> str:
    parts = ["sixtysix", "benchmark", *args.agents]
    if args.ladder:
        parts.append("--ladder")
    if args.protocol != DEFAULT_PROTOCOL:
        parts += ["--protocol", args.protocol]
    if args.quick:
        parts.append("--quick")
    if args.out_dir:
        parts += ["--out-dir", args.out_dir]
    if args.json:
        parts += ["--json", args.json]
    if args.submit:
        parts.append("--submit")
    parts += ["--workers", str(args.workers)]
    if args.address:
        parts += ["--address", args.address]
    return " ".join(shlex.quote(p) for p in parts)


def _check(args: argparse.Namespace, agents: list[str]) -> str | None:
    """What is wrong with the options (None: nothing)."""
    if not agents:
        return "name an agent to benchmark, or give --ladder"
    if args.workers < 1:
        return f"--workers must be >= 1, got {args.workers}"
    if args.json and len(agents) > 1:
        return f"--json takes one agent's figures; for {len(agents)} agents give --out-dir"
    if args.ladder and not args.out_dir:
        return "--ladder writes one file per rung: give --out-dir"
    if args.json:
        try:
            check_json_path(args.json)
        except ValueError as e:
            return str(e)
    if args.out_dir and os.path.exists(args.out_dir) and not os.path.isdir(args.out_dir):
        return f"--out-dir {args.out_dir!r} is a file, not a folder"
    return None


def _print_pair(agent: str, rung: str, o: Opponent, seconds: float) -> None:
    gp = "–" if o.gp_per_hand is None else f"{o.gp_per_hand:+.3f}"
    rate = "–" if o.match_rate is None else f"{100 * o.match_rate:.1f}%"
    print(f"  {agent} vs {rung}: {gp} gp/hand over {o.deals} paired deals, "
          f"{rate} of {o.matches} matches ({seconds:.0f} s so far)", flush=True)


def _write_ladder(path: str, results: list[BenchmarkResult], command: str) -> None:
    r = results[0]
    data = {"protocol": r.protocol, "quick": r.quick, "ratings": r.ladder_elo,
            "command": command}
    write_json(path, data)


def run(args: argparse.Namespace) -> int:
    protocol = get_protocol(args.protocol, quick=args.quick)
    agents = list(dict.fromkeys([*(protocol.ladder if args.ladder else ()), *args.agents]))
    problem, address = _usage_problem(args, agents)
    if problem is None and args.submit:
        problem = submit_problem(args, protocol)
    if problem is not None:
        print(f"sixtysix benchmark: {problem}", file=sys.stderr)
        return 2
    command = _command(args)
    if args.submit:
        args.out_dir = os.path.join(LEADERBOARD_FOLDERS, protocol.name)
    try:
        cache = _prepare(args, protocol, agents)
    except BenchmarkFileError as e:
        print(f"sixtysix benchmark: {e}", file=sys.stderr)
        return 2
    except SixtySixError as e:  # an agent that fails on its first deal
        print(f"sixtysix benchmark: {e}", file=sys.stderr)
        return 1

    def save(result: BenchmarkResult) -> None:
        if not (args.out_dir or args.json):
            return
        path = _result_path(args, protocol, result.agent)
        check_replaceable(path, protocol, result.agent)  # again: the folder may have changed
        result.save_json(path)
        print(f"  {result.agent}: figures saved to {path}", flush=True)

    try:
        with sigterm_as_interrupt():  # between pairs too: SIGTERM stops as Ctrl-C does
            results = benchmark(agents, protocol, workers=args.workers, address=address,
                                progress=not args.no_progress, cache=cache,
                                on_pair=_print_pair, on_result=save, command=command)
    except KeyboardInterrupt as e:  # BenchmarkStopped (inside a pair) or between pairs
        why = str(e) if isinstance(e, BenchmarkStopped) else stop_reason(e)
        print(f"sixtysix benchmark: stopped ({why}); the pairs played in full are kept"
              + (f" in {args.out_dir}/pairs" if args.out_dir else ""), file=sys.stderr)
        return 143 if why.startswith("terminated") else 130
    except RayAddressError as e:
        print(f"sixtysix benchmark: {e}", file=sys.stderr)
        return 2
    except BenchmarkFileError as e:  # a file put where a result or a pair goes as it played
        kept = f" (the pairs played in full are kept in {args.out_dir}/pairs)"
        print(f"sixtysix benchmark: {e}{kept if args.out_dir else ''}", file=sys.stderr)
        return 2
    except SixtySixError as e:
        print(f"sixtysix benchmark: {e}", file=sys.stderr)
        return 1
    if args.ladder and len(results[0].ladder_elo) == len(protocol.ladder):
        path = os.path.join(args.out_dir, ladder_file_name(protocol))
        try:
            check_replaceable(path, protocol)
        except BenchmarkFileError as e:
            print(f"sixtysix benchmark: {e}", file=sys.stderr)
            return 2
        _write_ladder(path, results, command)
        print(f"  the ladder's ratings saved to {path}")
    _print_table(protocol, results)
    return publish(protocol) if args.submit else 0


def submit_problem(args: argparse.Namespace, protocol: Protocol) -> str | None:
    """What keeps ``--submit`` from running here (None: nothing): other outputs named, a
    ``--quick`` run, or a current folder that is not a clone's root (the files it writes
    are named)."""
    if args.out_dir or args.json:
        return ("--submit writes into docs/benchmarks/PROTOCOL itself: leave out --out-dir "
                "and --json")
    if args.quick:
        return ("--submit puts full runs on the leaderboard (a --quick result is not a figure "
                "to rank by): leave out --quick, or give --out-dir for a first look")
    folder = os.path.join(LEADERBOARD_FOLDERS, protocol.name)
    missing = [] if os.path.isdir(folder) else [f"the folder {folder}"]
    for page in PAGES:
        try:
            with open(page, encoding="utf-8") as f:
                if BEGIN not in f.read():
                    missing.append(f"{page} with its standings block")
        except OSError:
            missing.append(page)
    if missing:
        return (f"--submit runs in the root of a clone of the repository, and writes "
                f"{folder}, {leaderboard_page(protocol.name)}, {' and '.join(PAGES)}: "
                f"{', '.join(missing)} not found in {os.getcwd()}")
    return None


def publish(protocol: Protocol) -> int:
    """``--submit``'s last steps, once the figures and pairs are in the protocol's folder:
    the leaderboard's page made from the folder (as ``sixtysix leaderboard`` makes it), and
    the standings written into the README and ``docs/benchmark.md``."""
    folder = os.path.join(LEADERBOARD_FOLDERS, protocol.name)
    page = leaderboard_page(protocol.name)
    if board.run(argparse.Namespace(folder=folder, output=page)) != 0:
        print(f"sixtysix benchmark: the figures are in {folder}; the page {page} was not "
              "written (above)", file=sys.stderr)
        return 2
    try:
        changed = write_tables(PAGES, shipped_table(folder=LEADERBOARD_FOLDERS))
    except ValueError as e:  # BenchmarkFileError too
        print(f"sixtysix benchmark: the standings were not written: {e}", file=sys.stderr)
        return 2
    print(f"the standings are in {' and '.join(PAGES)}"
          + ("" if changed else " (unchanged)"))
    return 0


def _usage_problem(args: argparse.Namespace, agents: list[str]) -> tuple[str | None, str | None]:
    """(what is wrong with the options, the agents' names or the Ray address, or None;
    the Ray address to play on, or None)."""
    problem = _check(args, agents)
    address = None
    if problem is None:
        try:
            address = ray_address(args.address)
        except RayAddressError as e:
            problem = str(e)
    if problem is None:
        problem = _unknown_agent(args.agents)
    return problem, address


def _prepare(args: argparse.Namespace, protocol: Protocol, agents: list[str]) -> PairStore | None:
    """Before anything is played: refuse what it would write over, open the store of pairs
    it would reuse (with --out-dir; else None), and say what it will play and how long."""
    cache = None
    _check_outputs(args, protocol, agents)
    if args.out_dir:
        os.makedirs(args.out_dir, exist_ok=True)
        cache = PairStore(os.path.join(args.out_dir, "pairs"), protocol)
    print(f"sixtysix benchmark: {protocol.describe()}", flush=True)
    print(f"sixtysix benchmark: {_estimate(agents, protocol, args.workers, cache)}",
          file=sys.stderr, flush=True)
    return cache


def _print_table(protocol: Protocol, results: list[BenchmarkResult]) -> None:
    """The agents' figures as Markdown rows, and what the columns are."""
    print()
    print(markdown_rows(results))
    print(f"\nElo: {protocol.anchor} = {protocol.anchor_elo:g}, the ladder's scale "
          "(Bradley-Terry on hands won, a tie counts half); ms/decision: the median against "
          f"{protocol.anchor}")


def _result_path(args: argparse.Namespace, protocol: Protocol, agent: str) -> str:
    return args.json or os.path.join(args.out_dir, result_file_name(agent, protocol))


def _check_outputs(args: argparse.Namespace, protocol: Protocol, agents: list[str]) -> None:
    """Refuse (:class:`BenchmarkFileError`), before anything is played, a run that would
    write over a file of another agent, protocol or mode, or write two agents' figures to
    one file."""
    if not (args.out_dir or args.json):
        return
    by_path: dict[str, list[str]] = {}
    for agent in agents:
        path = os.path.normpath(_result_path(args, protocol, agent))
        by_path.setdefault(path, []).append(agent)
    for path, specs in by_path.items():
        if len(specs) > 1:
            raise BenchmarkFileError(
                f"{' and '.join(map(repr, specs))} would write their figures to one file, "
                f"{path}: benchmark them into different --out-dir folders (or copy a policy "
                "file to another name first)")
        check_replaceable(path, protocol, specs[0])
    if args.ladder:
        check_replaceable(os.path.join(args.out_dir, ladder_file_name(protocol)), protocol)


def _unknown_agent(agents: list[str]) -> str | None:
    """What is wrong with an agent to benchmark (an unknown name, a bad option, a
    policy file that cannot be read), or None: said before anything starts."""
    for spec in agents:
        try:
            make_agent(spec)
        except SixtySixError as e:  # AgentSpecError, PolicyFileError
            return str(e)
    return None


def _estimate(agents: list[str], protocol: Protocol, workers: int,
              cache: PairStore | None) -> str:
    """The line that says how long the run will take (from a short timing of each pair)."""
    every = pairs_to_play(agents, protocol)
    pairs = [p for p in every if cache is None or p not in cache]
    timed, ms, took = time_pairs(pairs, protocol)
    return estimate(timed, protocol, ms, agents=agents, workers=workers,
                    kept=len(every) - len(pairs), timing_seconds=took).describe()
