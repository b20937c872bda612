"""Evaluation throughput: local worker processes against a local Ray with as many CPUs.

    python speed/bench_ray_eval.py --workers 2 --rounds 3

Plays the same paired deals (``--agents``, ``--deals``, ``--seed``) with
``workers`` processes and as Ray tasks on a local Ray started once with
``workers`` CPUs, in alternating rounds (the machine's load falls on both),
and prints paired deals per second for each, the Ray overhead in percent,
the cost of starting a local Ray for one run (``--address local``), and
whether the figures agree (they must). Needs Ray (the [rllib] extra).

numpy's BLAS on one thread and how long it took, on stderr: :mod:`sixtysix_env.util.scripts`.
"""

from __future__ import annotations

import os
import sys
import time

_STARTED = time.perf_counter()
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from sixtysix_env.util.scripts import one_blas_thread, say_how_long_at_exit

one_blas_thread()

import argparse
import statistics

import ray

from sixtysix_env.evaluation import evaluate
from sixtysix_env.util.machine import machine


def _figures(res) -> dict:
    d = res.to_dict()
    for key in ("timing", "workers", "wall_seconds"):
        d.pop(key)
    return d


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agents", nargs="+", default=["sixtysix-ppo-v2-sym", "expert"])
    p.add_argument("--deals", type=int, default=40)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    kw = {"deals": args.deals, "seed": args.seed, "workers": args.workers}
    print(f"{' vs '.join(args.agents)}, {args.deals} paired deals, {args.workers} workers; "
          f"{machine()}")
    t0 = time.perf_counter()
    started = evaluate(args.agents, address="local", **kw)
    with_start = time.perf_counter() - t0
    ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
    times: dict[str, list[float]] = {"processes": [], "ray": []}
    figures = {"ray, started for the run": _figures(started)}
    for _ in range(args.rounds):
        for name, address in (("processes", None), ("ray", "auto")):
            t0 = time.perf_counter()
            res = evaluate(args.agents, address=address, **kw)
            times[name].append(time.perf_counter() - t0)
            figures[name] = _figures(res)
    ray.shutdown()
    rate = {k: args.deals / statistics.median(v) for k, v in times.items()}
    for k, v in times.items():
        print(f"{k:>10}: {rate[k]:.2f} paired deals/s (median of {len(v)} runs: "
              f"{', '.join(f'{t:.1f}' for t in v)} s)")
    print(f"Ray overhead on a running Ray: {100 * (rate['processes'] / rate['ray'] - 1):+.1f}%")
    print(f"one run with --address local (starting and stopping Ray): {with_start:.1f} s "
          f"(processes: {statistics.median(times['processes']):.1f} s)")
    same = all(f == figures["processes"] for f in figures.values())
    print(f"the same figures in every mode: {same}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    say_how_long_at_exit(__file__, _STARTED)
    main()
