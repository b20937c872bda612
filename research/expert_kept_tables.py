"""What keeping the solver's tables for a decision saves the search bots (issue 12).

    python -m research.expert_kept_tables [--agent expert] [--decisions 150] [--seed 5]

Collects decisions with a choice from seeded heuristic-vs-heuristic hands,
then has the agent decide each one twice, alternating: with its solver's
transposition tables kept for the decision (what the agent does) and with a
fresh table for every solve (``keep_tables=False``). It checks that both give
the same action and values everywhere and prints the total and median time of
each and their ratio. Ratios are what to quote: the machine's load moves the
absolute times.

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
import random
import statistics

from sixtysix_env import new_hand, player_view
from sixtysix_env.agents import HeuristicAgent, make_agent


def decision_views(count: int, seed: int) -> list:
    rng, h = random.Random(seed), HeuristicAgent()
    views = []
    while len(views) < count:
        s = new_hand(rng, dealer=rng.randrange(2))
        while not s.is_terminal() and len(views) < count:
            v = player_view(s, s.current_player())
            if len(v.legal_actions()) > 1 and rng.random() < 0.4:
                views.append(v)
            s = s.apply(h.act(v, rng))
    return views


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="expert", help="an ExpertAgent spec (expert, guided, ...)")
    ap.add_argument("--decisions", type=int, default=150)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    agent = make_agent(args.agent)
    views = decision_views(args.decisions, args.seed)
    times: dict[bool, list[float]] = {True: [], False: []}
    for i, view in enumerate(views):
        out = {}
        for keep in (True, False) if i % 2 else (False, True):
            agent._solvers.clear()
            agent._solver(view.rules).keep_tables = keep
            t0 = time.perf_counter()
            out[keep] = agent.decide(view, random.Random(i))
            times[keep].append(time.perf_counter() - t0)
        if out[True] != out[False]:
            raise SystemExit(f"decision {i}: kept tables changed the choice {out}")
    kept, fresh = sum(times[True]), sum(times[False])
    print(f"{args.agent}, {len(views)} decisions (seed {args.seed}): the same choices and values")
    for keep, label in ((False, "a table per solve"), (True, "tables kept per decision")):
        t = times[keep]
        print(f"  {label:26s} total {sum(t):6.2f} s, median {1000 * statistics.median(t):6.1f} ms")
    print(f"  kept / fresh: {kept / fresh:.2f} of the time")
    return 0


if __name__ == "__main__":
    say_how_long_at_exit(__file__, _STARTED)
    raise SystemExit(main())
