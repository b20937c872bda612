"""Search-bot variants against one opponent on the same paired deals (issue 12).

    python -m research.search_variants expert "expert:prior=sixtysix-ppo" \
        --opponent heuristic --deals 600 --seed 202 [--json out.json]

Every variant plays the same deals (``sixtysix eval``'s deals and agent
random generators for that seed), so besides each variant's game points per
hand it prints each variant's *paired difference* to the first one: the mean
over deals of (variant's gp - first's gp) on the same deal, with a 95%
interval. Where two variants choose alike most of the time that interval is
much narrower than the two separate ones. Also the median and 90th
percentile time per decision of the variant (the opponent's moves are not
timed). One process; the variants run one after another.

numpy's BLAS runs on one thread (``OPENBLAS_NUM_THREADS=1`` and the like, set before
numpy is imported); it prints how long it took as it ends, on stderr.
"""

from __future__ import annotations

import os
import sys
import time

# numpy's BLAS on one thread before numpy is imported (sixtysix_env.util.scripts says why).
_STARTED = time.perf_counter()
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from sixtysix_env.util.scripts import one_blas_thread, say_how_long_at_exit

one_blas_thread()

import argparse
import json
import math
import statistics

from sixtysix_env.agents import make_agent
from sixtysix_env.evaluation.play import play_paired_deal
from sixtysix_env.game.rules import make_rules


def run_variant(spec: str, opponent: str, deals: int, seed: int, rules: str) -> dict:
    """Per-deal game points (the variant's two hands summed) and decision times."""
    agent, opp, cfg = make_agent(spec), make_agent(opponent), make_rules(rules)
    times: tuple[list[float], list[float]] = ([], [])
    gp = []
    t0 = time.perf_counter()
    for i in range(deals):
        rec = play_paired_deal(agent, opp, seed, i, cfg, names=(spec, opponent), times=times)
        gp.append(rec.gp[0] + rec.gp[1])
    ms = sorted(times[0])  # milliseconds
    return {
        "spec": spec,
        "gp": gp,
        "seconds": time.perf_counter() - t0,
        "decisions": len(ms),
        "median_ms": statistics.median(ms) if ms else None,
        "p90_ms": ms[int(0.9 * (len(ms) - 1))] if ms else None,
    }


def mean_ci(xs: list[float]) -> tuple[float, float]:
    """(mean, half-width of the normal 95% interval)."""
    m = statistics.fmean(xs)
    return m, 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.nan


def report(rows: list[dict]) -> str:
    base = rows[0]["gp"]
    header = f"{'variant':44s} {'gp/hand':>8s} {'±95%':>6s} {'vs first':>9s} {'±95%':>6s} "
    out = [header + f"{'median ms':>9s} {'p90 ms':>7s}"]
    for r in rows:
        # A paired deal is two hands: per hand, halve the per-deal sums.
        m, h = mean_ci([g / 2 for g in r["gp"]])
        d, dh = mean_ci([(g - b) / 2 for g, b in zip(r["gp"], base)])
        out.append(
            f"{r['spec']:44s} {m:+8.3f} {h:6.3f} {d:+9.3f} {dh:6.3f} "
            f"{r['median_ms']:9.2f} {r['p90_ms']:7.2f}"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("variants", nargs="+", help="agent specs; the first is the reference")
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--deals", type=int, default=200, help="paired deals (2 hands each)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rules", default="altmisalti")
    ap.add_argument("--json", help="write every variant's per-deal figures here")
    args = ap.parse_args(argv)
    rows = []
    for spec in args.variants:
        rows.append(run_variant(spec, args.opponent, args.deals, args.seed, args.rules))
        print(f"{spec}: {rows[-1]['seconds']:.0f} s", flush=True)
    print(f"against {args.opponent}, {args.deals} paired deals, seed {args.seed}, {args.rules}")
    print(report(rows))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "opponent": args.opponent,
                    "deals": args.deals,
                    "seed": args.seed,
                    "rules": args.rules,
                    "variants": rows,
                },
                f,
            )
    return 0


if __name__ == "__main__":
    say_how_long_at_exit(__file__, _STARTED)
    raise SystemExit(main())
