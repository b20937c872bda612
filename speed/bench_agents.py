"""Milliseconds per decision of each agent, and the endgame solver's speed, on one core.

    python speed/bench_agents.py [--hands 200] [--seed 0] [--rules altmisalti]
        [--expert samples=24] [--agents random heuristic expert]

Each agent plays ``--hands`` hands against the heuristic (seats alternating,
seeded deals); every decision it makes is timed, including those with a
single legal action. The table splits decisions by phase: the open phase
(stock open), closed (stock closed, hidden cards remain) and exhausted
(perfect information). The solver line times exact solves of positions right
after a close with six cards in each hand (the largest it meets). Figures
depend on the machine and its load: run it on an otherwise idle core.

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
import random
import statistics

from sixtysix_env import new_hand, player_view
from sixtysix_env.agents import HeuristicAgent, Solver, make_agent
from sixtysix_env.game.actions import CLOSE


def _phase(view) -> str:
    if view.closed_by is not None:
        return "closed"
    return "exhausted" if view.stock_left == 0 else "open"


def time_agent(agent, hands: int, seed: int, rules: str) -> dict[str, list[float]]:
    rng = random.Random(seed)
    other = HeuristicAgent()
    out: dict[str, list[float]] = {"open": [], "closed": [], "exhausted": []}
    for i in range(hands):
        s = new_hand(rng, dealer=i % 2, rules=rules)
        me = i % 2
        while not s.is_terminal():
            p = s.current_player()
            view = player_view(s, p)
            if p == me:
                t0 = time.perf_counter()
                a = agent.act(view, rng)
                out[_phase(view)].append((time.perf_counter() - t0) * 1000)
            else:
                a = other.act(view, rng)
            s = s.apply(a)
    return out


def _stats(xs: list[float]) -> str:
    if not xs:
        return f"{'-':>7} {'-':>9} {'-':>9} {'-':>9} {'-':>9}"
    s = sorted(xs)
    return (f"{len(s):7d} {statistics.median(s):9.2f} {statistics.fmean(s):9.2f} "
            f"{s[int(0.9 * (len(s) - 1))]:9.2f} {s[-1]:9.2f}")


def time_solver(positions: int, seed: int, rules: str) -> tuple[float, float, float]:
    rng = random.Random(seed)
    times, nodes = [], 0
    while len(times) < positions:
        s = new_hand(rng, rules=rules)
        k = rng.randrange(1, 6)
        while not s.is_terminal() and not s.is_strict():
            legal = s.legal_actions()
            if CLOSE in legal and s.tricks_done >= k and s.lead_card is None:
                s = s.apply(CLOSE)
                break
            s = s.apply(rng.choice([a for a in legal if a != CLOSE]))
        if s.is_terminal() or not s.is_strict():
            continue
        sv = Solver(s.rules)
        t0 = time.perf_counter()
        sv.value(s)
        times.append((time.perf_counter() - t0) * 1000)
        nodes += sv.nodes
    return statistics.median(times), statistics.fmean(times), nodes / len(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rules", default="altmisalti")
    ap.add_argument("--agents", nargs="+", default=["random", "heuristic", "expert"])
    ap.add_argument("--expert", default="", help="options for expert, e.g. samples=16")
    ap.add_argument("--solver-positions", type=int, default=300)
    args = ap.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"rules {args.rules}, {args.hands} hands per agent vs heuristic, seed {args.seed}")
    print(f"{'agent':<28} {'phase':<10} {'n':>7} {'median':>9} {'mean':>9} {'p90':>9} {'max':>9}  (ms)")
    for spec in args.agents:
        if spec == "expert" and args.expert:
            spec = f"expert:{args.expert}"
        agent = make_agent(spec)
        t = time_agent(agent, args.hands, args.seed, args.rules)
        for phase in ("open", "closed", "exhausted"):
            print(f"{spec:<28} {phase:<10} {_stats(t[phase])}")
        every = t["open"] + t["closed"] + t["exhausted"]
        print(f"{spec:<28} {'all':<10} {_stats(every)}")
        nontrivial = [x for x in every if x > 0.05]
        print(f"{spec:<28} {'>0.05 ms':<10} {_stats(nontrivial)}")
    med, mean, nodes = time_solver(args.solver_positions, args.seed, args.rules)
    print(f"solver: positions right after a close (6 cards each): median {med:.3f} ms, "
          f"mean {mean:.3f} ms, {nodes:.0f} nodes per solve")
    return 0


if __name__ == "__main__":
    say_how_long_at_exit(__file__, _STARTED)
    raise SystemExit(main())
