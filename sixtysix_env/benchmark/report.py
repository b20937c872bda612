"""The benchmark's tables: a Markdown row per agent, and the leaderboard page.

What they publish names no place on the machine a file was made on: an agent's
file and a recorded command's paths outside the folder it ran in appear by their
base names (:func:`public_command`). Every string from a file reaches the page
through :func:`~sixtysix_env.ranking.standings.markdown_cell` (a recorded command through
:func:`~sixtysix_env.ranking.standings.markdown_code_line`): shown as it is, never as HTML,
a link or the end of a cell.
"""

from __future__ import annotations

import ntpath
import os
import re
import shlex
from collections.abc import Sequence
from typing import Any

from ..game.rules import make_rules
from ..ranking.standings import markdown_cell, markdown_code_line
from .protocol import Protocol, get_protocol
from .run import BenchmarkResult, check_protocol, recorded_policy

#: Options of the commands whose value is a machine's address, not a file: left out of
#: a published command (the figures do not depend on them).
_MACHINE_OPTIONS = ("--address",)

#: A path outside the folder a command ran in: absolute, in a home folder (~), or
#: climbing out of it (..).
_OUTSIDE = re.compile(r"^[/~\\]|(^|[/\\])\.\.([/\\]|$)")


def public_path(path: str) -> str:
    """``path`` as a published page shows it: a path outside the folder the command ran in
    (absolute, ``~``, ``..``) by its base name, which names no place on the machine; a path
    below that folder as it is."""
    if not _OUTSIDE.search(path):
        return path
    return ntpath.basename(path.rstrip("/\\")) or path


def public_name(spec: str) -> str:
    """An agent spec as a published page shows it: a file's path by :func:`public_path`, its
    options (``path.npz:key=value``, ``expert:prior=/x/y.npz``) kept."""
    return re.sub(r"[^:=,]+", lambda m: public_path(m.group(0)), spec)


def public_command(command: str) -> str:
    """A recorded command as a published page shows it: every path outside the folder it
    ran in by its base name (:func:`public_path`), a Ray ``--address`` left out."""
    try:
        parts = shlex.split(command)
    except ValueError:  # unbalanced quotes: word by word
        parts = command.split()
    out: list[str] = []
    skip = False
    for part in parts:
        if skip:
            skip = False
            continue
        option, eq, _ = part.partition("=")
        if option in _MACHINE_OPTIONS:
            skip = not eq
            continue
        out.append(public_name(part))
    return " ".join(shlex.quote(p) for p in out)


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


def _agent(spec: str) -> str:
    """An agent's cell: its public name (:func:`public_name`) in a code span, escaped."""
    return markdown_cell(public_name(spec), code=True)


def _vs(protocol: Protocol) -> list[str]:
    return [markdown_cell(f"vs {r}") for r in protocol.ladder]


def hands_header(protocol: Protocol) -> list[str]:
    return [_row(["agent", "trained for", "Elo", *_vs(protocol), "ms/decision"]),
            _row(["---", "---", "---:", *("---:" for _ in protocol.ladder), "---:"])]


def _trained_for(r: BenchmarkResult) -> str:
    """The preset a network was trained for (from its file's metadata), followed by
    "(matches)" where it was trained on whole matches; "–" for the rest."""
    summary = recorded_policy(r.agent_file)
    if summary is None or summary.get("rules") is None:
        return "–"
    matches = " (matches)" if summary.get("match_play") else ""
    return markdown_cell(summary["rules"], code=True) + matches


def hands_row(r: BenchmarkResult, protocol: Protocol) -> str:
    """The agent's Markdown row: the preset it was trained for, Elo, game points per hand
    against each rung, ms per decision."""
    by = {o.name: o for o in r.opponents}
    cells = [_agent(r.agent), _trained_for(r), _elo(r)]
    for rung in protocol.ladder:
        o = by.get(rung)
        cells.append("(itself)" if o is None else _gp(o.gp_per_hand, o.gp_ci95))
    cells.append(_ms(r))
    return _row(cells)


def matches_row(r: BenchmarkResult, protocol: Protocol) -> str:
    by = {o.name: o for o in r.opponents}
    cells = [_agent(r.agent)]
    for rung in protocol.ladder:
        o = by.get(rung)
        cells.append("(itself)" if o is None else _rate(o.match_rate, o.match_ci95))
    return _row(cells)


def matches_table(ranked: Sequence[BenchmarkResult], protocol: Protocol) -> list[str]:
    return [_row(["agent", *_vs(protocol)]),
            _row(["---", *("---:" for _ in protocol.ladder)]),
            *(matches_row(r, protocol) for r in ranked)]


def markdown_rows(results: Sequence[BenchmarkResult]) -> str:
    """The hand table's header and one row per result (what ``sixtysix benchmark`` prints)."""
    protocol = get_protocol(results[0].protocol, quick=results[0].quick)
    return "\n".join([*hands_header(protocol), *(hands_row(r, protocol) for r in results)])


