"""A policy's figures on paired deals (``sixtysix_env.evaluation``), as training records them."""

from __future__ import annotations

import os
import time
from typing import Any

from sixtysix_env.evaluation import EvalResult, evaluate
from sixtysix_env.game.rules import make_rules
from sixtysix_env.policy import PolicyAgent, PolicyNetwork, read_policy, save_policy


def eval_figures(res: EvalResult, opponent: str) -> dict[str, Any]:
    """The figures of one pair of an evaluation result (from the first agent's side)."""
    p = res.pairs[0]
    return {
        "opponent": opponent,
        "paired_deals": p.deals,
        "hands": p.hands,
        "gp_per_hand": p.gp_per_hand,
        "gp_ci95": p.gp_ci95,
        "hands_won": p.hands_won_a,
        "hands_lost": p.hands_won_b,
        "hands_tied": p.hands_tied,
        "seed": res.seed,
        "rules": res.rules.get("name"),
    }


def split_opponent(spec: str, deals: int) -> tuple[str, int]:
    """``"expert@400"`` -> ``("expert", 400)``; without ``@N`` the default ``deals``."""
    name, at, count = spec.rpartition("@")
    if at and name and count.isdigit() and int(count) > 0:
        return name, int(count)
    return spec, deals


def evaluate_agent(
    agent, opponents: list[str], deals: int, seed: int, rules: str, workers: int = 1
) -> dict[str, dict[str, Any]]:
    """Paired-deal evaluation of ``agent`` against each opponent, with ``sixtysix_env.evaluation``.

    An opponent written ``NAME@N`` is played over ``N`` paired deals instead of ``deals``.
    """
    out = {}
    for spec in opponents:
        opp, n = split_opponent(spec, deals)
        res = evaluate([agent, opp], deals=n, rules=rules, seed=seed, workers=workers)
        out[opp] = eval_figures(res, opp)
        out[opp]["seconds"] = round(res.wall_seconds, 1)
    return out


def eval_charts(figures: dict[str, dict[str, Any]], seconds: float) -> dict[str, float]:
    """An evaluation's TensorBoard charts (``charts/``), named here once for both backends:
    per opponent the game points per hand, its 95% lower bound and the share of hands won;
    and the evaluation's seconds."""
    charts: dict[str, float] = {}
    for opp, f in figures.items():
        charts[f"charts/eval_gp_vs_{opp}"] = f["gp_per_hand"]
        lo = (f["gp_ci95"] or (f["gp_per_hand"],))[0]
        charts[f"charts/eval_gp_low95_vs_{opp}"] = lo
        charts[f"charts/eval_hands_won_vs_{opp}"] = f["hands_won"] / max(1, f["hands"])
    charts["charts/eval_seconds"] = seconds
    return charts


def _figure_text(opponent: str, f: dict[str, Any]) -> str:
    if f["gp_ci95"]:
        lo, hi = f["gp_ci95"]
        return f"{opponent} {f['gp_per_hand']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
    return f"{opponent} {f['gp_per_hand']:+.3f}"


def eval_line(steps: int, seconds: float, figures: dict[str, dict[str, Any]], best: bool) -> str:
    """One line of a training run's log for an evaluation (both backends print it)."""
    parts = "; ".join(_figure_text(opp, f) for opp, f in figures.items())
    return f"[{steps:>10,} steps, {seconds / 60:6.1f} min] eval gp/hand vs {parts}" + (
        " (new best)" if best else ""
    )


def print_export(out: str, record: dict[str, Any], source: str, log: str | None) -> None:
    """What ``sixtysix export`` prints once a run's policy (or a model) is written to ``out``:
    the file, its size and ``source``; ``log``, the run's evaluation log copied beside it
    (``runs.copy_eval_log``), if any; the figures at export (:func:`export_lines`)."""
    training = record["training"]
    print(
        f"wrote {out} ({os.path.getsize(out) / 1024:.0f} KiB) from {source}, "
        f"{training['steps']} training steps"
        + (f", {training['algorithm']}" if training.get("source") else "")
    )
    if log is not None:
        print(f"wrote {log} (the run's evaluation log: sixtysix plot-curve)")
    for line in export_lines(record):
        print(line)


