"""The benchmark's tables: a Markdown row per agent, and the leaderboard page."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .protocol import Protocol, get_protocol
from .run import BenchmarkResult


def _gp(x: float | None, ci: list[float] | None) -> str:
    if x is None or ci is None:
        return "–"
    return f"{x:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]"


def _rate(x: float | None, ci: list[float] | None) -> str:
    if x is None or ci is None:
        return "–"
    return f"{100 * x:.1f}% [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]"


def _elo(r: BenchmarkResult) -> str:
    return "–" if r.elo is None else f"{r.elo:.0f}"


def _ms(r: BenchmarkResult) -> str:
    t = r.timing
    return f"{t['median_ms']:.2f}" if t.get("median_ms") is not None else "–"


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def hands_header(protocol: Protocol) -> list[str]:
    return [_row(["agent", "Elo", *(f"vs {r}" for r in protocol.ladder), "ms/decision"]),
            _row(["---", "---:", *("---:" for _ in protocol.ladder), "---:"])]


def hands_row(r: BenchmarkResult, protocol: Protocol) -> str:
    """The agent's Markdown row: Elo, game points per hand against each rung, ms per decision."""
    by = {o.name: o for o in r.opponents}
    cells = [f"`{r.agent}`", _elo(r)]
    for rung in protocol.ladder:
        o = by.get(rung)
        cells.append("(itself)" if o is None else _gp(o.gp_per_hand, o.gp_ci95))
    cells.append(_ms(r))
    return _row(cells)


def matches_row(r: BenchmarkResult, protocol: Protocol) -> str:
    by = {o.name: o for o in r.opponents}
    cells = [f"`{r.agent}`"]
    for rung in protocol.ladder:
        o = by.get(rung)
        cells.append("(itself)" if o is None else _rate(o.match_rate, o.match_ci95))
    return _row(cells)


def matches_table(ranked: Sequence[BenchmarkResult], protocol: Protocol) -> list[str]:
    return [_row(["agent", *(f"vs {r}" for r in protocol.ladder)]),
            _row(["---", *("---:" for _ in protocol.ladder)]),
            *(matches_row(r, protocol) for r in ranked)]


def markdown_rows(results: Sequence[BenchmarkResult]) -> str:
    """The hand table's header and one row per result (what ``sixtysix benchmark`` prints)."""
    protocol = get_protocol(results[0].protocol, quick=results[0].quick)
    return "\n".join([*hands_header(protocol), *(hands_row(r, protocol) for r in results)])


def _exploit_rows(
    exploits: Sequence[dict[str, Any]], results: Sequence[BenchmarkResult]
) -> list[str]:
    if not exploits:
        return ["No exploitability estimate is in the folder yet (`sixtysix exploit TARGET`)."]
    lines = [
        _row(["target", "best response's gp/hand vs target (95% CI)", "paired deals",
              "started from", "training steps", "training wall time",
              "the ladder's best against the target (gp/hand, 95% CI)"]),
        _row(["---", "---:", "---:", "---", "---:", "---:", "---:"]),
    ]
    by_agent = {r.agent: r for r in results}
    for e in sorted(exploits, key=lambda e: (e["target"], e["command"])):
        lines.append(_row([
            f"`{e['target']}`", _gp(e["gp_per_hand"], e["gp_ci95"]), f"{e['deals']:,}",
            _start(e.get("start")), f"{e['steps']:,}", f"{e['train_seconds'] / 60:.0f} min",
            _ladder_best(by_agent.get(e["target"])),
        ]))
    lines += ["", "The commands:", ""]
    lines += [f"    {e['command']}" for e in sorted(exploits, key=lambda e: e["target"])]
    return lines


def _ladder_best(target: BenchmarkResult | None) -> str:
    """The rung that wins most against ``target``, from the target's own benchmark: any
    agent's winnings against a target are a lower bound on its exploitability too."""
    if target is None or not target.opponents:
        return "–"
    o = min(target.opponents, key=lambda o: o.gp_per_hand if o.gp_per_hand is not None else 9)
    if o.gp_per_hand is None or o.gp_ci95 is None:
        return "–"
    return f"`{o.name}` {_gp(-o.gp_per_hand, [-o.gp_ci95[1], -o.gp_ci95[0]])}"


def _start(start: dict[str, Any] | None) -> str:
    if not start:
        return "–"
    if start.get("from") == "init":
        plain = ", played once" if start.get("symmetry_dropped") else ""
        return f"the weights of `{start['agent']}`{plain}"
    return f"a clone of `{start['agent']}`"


def leaderboard(
    results: Sequence[BenchmarkResult],
    exploits: Sequence[dict[str, Any]] = (),
    command: str = "",
) -> str:
    """The leaderboard page: every benchmarked agent by Elo, its hands, matches and files."""
    if not results:
        raise ValueError("no benchmark results to put on a leaderboard")
    names = {(r.protocol, r.quick) for r in results}
    if len(names) > 1:
        raise ValueError(
            f"the results come from different protocols {sorted(names)}; a leaderboard takes one"
        )
    protocol = get_protocol(results[0].protocol, quick=results[0].quick)
    ranked = sorted(results, key=lambda r: (-(r.elo if r.elo is not None else -1e9), r.agent))
    quick = " (quick: not figures to cite)" if protocol.quick else ""
    out = [
        f"# Leaderboard: {protocol.name}{quick}",
        "",
        "<!-- Generated; do not edit by hand. -->",
        f"Generated by `{command}` from the benchmark files beside it. Each file was made "
        "by the command it records (below); the same command gives the same figures on any "
        "machine, with any number of workers. Times per decision depend on the machine.",
        "",
        f"Protocol {protocol.describe()}.",
        "",
        "## Hands: game points per hand against each rung, from the row's side (95% CI)",
        "",
        *hands_header(protocol),
        *(hands_row(r, protocol) for r in ranked),
        "",
        "Elo: Bradley-Terry on hands won (a tie counts half), the ladder fitted to its own "
        f"round robin with {protocol.anchor} = {protocol.anchor_elo:g}; an agent outside the "
        "ladder is fitted against the ladder's ratings, which stay fixed. ms/decision: the "
        f"median against {protocol.anchor} (against random for {protocol.anchor}).",
        "",
        "## Matches to 7: match win rate against each rung (95% Wilson interval)",
        "",
        *matches_table(ranked, protocol),
        "",
        "## Exploitability: how much the target can be beaten by",
        "",
        "What an agent trained against the target alone wins against it (`sixtysix exploit`, "
        "on fresh paired deals), beside what the best rung of the ladder wins against it: "
        "each is a lower bound on the target's exploitability in game points per hand (a "
        "longer budget, another recipe or a search may find more).",
        "",
        *_exploit_rows(exploits, results),
        "",
        *_file_rows(ranked),
    ]
    return "\n".join(out) + "\n"


def _file_rows(ranked: Sequence[BenchmarkResult]) -> list[str]:
    """The section on where each figure comes from: files, versions, machines, commands."""
    out = [
        "## The files",
        "",
        _row(["agent", "file (SHA-256, first 16)", "package", "machine", "workers", "wall time"]),
        _row(["---", "---", "---", "---", "---:", "---:"]),
    ]
    for r in ranked:
        f = r.agent_file
        where = "built in" if f is None else f"`{f['path']}` ({f['sha256'][:16]})"
        out.append(_row([f"`{r.agent}`", where, r.package_version, r.machine, str(r.workers),
                         f"{r.wall_seconds / 60:.1f} min"]))
    commands = sorted({r.command for r in ranked if r.command})
    if commands:
        out += ["", "Made by:", "", *(f"    {c}" for c in commands)]
    return out
