"""Random play under ``schnapsen-vu``: the schnapsen package's engine beside ``SixtySix-v0``
and the vector environment (docs/schnapsen.md, Speed).

    python speed/bench_schnapsen.py [--games 2000] [--vector-games 100000]
                                    [--sizes 16 256 4096] [--rounds 3] [--seed 0] [--quick]

The same rules everywhere (``schnapsen-vu``: exactly what the package's engine plays,
docs/rules.md §20), random legal moves for both seats, seeded. Prints, for each, the games
(hands: one game of the package is one hand here) per second and the decisions per
second (every move either seat chooses, the trump exchange included):

1. **the package's engine**: ``SchnapsenGamePlayEngine().play_game`` with two
   ``RandBot``, ``--games`` games (the ``schnapsen`` package, the ``[schnapsen]`` extra);
2. **SixtySix-v0**: ``gymnasium.make("SixtySix-v0", rules="schnapsen-vu")``, one game per
   episode, the learner's random legal move drawn from ``info["action_mask"]``, the
   opponent ``random`` (this project's ``RandomAgent``, counted), ``--games`` games;
3. **the vector environment**: ``gymnasium.make_vec("SixtySix-v0", num_envs=N,
   rules="schnapsen-vu", vectorization_mode="vector_entry_point",
   autoreset_mode="SameStep")`` for each N of ``--sizes``, the opponent ``random`` in
   compiled code, the learner's random legal moves (a fixed table of random numbers times
   the mask, argmax per row), until ``--vector-games`` games have ended. The opponent
   moves inside ``step``, uncounted: the row gives the learner's steps per second
   (Gymnasium's count; with ``SameStep`` each is a decision) instead of the decisions;
4. **the vector environment, both seats**: ``SixtySixSelfPlayVectorEnv(N,
   rules="schnapsen-vu")``, the caller choosing every move (random legal, as in 3) for
   both seats: every decision counted.

Every row is measured once per round, the rounds interleaved (``--rounds``, default 3: a
change in the machine's load hits every row alike), and the median of each rate printed.
The decisions per game of 1, 2 and 4 come out close (the same rules; each engine's random
player draws uniformly from its own list of legal moves, so they need not be equal): the
script prints them as a check. Compare the ratios, not the absolute figures, across
machines: the machines this is run on are shared. numpy's BLAS runs on one thread
(set before numpy is imported); it prints how long it took as it ends, on stderr (about 2 minutes
with the defaults on this project's 2 shared cores under load; ``--quick``, one round of
200 games and 4,000 vector games at 16 and 256: a few seconds).
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
import platform
import random
import statistics

import gymnasium
import numpy as np

import sixtysix_env  # noqa: F401  (registers SixtySix-v0)
from sixtysix_env.agents.base import RandomAgent

RULES = "schnapsen-vu"


def package_rate(games: int, seed: int) -> tuple[float, int] | None:
    """(seconds, decisions) of ``games`` games of two ``RandBot`` in the package's engine;
    None without the package."""
    try:
        from schnapsen.bots import RandBot
        from schnapsen.game import SchnapsenGamePlayEngine
    except ImportError:
        return None
    counted = [0]

    class CountedRandBot(RandBot):
        def get_move(self, perspective, leader_move):
            counted[0] += 1
            return super().get_move(perspective, leader_move)

    engine = SchnapsenGamePlayEngine()
    rng = random.Random(seed)
    bots = (CountedRandBot(random.Random(seed + 1), "rand-0"),
            CountedRandBot(random.Random(seed + 2), "rand-1"))
    t0 = time.perf_counter()
    for g in range(games):
        engine.play_game(bots[g % 2], bots[1 - g % 2], rng)  # first lead alternating
    return time.perf_counter() - t0, counted[0]


class CountedRandom(RandomAgent):
    """``random``, counting its decisions."""

    def __init__(self) -> None:
        self.decisions = 0

    def act(self, view, rng):
        self.decisions += 1
        return super().act(view, rng)


def gym_rate(games: int, seed: int) -> tuple[float, int, int]:
    """(seconds, decisions, learner steps) of ``games`` episodes of ``SixtySix-v0``."""
    opponent = CountedRandom()
    env = gymnasium.make("SixtySix-v0", rules=RULES, opponent=opponent)
    rng = random.Random(seed)
    steps = 0
    t0 = time.perf_counter()
    _, info = env.reset(seed=seed)
    for _ in range(games):
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, _, term, trunc, info = env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
            done = term or trunc
        _, info = env.reset()
    elapsed = time.perf_counter() - t0
    env.close()
    return elapsed, steps + opponent.decisions, steps


def vector_rate(num_envs: int, games: int, seed: int,
                both_seats: bool) -> tuple[float, int, int, float]:
    """(seconds, games ended, steps x num_envs, steps per ended game) until ``games`` games
    have ended (at least 20 steps): the single-learner vector env, or the self-play form
    (``both_seats``, where a step is a decision)."""
    if both_seats:
        from sixtysix_env.env.vector import SixtySixSelfPlayVectorEnv
        env = SixtySixSelfPlayVectorEnv(num_envs, rules=RULES, copy=False)
    else:
        env = gymnasium.make_vec("SixtySix-v0", num_envs=num_envs, rules=RULES, copy=False,
                                 vectorization_mode="vector_entry_point",
                                 autoreset_mode="SameStep")
    table = np.random.default_rng(seed).random((16, num_envs, 34)).astype(np.float32)
    obs, _ = env.reset(seed=seed)
    for k in range(5):  # the compiled kernels, loaded once
        obs, *_ = env.step((table[k] * obs["action_mask"]).argmax(1))
    obs, _ = env.reset(seed=seed)
    ended = calls = in_ended = 0
    lane_steps = np.zeros(num_envs, np.int64)  # each game's steps so far
    t0 = time.perf_counter()
    while ended < games or calls < 20:
        obs, _, term, trunc, _ = env.step((table[calls % 16] * obs["action_mask"]).argmax(1))
        lane_steps += 1
        over = term | trunc
        ended += int(np.count_nonzero(over))
        in_ended += int(lane_steps[over].sum())
        lane_steps[over] = 0
        calls += 1
    return time.perf_counter() - t0, ended, calls * num_envs, in_ended / max(ended, 1)


#: One measurement: (seconds, games, decisions or None, learner steps or None, decisions per
#: ended game or None).
Result = tuple[float, int, "int | None", "int | None", "float | None"]


def measurements(args) -> list[tuple[str, object]]:
    """(row name, a call that measures it once) for every row, in the order printed."""
    g, v, seed = args.games, args.vector_games, args.seed

    def package():
        out = package_rate(g, seed)
        return None if out is None else (out[0], g, out[1], None, out[1] / g)

    def gym():
        seconds, decisions, steps = gym_rate(g, seed)
        return seconds, g, decisions, steps, decisions / g

    def vector(n, both):
        seconds, ended, steps, per_game = vector_rate(n, v, seed, both_seats=both)
        return (seconds, ended, steps, None, per_game) if both else (
            seconds, ended, None, steps, None)

    rows = [("schnapsen SchnapsenGamePlayEngine, 2 RandBot", package),
            ("SixtySix-v0, opponent random", gym)]
    rows += [(f"vector env, {n} games, opponent random", lambda n=n: vector(n, False))
             for n in args.sizes]
    rows += [(f"vector env, {n} games, both seats", lambda n=n: vector(n, True))
             for n in args.sizes]
    return rows


def row(name: str, results: list[Result]) -> str:
    """The row of one measurement: the median over the rounds of each rate."""
    def median(k: int) -> str:
        if results[0][k] is None:
            return "-"
        return f"{statistics.median(r[k] / r[0] for r in results):,.0f}"

    per_game = "-" if results[0][4] is None else f"{results[0][4]:.2f}"
    games = f"{statistics.median(r[1] / r[0] for r in results):,.0f}"
    return f"{name:<44}{games:>10}{median(2):>14}{per_game:>11}{median(3):>16}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2000,
                    help="games of the package's engine and of SixtySix-v0 (default 2000)")
    ap.add_argument("--vector-games", type=int, default=100_000,
                    help="games each vector environment plays (default 100000)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[16, 256, 4096],
                    help="games of the vector environment stepped together")
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds, each measuring every row once; the median is printed")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true",
                    help="200 games, 4000 vector games, sizes 16 and 256, one round")
    args = ap.parse_args(argv)
    if args.quick:
        args.games, args.vector_games, args.sizes, args.rounds = 200, 4000, [16, 256], 1
    for what, n in (("--games", args.games), ("--vector-games", args.vector_games),
                    ("--rounds", args.rounds), *(("--sizes", s) for s in args.sizes)):
        if n < 1:
            ap.error(f"{what} must be at least 1, got {n}")
    say_how_long_at_exit(__file__, _STARTED)
    load = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores{load}, "
          f"python {platform.python_version()}; rules {RULES}, random legal moves for both "
          f"seats, seed {args.seed}, one thread, "
          + (f"median of {args.rounds} rounds" if args.rounds > 1 else "one round"), flush=True)
    rows = measurements(args)
    results: dict[str, list[Result]] = {name: [] for name, _ in rows}
    for _ in range(args.rounds):  # interleaved: a change in the machine's load hits every row
        for name, measure in rows:
            out = measure()
            if out is not None:
                results[name].append(out)
    print(f"{'':<44}{'games/s':>10}{'decisions/s':>14}{'dec./game':>11}{'learner steps/s':>16}")
    for name, _ in rows:
        if results[name]:
            print(row(name, results[name]))
        else:
            print(f"{name:<44}  (not installed: pip install -e \".[schnapsen]\")")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
