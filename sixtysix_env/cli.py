"""The ``sixtysix`` command: one entry point, one module per subcommand.

Each subcommand lives in its own module that defines ``add_arguments(parser)``
and ``run(args) -> int``; only the module of the command asked for is
imported, so ``sixtysix demo`` needs nothing beyond the core package.

Exit status, the same in every command: 0 done; 2 a usage error, said on
stderr before anything runs (an unknown command, option or agent, an agent
option it does not take, a value out of range, a file that is not there);
1 a failure while running (an agent's illegal move, a file broken mid-run);
130 and 143 stopped by Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings

from .util.version import __version__

#: name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("sixtysix_env.play.demo", "deal a hand and play it out between two agents"),
    "agents": (
        "sixtysix_env.agents.listing",
        "list the agents and shipped policies, with their figures",
    ),
    "eval": ("sixtysix_env.evaluation", "rank agents by paired-deal evaluation"),
    "benchmark": (
        "sixtysix_env.benchmark.cli",
        "rank agents on the fixed benchmark protocol (a ladder of opponents, fixed seeds)",
    ),
    "leaderboard": (
        "sixtysix_env.benchmark.board",
        "the leaderboard page from a folder of benchmark files",
    ),
    "play": ("sixtysix_env.play.terminal", "play a match against the computer in the terminal"),
    "serve": ("sixtysix_env.play.web", "serve a web page to play against the computer"),
    "train": ("sixtysix_training.commands", "train a policy with self-play (needs the [train] extra)"),
    "export": ("sixtysix_training.export", "export a trained model as a numpy policy file (or an ONNX model)"),
    "exploit": (
        "sixtysix_training.exploit",
        "estimate how beatable an agent is: train a best response against it alone",
    ),
    "ensemble": (
        "sixtysix_training.ensemble",
        "merge policy files into one network playing their averaged logits",
    ),
    "plot-curve": (
        "sixtysix_training.common.plot_curve",
        "draw a policy's or run's learning curve (needs the [plot] extra)",
    ),
}

#: The extra a command needs beyond the core, named in the error when it is missing.
EXTRAS = {
    "serve": "play", "train": "train", "export": "train", "exploit": "train", "plot-curve": "plot",
}

#: The top-level modules each extra installs (a missing one means the extra is missing).
EXTRA_MODULES = {
    "play": {"flask", "werkzeug", "waitress"},
    "plot": {"matplotlib"},
    "train": {
        "torch", "stable_baselines3", "sb3_contrib", "yaml", "msgspec", "tensorboard", "tqdm",
        "rich",
    },
}


def _missing_extra(name: str, e: ModuleNotFoundError) -> str | None:
    """The message for a command whose extra is not installed, or None (another cause)."""
    extra = EXTRAS.get(name)
    top = (e.name or "").partition(".")[0]
    if extra is None or top not in EXTRA_MODULES[extra]:
        return None
    return (
        f"sixtysix {name}: needs {top}, from the [{extra}] extra; install it with "
        f'pip install "sixtysix[{extra}]" (in a clone: pip install -e ".[{extra}]")'
    )


def _usage() -> str:
    from .policy.shipped import shipped_names

    lines = ["usage: sixtysix [--version] COMMAND [options]", "", "commands:"]
    for name, (_, text) in COMMANDS.items():
        lines.append(f"  {name:<11} {text}")
    lines.append("")
    shipped = shipped_names()
    if shipped:
        lines.append(
            f"shipped opponents, by name: {', '.join(shipped)} ('sixtysix agents' shows their figures)"
        )
    lines.append("'sixtysix COMMAND --help' describes a command's options.")
    return "\n".join(lines)


def _show_warning(message, category, filename, lineno, line=None) -> str:
    """The package's own warnings as a plain line for a person; others as Python has them."""
    if category.__module__.startswith("sixtysix_env"):
        return f"warning: {message}\n"
    return _PYTHON_FORMAT(message, category, filename, lineno, line)


_PYTHON_FORMAT = warnings.formatwarning


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    warnings.formatwarning = _show_warning
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage())
        return 0
    if argv[0] in ("-V", "--version"):
        print(f"sixtysix {__version__}")
        return 0
    name = argv[0]
    if name not in COMMANDS:
        print(
            f"sixtysix: unknown command {name!r}; commands: {', '.join(COMMANDS)}", file=sys.stderr
        )
        return 2
    try:
        return _run(name, argv)
    except KeyboardInterrupt:  # Ctrl-C while a command starts up: no traceback
        print(f"\nsixtysix {name}: interrupted", file=sys.stderr)
        return 130


def _run(name: str, argv: list[str]) -> int:
    module_name, text = COMMANDS[name]
    # Commands import their extra's libraries at the top or only when they run
    # (so that --help stays fast); either way a missing extra is named.
    try:
        module = importlib.import_module(module_name)
        parser = argparse.ArgumentParser(prog=f"sixtysix {name}", description=text)
        module.add_arguments(parser)
        try:
            args = parser.parse_args(argv[1:])
        except SystemExit as e:  # --help (0) or a bad option (2, said on stderr): returned
            return 0 if e.code is None else e.code if isinstance(e.code, int) else 2
        return int(module.run(args) or 0)
    except ModuleNotFoundError as e:
        message = _missing_extra(name, e)
        if message is None and e.name and f"{module_name}.".startswith(f"{e.name}."):
            message = f"sixtysix {name}: {module_name} is missing; reinstall the package ({e})"
        if message is None:
            raise
        print(message, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
