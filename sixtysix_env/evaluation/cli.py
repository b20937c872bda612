"""``sixtysix eval``: the command line of the evaluation."""

from __future__ import annotations

import argparse
import shlex
import sys
import textwrap

from ..game.rules import PRESETS
from ..util.errors import SixtySixError
from .estimate import estimate_evaluation
from .ray_pool import RayAddressError, check_address, ray_address
from .report import print_table
from .result import EvalResult
from .runner import NOT_STARTED, check_json_path, evaluate, sigterm_as_interrupt, stop_reason


def agent_names_help() -> str:
    """The kinds of agent name a command takes, an example of each (an epilog for --help)."""
    from ..agents.registry import builtin_names
    from ..policy.shipped import shipped_names

    shipped = shipped_names()
    named = (f"{shipped[0]}; all: {', '.join(shipped)}" if shipped
             else "(none installed with this package)")
    return "\n".join([
        "agent names, by kind (an example of each):",
        f"  built in          {', '.join(builtin_names())}",
        "                    with options as NAME:key=value,...: expert:samples=16",
        textwrap.fill(named, width=79, initial_indent="  shipped policy    ",
                      subsequent_indent=" " * 20, break_on_hyphens=False),
        "  policy file       path/to/policy.npz (made by sixtysix export)",
        "  SB3 model         path/to/model.zip: a model saved by model.save",
        "                    (needs the [train] extra)",
        "  your own class    package.module:ClassName (an agent with act(view, rng);",
        "                    options as package.module:ClassName:key=value)",
        "  schnapsen bots    schnapsen:rand, schnapsen:bully, schnapsen:rdeep:num_samples=16,",
        "                    schnapsen:alphabeta, schnapsen:ml:model=PATH, or your Bot as",
        "                    schnapsen:package.module:ClassName ([schnapsen] extra;",
        "                    --rules schnapsen-vu)",
        "'sixtysix agents' lists the names with their figures.",
    ])


EPILOG = """\
examples:
  sixtysix eval random heuristic expert --deals 1000 --workers 2
  sixtysix eval path/to/policy.npz sixtysix-ppo heuristic --matches 200 --json eval.json
  sixtysix eval expert schnapsen:rdeep --rules schnapsen-vu --referee schnapsen --deals 100

The ratings (Bradley-Terry, Elo scale) are anchored as the benchmark's are, at
heuristic = 1500, when heuristic plays; else at random = 1000, else at the
first agent = 1000. The table's title names the anchor."""