#: The paragraph above the exploitability table.
_EXPLOIT_INTRO = (
    "What an agent trained against the target alone wins against it (`sixtysix exploit`, "
    "on fresh paired deals), what a local best response wins (`sixtysix exploit TARGET "
    "--method lbr`: a search that reads the target's cards from the target's own policy "
    "and lets the target play its own moves in its rollouts), and what the best rung of "
    "the ladder wins against it: each is a lower bound on the target's exploitability in "
    "game points per hand (a longer budget, another recipe or a search may find more). "
    "The ladder's figures come from its own deals, fewer against a search bot; the last "
    "column plays the ladder's best against the target on the local best response's own "
    "paired deals (a `sixtysix eval` file in the folder's `same-deals/`), the figure to "
    "set beside the local best response's."
)


def _exploit_rows(
    exploits: Sequence[dict[str, Any]], results: Sequence[BenchmarkResult],
    same_deals: Sequence[dict[str, Any]] = (), rules: str = "",
) -> list[str]:
    """One row per target: its trained best response (``sixtysix exploit``), its local best
    response (``--method lbr``), the ladder's best against it, and that agent's figure on the
    LBR's own deals where a file of ``same_deals`` has it (:func:`_on_same_deals`)."""
    if not exploits:
        return ["No exploitability estimate is in the folder yet (`sixtysix exploit TARGET`)."]
    lines = [
        _row(["target", "trained best response: gp/hand vs target (95% CI), paired deals",
              "started from", "training steps", "training wall time",
              "local best response: gp/hand vs target (95% CI), paired deals",
              "LBR ms/decision", "the ladder's best against the target (gp/hand, 95% CI)",
              "the ladder's best on the LBR's deals (gp/hand, 95% CI)"]),
        _row(["---", "---:", "---", "---:", "---:", "---:", "---:", "---:", "---:"]),
    ]
    by_agent = {r.agent: r for r in results}
    by_target: dict[str, dict[str, dict[str, Any]]] = {}
    for e in sorted(exploits, key=lambda e: (e["target"], e["command"])):
        by_target.setdefault(e["target"], {}).setdefault(e["method"], e)
    used: list[str] = []
    for target, found in by_target.items():
        ppo, lbr = found.get("ppo"), found.get("lbr")
        ms = lbr.get("ms_per_decision") if lbr else None
        best = _ladder_best(by_agent.get(target))
        same = _on_same_deals(lbr, best[0], same_deals, rules) if best and lbr else None
        if same is not None and same[1] and same[1] not in used:
            used.append(same[1])
        lines.append(_row([
            _agent(target),
            _estimate(ppo),
            _start(ppo.get("start")) if ppo else "–",
            f"{ppo['steps']:,}" if ppo else "–",
            f"{ppo['train_seconds'] / 60:.0f} min" if ppo else "–",
            _estimate(lbr),
            f"{ms:.1f}" if ms is not None else "–",
            f"{_agent(best[0])} {best[1]}" if best else "–",
            same[0] if same is not None else "–",
        ]))
    lines += ["", "The commands:", ""]
    commands = [e["command"] for e in sorted(exploits, key=lambda e: (e["target"], e["method"]))]
    lines += [f"    {markdown_code_line(public_command(c))}" for c in commands + used]
    return lines


def _estimate(e: dict[str, Any] | None) -> str:
    return "–" if e is None else f"{_gp(e['gp_per_hand'], e['gp_ci95'])}, {e['deals']:,}"


def _ladder_best(target: BenchmarkResult | None) -> tuple[str, str] | None:
    """The rung that wins most against ``target``, from the target's own benchmark, and its
    figure (any agent's winnings against a target are a lower bound on its exploitability
    too); None where the target has no benchmark."""
    if target is None or not target.opponents:
        return None
    o = min(target.opponents, key=lambda o: o.gp_per_hand if o.gp_per_hand is not None else 9)
    if o.gp_per_hand is None or o.gp_ci95 is None:
        return None
    return o.name, _gp(-o.gp_per_hand, [-o.gp_ci95[1], -o.gp_ci95[0]])


def _on_same_deals(
    lbr: dict[str, Any], agent: str, same_deals: Sequence[dict[str, Any]], rules: str
) -> tuple[str, str] | None:
    """``agent``'s figure against the LBR's target on the LBR's own paired deals (the same
    seed, number of deals and rules, hands), and the command that played it, from the first
    file of ``same_deals`` that has that pair; None where none has."""
    for d in same_deals:
        if (d["mode"] != "hand" or d["seed"] != lbr.get("seed")
                or d["rules"]["name"] != rules):
            continue
        for p in d["pairs"]:
            if ((p["a"], p["b"]) == (agent, lbr["target"]) and p["deals"] == lbr["deals"]
                    and p["gp_per_hand"] is not None):
                figure = f"{_agent(agent)} {_gp(p['gp_per_hand'], p['gp_ci95'])}, {p['deals']:,}"
                return figure, d["command"] or ""
    return None


