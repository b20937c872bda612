"""Milliseconds per decision of the search bots with the Python and the compiled engine.

    OPENBLAS_NUM_THREADS=1 nice python speed/bench_search.py [--deals 30] [--seed 5]
        [--rules altmisalti] [--agents expert guided]

Each agent plays ``--deals`` paired deals against ``heuristic`` as ``sixtysix eval AGENT
heuristic --deals N --seed S --workers 1`` does (the same decks, seats and generators),
once with ``engine=python`` and once with ``engine=numba``; every decision of the
search bot is timed (those with one legal action too, as the evaluation times them). It
prints the median and mean per engine and their ratio, and checks that both engines
played the same games (the same game points in every deal). The compiled functions are
loaded (or compiled) before the timing starts. Figures depend on the machine's load: run
it on an otherwise idle core and quote the ratios.

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
import platform
import statistics

from sixtysix_env import make_rules
from sixtysix_env.agents.registry import make_agent
from sixtysix_env.evaluation.play import play_paired_deal


def run(spec: str, deals: int, seed: int, rules) -> tuple[list[float], list, float]:
    agent, heuristic = make_agent(spec), make_agent("heuristic")
    times: tuple[list[float], list[float]] = ([], [])
    t0 = time.perf_counter()
    records = [
        play_paired_deal(agent, heuristic, seed, i, rules, names=(spec, "heuristic"), times=times)
        for i in range(deals)
    ]
    return times[0], [r.gp for r in records], time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=30)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--rules", default="altmisalti")
    ap.add_argument("--agents", nargs="+", default=["expert", "guided"])
    args = ap.parse_args()
    rules = make_rules(args.rules)
    print(f"python {platform.python_version()} on {platform.machine()}; "
          f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
          f"{os.getloadavg()[2]:.2f}; {args.deals} paired deals, seed {args.seed}, "
          f"{args.rules}, against heuristic")
    run("expert:engine=numba,samples=2", 1, 0, rules)  # load the compiled functions
    print(f"{'agent':<8} {'engine':<7} {'decisions':>9} {'median ms':>10} {'mean ms':>8} "
          f"{'wall s':>7}  same games")
    for name in args.agents:
        out = {}
        for engine in ("python", "numba"):
            ms, gp, wall = out[engine] = run(f"{name}:engine={engine}", args.deals, args.seed,
                                             rules)
            same = "" if engine == "python" else ("yes" if gp == out["python"][1] else "NO")
            print(f"{name:<8} {engine:<7} {len(ms):>9} {statistics.median(ms):>10.2f} "
                  f"{statistics.fmean(ms):>8.2f} {wall:>7.1f}  {same}", flush=True)
        py, nb = out["python"][0], out["numba"][0]
        median = statistics.median(py) / statistics.median(nb)
        mean = statistics.fmean(py) / statistics.fmean(nb)
        print(f"{name:<8} ratio   python/numba: median {median:.1f}x, mean {mean:.1f}x")


if __name__ == "__main__":
    say_how_long_at_exit(__file__, _STARTED)
    main()
