"""The ``sixtysix`` command: one entry point, one module per subcommand.

Each subcommand lives in its own module that defines ``add_arguments(parser)``
and ``run(args) -> int``; only the module of the command asked for is
imported, so ``sixtysix demo`` needs nothing beyond the core package.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("sixtysix_env.demo", "deal a hand and play it out between two agents"),
    "eval": ("sixtysix_env.evaluation", "rank agents by paired-deal evaluation"),
    "play": ("sixtysix_env.play.terminal", "play a match against the computer in the terminal"),
    "serve": ("sixtysix_env.play.web", "serve a web page to play against the computer"),
    "train": ("training.train", "train a policy with self-play (needs the [train] extra)"),
    "export": ("training.export", "export a trained model as a numpy policy file"),
}


def _usage() -> str:
    lines = ["usage: sixtysix COMMAND [options]", "", "commands:"]
    for name, (_, text) in COMMANDS.items():
        lines.append(f"  {name:<8} {text}")
    lines.append("")
    lines.append("'sixtysix COMMAND --help' describes a command's options.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage())
        return 0
    name = argv[0]
    if name not in COMMANDS:
        print(f"sixtysix: unknown command {name!r}; commands: {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    try:
        return _run(name, argv)
    except KeyboardInterrupt:  # Ctrl-C while a command starts up: no traceback
        print(f"\nsixtysix {name}: interrupted", file=sys.stderr)
        return 130


def _run(name: str, argv: list[str]) -> int:
    module_name, text = COMMANDS[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        print(
            f"sixtysix {name}: cannot load {module_name} ({e}); "
            "is the extra it needs installed (see the README)?",
            file=sys.stderr,
        )
        return 2
    parser = argparse.ArgumentParser(prog=f"sixtysix {name}", description=text)
    module.add_arguments(parser)
    args = parser.parse_args(argv[1:])
    return int(module.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
