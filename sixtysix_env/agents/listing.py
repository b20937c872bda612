"""``sixtysix agents``: every name :func:`~sixtysix_env.agents.make_agent` accepts, ranked by
the leaderboard (its Elo, its figure against ``expert`` and its time per decision, from the
leaderboard's own files: :mod:`sixtysix_env.ranking.standings`), with the built-in agents' options
and the shipped policies' figures measured at export."""

from __future__ import annotations

import argparse
import inspect
import textwrap

from ..game.rules import RuleConfig
from ..policy.shipped import figure, policy_summary, shipped_policies, trained_preset
from ..ranking.standings import (
    DEFAULT_PROTOCOL,
    leaderboard_page,
    ranked_protocols,
    standings,
    strongest,
)
from . import registry


def describe_standings(protocol: str = DEFAULT_PROTOCOL) -> list[str]:
    """The leaderboard's ranking of every agent name, best first, then those not on it
    (for the default protocol: the others rank a few agents under another preset)."""
    rows = standings(protocol)
    if not rows:
        return [f"ranking: no {protocol} leaderboard files in this installation"]
    networks = list(shipped_policies())
    best_net = strongest(networks, protocol)
    width = max(14, *(len(s.agent) for s in rows))
    lines = [
        f"ranking ({protocol} leaderboard, {leaderboard_page(protocol)}): Elo with heuristic = "
        "1500,",
        "game points per hand against expert (95% interval), median ms per decision on the",
        "machine that ran the benchmark:",
        f"  {'#':>2} {'agent':<{width}} {'Elo':>5}  {'vs expert':<25} {'ms/decision':>11}",
    ]
    for i, s in enumerate(rows, 1):
        f = s.vs("expert")
        vs = "(itself)" if s.agent == "expert" else (
            f"{f[0]:+.3f} [{f[1]:+.3f}, {f[2]:+.3f}]" if f else "")
        ms = "" if s.median_ms is None else f"{s.median_ms:.2f}"
        note = "  strongest network" if best_net is not None and s.agent == best_net.agent else ""
        lines.append(f"  {i:>2} {s.agent:<{width}} {s.elo:>5.0f}  {vs:<25} {ms:>11}{note}")
    ranked = {s.agent for s in rows}
    home_rules = RuleConfig().name  # the default protocol's; the others rank a few agents
    missing = [n for n in registry.agent_names() if n not in ranked
               and trained_preset(n) in (None, home_rules)] if protocol == DEFAULT_PROTOCOL else []
    if missing:
        lines.append(f"  not on the leaderboard yet: {', '.join(missing)}")
    return lines


def describe_agents() -> str:
    """Every name :func:`~sixtysix_env.agents.make_agent` accepts, with options or figures."""
    pad = " " * 17
    lines = [line for protocol in ranked_protocols()
             for line in (*describe_standings(protocol), "")] or [*describe_standings(), ""]
    lines.append("built-in agents (NAME, or NAME:key=value,... with options):")
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
        if s["started_from"]:
            steps += f" from {s['started_from']}"
        rules = f"{s['rules']} rules" + (", whole matches" if s["match_play"] else "")
        lines.append(f"  {name:<{width}} {rules}, {steps}; option deterministic=True|False")
        for opp, f in s["against"].items():
            lines.append(f"{pad}vs {opp:<10} {figure(f)}")
        lines.append(f"{pad}file: {sp.path}")
        if sp.card:
            lines.append(f"{pad}card: {sp.card}")
    lines.append("")
    lines.append(
        "or the path of a policy file ending in .npz (sixtysix export writes them), of a "
        "Stable-Baselines3 model ending in .zip, or an agent class of your own as "
        "package.module:ClassName (docs/own-agent.md)."
    )
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
