"""``sixtysix agents``: every name :func:`~sixtysix_env.agents.make_agent` accepts, with the
built-in agents' options and the shipped policies' figures."""

from __future__ import annotations

import argparse
import inspect
import textwrap

from ..shipped import figure, policy_summary, shipped_policies
from . import registry


def describe_agents() -> str:
    """Every name :func:`~sixtysix_env.agents.make_agent` accepts, with options or figures."""
    pad = " " * 17
    lines = ["built-in agents (NAME, or NAME:key=value,... with options):"]
    for name in registry.builtin_names():
        factory = registry.factory_of(name)
        doc = (inspect.getdoc(factory) or "").split("\n")[0]
        lines.append(f"  {name:<14} {doc}")
        _, opts = registry.agent_options(factory)
        if opts:
            lines.extend(textwrap.wrap(opts, 96, initial_indent=pad, subsequent_indent=pad + "  "))
    shipped = shipped_policies()
    width = max([14, *map(len, shipped)])
    lines.append("")
    lines.append(
        "shipped policies (game points per hand measured at export, paired deals, argmax):"
    )
    if not shipped:
        lines.append("  (none in this installation)")
    for name, sp in shipped.items():
        s = policy_summary(sp.path)
        steps = f"{s['steps']:,} training steps" if s["steps"] else "training steps unknown"
        lines.append(
            f"  {name:<{width}} {s['rules']} rules, {steps}; option deterministic=True|False"
        )
        for opp, f in s["against"].items():
            lines.append(f"{pad}vs {opp:<10} {figure(f)}")
        lines.append(f"{pad}file: {sp.path}")
        if sp.card:
            lines.append(f"{pad}card: {sp.card}")
    lines.append("")
    lines.append("or the path of any policy file ending in .npz (sixtysix export writes them).")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--paths", action="store_true", help="print only the shipped policies' file paths"
    )


def run(args: argparse.Namespace) -> int:
    if args.paths:
        for sp in shipped_policies().values():
            print(sp.path)
        return 0
    print(describe_agents())
    return 0