def _start(start: dict[str, Any] | None) -> str:
    if not start:
        return "–"
    if start.get("from") == "init":
        plain = ", played once" if start.get("symmetry_dropped") else ""
        return f"the weights of {_agent(start['agent'])}{plain}"
    return f"a clone of {_agent(start['agent'])}"


def _protocol_name(name: str, quick: bool) -> str:
    return f"{name} --quick" if quick else name


def _listed(names: Sequence[str], most: int = 6) -> str:
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def _names(results: Sequence[BenchmarkResult], files: Sequence[str] | None) -> list[str]:
    """How a refusal names each result: its file's name, or its agent without ``files``."""
    return [os.path.basename(f) for f in files] if files else [f"`{r.agent}`" for r in results]


def one_protocol(
    results: Sequence[BenchmarkResult], files: Sequence[str] | None = None
) -> Protocol:
    """The protocol all ``results`` were played under; ValueError naming each file (or
    agent, without ``files``) and its protocol if they differ or one is unknown."""
    where = _names(results, files)
    groups: dict[tuple[str, bool], list[str]] = {}
    for w, r in zip(where, results):
        groups.setdefault((r.protocol, r.quick), []).append(w)
    if len(groups) > 1:
        said = "; ".join(f"{_protocol_name(*key)}: {_listed(ws)}" for key, ws in
                         sorted(groups.items(), key=lambda kv: len(kv[1])))
        quick = [w for (_, q), ws in groups.items() if q for w in ws]
        if quick and len({name for name, _ in groups}) == 1:
            fix = (f"move the --quick result{'s' if len(quick) > 1 else ''} "
                   f"({_listed(quick)}) out of the folder, or benchmark "
                   f"{'them' if len(quick) > 1 else 'it'} again without --quick")
        else:
            fix = "keep the files of one protocol in the folder"
        raise ValueError(f"the results come from different protocols ({said}); a leaderboard "
                         f"takes one: {fix}")
    (name, quick), = groups
    try:
        return get_protocol(name, quick=quick)
    except ValueError as e:
        raise ValueError(f"{_listed(where)}: {e}") from None


def leaderboard(
    results: Sequence[BenchmarkResult],
    exploits: Sequence[dict[str, Any]] = (),
    command: str = "",
    files: Sequence[str] | None = None,
    same_deals: Sequence[dict[str, Any]] = (),
) -> str:
    """The leaderboard page: every benchmarked agent by Elo, its hands, matches and files
    (``files``: the results' file paths, named when they are refused; ``same_deals``: the
    evaluation files of the folder's ``same-deals`` subfolder)."""
    if not results:
        raise ValueError("no benchmark results to put on a leaderboard")
    protocol = one_protocol(results, files)
    where = _names(results, files)
    for w, r in zip(where, results):
        check_protocol(r, protocol, w)
    ranked = sorted(results, key=lambda r: (-(r.elo if r.elo is not None else -1e9), r.agent))
    quick = " (quick: not figures to cite)" if protocol.quick else ""
    out = [
        f"# Leaderboard: {protocol.name}{quick}",
        "",
        "<!-- Generated; do not edit by hand. -->",
        f"Generated by {markdown_cell(public_command(command), code=True)} from the benchmark "
        "files beside it. Each file was made by the command it records (below); the same "
        "command gives the same figures on any machine, with any number of workers. Times per "
        "decision depend on the machine.",
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
        f"median against {protocol.anchor} (against random for {protocol.anchor}). Trained "
        "for: the rule preset a network's file records (a network plays here under "
        f"{protocol.rules} all the same), with (matches) where it was trained on whole "
        "matches (`match_play`); – for the built-in agents.",
        "",
        f"## Matches to {make_rules(protocol.rules).match_target}: match win rate against "
        "each rung (95% Wilson interval)",
        "",
        *matches_table(ranked, protocol),
        "",
        "## Exploitability: how much the target can be beaten by",
        "",
        _EXPLOIT_INTRO,
        "",
        *_exploit_rows(exploits, results, same_deals, protocol.rules),
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
        where = "built in" if f is None else (
            f"{markdown_cell(ntpath.basename(f['path']), code=True)} "
            f"({markdown_cell(f['sha256'][:16])})")
        out.append(_row([_agent(r.agent), where, markdown_cell(r.package_version),
                         markdown_cell(r.machine), str(r.workers),
                         f"{r.wall_seconds / 60:.1f} min"]))
    commands = sorted({markdown_code_line(public_command(r.command))
                       for r in ranked if r.command})
    if commands:
        out += ["", "Made by (a path outside the folder a command ran in is shown by its base "
                "name, and a Ray --address is left out):", "", *(f"    {c}" for c in commands)]
    return out