def add_agents_argument(parser: argparse.ArgumentParser, epilog: str, nargs: str,
                        help: str) -> None:
    """A command's agent names (the positional ``agents``); its --help ends with the kinds
    of name, then the command's own ``epilog``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = f"{agent_names_help()}\n\n{epilog}"
    parser.add_argument("agents", nargs=nargs, help=help)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_agents_argument(parser, EPILOG, "+",
                        "the agents to rank, two or more (the kinds of name are below)")
    n = parser.add_mutually_exclusive_group()
    n.add_argument("--deals", type=int, help="paired deals per pair, 2 hands each (default 200)")
    n.add_argument("--hands", type=int, help="hands per pair (rounded up to whole paired deals)")
    n.add_argument("--matches", type=int,
                   help="paired match seeds per pair, 2 matches each, to the preset's target")
    parser.add_argument("--rules", default="altmisalti", choices=sorted(PRESETS),
                        help="rule preset (default altmisalti)")
    parser.add_argument("--seed", type=int, default=0, help="evaluation seed (default 0)")
    parser.add_argument(
        "--referee", default="sixtysix", choices=["sixtysix", "schnapsen"],
        help="the engine the games are played in: this project's (default), or the schnapsen "
        "package's SchnapsenGamePlayEngine (--rules schnapsen-vu, paired deals; the "
        "[schnapsen] extra)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    add_address_argument(parser)
    parser.add_argument("--json", metavar="PATH", help="write all figures to this JSON file")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--plain", action="store_true", help="plain-text table (no rich)")


def address_option(text: str) -> str:
    """``--address``'s value, checked as it is parsed (:func:`.ray_pool.check_address`):
    a malformed address or a port outside 1-65535 is a usage error (exit status 2)."""
    try:
        return check_address(text)
    except RayAddressError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_address_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--address", metavar="ADDRESS", type=address_option,
        help="play the deals as Ray tasks: 'auto' (the cluster this machine is in), 'host:port', "
        "'ray://host:port', or 'local' (a Ray started here with --workers CPUs); default the "
        "RAY_ADDRESS environment variable, else local processes (no Ray needed). The figures "
        "do not depend on it",
    )


def _count(args: argparse.Namespace) -> dict[str, int]:
    """``{"deals": N}`` or ``{"matches": N}`` from the options (--hands rounds up to deals)."""
    if args.matches is not None:
        return {"matches": args.matches}
    if args.hands is not None:
        return {"deals": max(1, (args.hands + 1) // 2)}
    return {"deals": args.deals if args.deals is not None else 200}


def _command(args: argparse.Namespace, kw: dict[str, int]) -> str:
    """The command line that reproduces the figures (recorded in the result)."""
    (key, value), = kw.items()
    parts = ["sixtysix", "eval", *args.agents, f"--{key}", str(value),
             "--rules", args.rules, "--seed", str(args.seed), "--workers", str(args.workers)]
    if getattr(args, "address", None):
        parts += ["--address", args.address]
    if getattr(args, "referee", "sixtysix") != "sixtysix":
        parts += ["--referee", args.referee]
    return " ".join(shlex.quote(p) for p in parts)


def _show(res: EvalResult, plain: bool) -> None:
    if plain:
        print(res.table())
    else:
        print_table(res)


def _failed(e: SixtySixError, args: argparse.Namespace) -> int:
    """Show what was measured before the error, and the error. An error before any game
    (an unknown agent, a bad option, a policy file that cannot be read: the evaluation
    attaches a partial result to every error once play starts) is a usage error: 2; one
    while playing is 1."""
    partial = getattr(e, "partial_result", None)
    if partial is None:
        print(f"sixtysix eval: {e}", file=sys.stderr)
        return 2
    if partial is not None and (partial.pairs and any(p.deals for p in partial.pairs)):
        _show(partial, args.plain)
    print(f"sixtysix eval: {e}", file=sys.stderr)
    if args.json and partial is not None:
        print(f"sixtysix eval: what was measured is saved in {args.json}", file=sys.stderr)
    return 1


def _stopped_before_start(args: argparse.Namespace, reason: str) -> int:
    where = f"; {args.json} is left as it was" if args.json else ""
    print(f"sixtysix eval: stopped ({reason}){where}", file=sys.stderr)
    return 143 if reason.startswith("terminated") else 130


def _say_estimate(args: argparse.Namespace, kw: dict[str, int]) -> int | None:
    """Say how long the run will take (on stderr, as ``sixtysix benchmark`` does), from a
    short timing of each pair (:mod:`.estimate`). None to go on, or the exit status of a
    run stopped meanwhile. A request the evaluation refuses is left to it to refuse, with
    its own message; a run on Ray (--address) gets no estimate (the cluster's CPUs are not
    known here)."""
    if args.address or getattr(args, "referee", "sixtysix") != "sixtysix":
        return None
    if args.json:
        try:  # a file that cannot be written is refused before the timing, not after it
            check_json_path(args.json)
        except ValueError:
            return None
    try:
        with sigterm_as_interrupt():
            est = estimate_evaluation(args.agents, rules=args.rules, seed=args.seed,
                                      workers=args.workers, **kw)
    except KeyboardInterrupt as e:  # Ctrl-C or SIGTERM while timing
        return _stopped_before_start(args, f"{stop_reason(e)} {NOT_STARTED}")
    except (SixtySixError, ValueError):
        return None
    print(f"sixtysix eval: {est.describe()}", file=sys.stderr, flush=True)
    return None


def run(args: argparse.Namespace) -> int:
    kw = _count(args)
    try:
        args.address = ray_address(getattr(args, "address", None))
    except RayAddressError as e:
        print(f"sixtysix eval: {e}", file=sys.stderr)
        return 2
    stopped = _say_estimate(args, kw)
    if stopped is not None:
        return stopped
    try:
        res = evaluate(args.agents, rules=args.rules, seed=args.seed, workers=args.workers,
                       progress=not args.no_progress, json_path=args.json,
                       address=getattr(args, "address", None),
                       command=_command(args, kw),
                       referee=getattr(args, "referee", "sixtysix"), **kw)
    except RayAddressError as e:  # nothing played: a usage error
        print(f"sixtysix eval: {e}", file=sys.stderr)
        return 2
    except SixtySixError as e:
        return _failed(e, args)
    except ValueError as e:
        print(f"sixtysix eval: {e}", file=sys.stderr)
        return 2
    if res.stopped and res.stopped.endswith(NOT_STARTED):
        return _stopped_before_start(args, res.stopped)
    _show(res, args.plain)
    if args.json:
        print(f"figures saved to {args.json}")
    if not res.complete:
        print(f"sixtysix eval: stopped early ({res.stopped}); partial figures shown",
              file=sys.stderr)
        return 143 if res.stopped and res.stopped.startswith("terminated") else 130
    return 0