def export_lines(record: dict[str, Any]) -> list[str]:
    """The figures a policy file records at export, one labelled line per opponent."""
    at = (record.get("evaluation") or {}).get("at_export")
    lines = []
    for opp, f in at["against"].items() if at else ():
        lo, hi = f["gp_ci95"] or (float("nan"), float("nan"))
        lines.append(
            f"  vs {opp:<10} {f['gp_per_hand']:+.3f} game points/hand "
            f"(95% CI {lo:+.3f} to {hi:+.3f}) over {f['paired_deals']} paired deals"
        )
    return lines


def evaluate_at_export(
    network: PolicyNetwork,
    name: str,
    opponents: list[str] | None,
    deals: int,
    seed: int,
    rules: str,
    workers: int,
) -> dict[str, Any]:
    """An exported network's figures (argmax play) against each opponent (both backends)."""
    agent = PolicyAgent(network, {"name": name}, deterministic=True, name=name)
    figures = evaluate_agent(
        agent, opponents or ["random", "heuristic"], deals, seed, rules, workers
    )
    return {"deterministic": True, "seed": seed, "against": figures}


def export_record(
    out: str, name: str | None, rules: str, training: dict[str, Any],
    during_training: dict[str, Any] | None,
) -> dict[str, Any]:
    """An exported file's metadata record before :func:`save_exported_policy` adds the figures
    at export: its name (``out``'s stem unless given), the rules of preset ``rules``, how it
    was trained, when it was exported, and the run's last evaluation (None outside a run)."""
    return {
        "name": name or os.path.splitext(os.path.basename(out))[0],
        "rules": make_rules(rules).to_dict(),
        "rule_preset": rules,
        "training": training,
        "exported": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "evaluation": {"during_training": during_training or None},
    }


def save_exported_policy(
    out: str,
    network: PolicyNetwork,
    record: dict[str, Any],
    rules: str,
    eval_deals: int,
    eval_opponents: list[str] | None,
    eval_seed: int,
    eval_workers: int,
) -> dict[str, Any]:
    """Every export's last steps (runs of both backends, SB3 models, ensembles): the figures at
    export into ``record`` (none with ``eval_deals`` 0), the file written and read back with
    every check passing; returns the metadata written."""
    if eval_deals > 0:
        record["evaluation"]["at_export"] = evaluate_at_export(
            network, record["name"], eval_opponents, eval_deals, eval_seed, rules, eval_workers
        )
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    written = save_policy(out, network, record)
    read_policy(out)
    return written


def add_export_evaluation_arguments(parser, eval_log: str) -> None:
    """The options of the evaluation recorded in a written policy file (``sixtysix export``,
    ``sixtysix ensemble``): ``--eval-deals``, ``--eval-opponents``, ``--eval-seed``,
    ``--workers``, and ``--no-eval-log``: do not ``eval_log`` (what the command writes
    beside the file)."""
    parser.add_argument(
        "--eval-deals",
        type=int,
        default=1000,
        help="paired deals per opponent for the figures recorded in the file (default 1000; "
        "0 skips)",
    )
    parser.add_argument(
        "--eval-opponents",
        nargs="+",
        default=["random", "heuristic"],
        help="opponents of that evaluation (default: random heuristic); NAME@N plays N paired "
        "deals against NAME instead of --eval-deals (e.g. expert@400)",
    )
    parser.add_argument("--eval-seed", type=int, default=7, help="seed of those deals (default 7)")
    parser.add_argument("--workers", type=int, default=1, help="evaluation worker processes")
    parser.add_argument("--no-eval-log", action="store_true", help=f"do not {eval_log}")
