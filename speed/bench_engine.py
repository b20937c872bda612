"""Rules-engine throughput under random play, on one core.

    python speed/bench_engine.py [--hands 20000] [--seed 0] [--no-peer]

Prints random-play actions per second and full hands per second (dealing
included), microseconds for ``legal_actions`` and ``apply`` on positions
sampled from random games, and, when the ``schnapsen`` package (a Python
Schnapsen engine) is installed, its random bots' moves per second measured
in the same run and the ratio. Figures depend on the machine and its load:
compare ratios, not absolute numbers, across machines.

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
import timeit

from sixtysix_env import make_rules, new_hand  # noqa: E402


def random_play(hands: int, seed: int, rules: str) -> tuple[int, float]:
    cfg = make_rules(rules)
    rng = random.Random(seed)
    actions = 0
    t0 = time.perf_counter()
    for i in range(hands):
        s = new_hand(rng, dealer=i & 1, rules=cfg)
        while s.result is None:
            legal = s.legal_actions()
            s = s.apply(legal[rng.randrange(len(legal))])
            actions += 1
    return actions, time.perf_counter() - t0


def sample_positions(n: int, seed: int) -> list:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        s = new_hand(rng, dealer=rng.randrange(2))
        while s.result is None:
            out.append(s)
            legal = s.legal_actions()
            s = s.apply(legal[rng.randrange(len(legal))])
    return out[:n]


def micro(positions) -> tuple[float, float]:
    from sixtysix_env.game.engine import State

    # legal_actions on fresh copies (its mask is cached per state).
    fresh = [p._copy() for p in positions]

    def legal():
        for p in fresh:
            p._legal = -1
            p.legal_actions()

    pairs = [(p, p.legal_actions()[0]) for p in positions]

    def apply():
        for p, a in pairs:
            p.apply(a)

    n = len(positions)
    t_legal = min(timeit.repeat(legal, number=1, repeat=5)) / n
    t_apply = min(timeit.repeat(apply, number=1, repeat=5)) / n
    assert isinstance(positions[0], State)
    return t_legal * 1e6, t_apply * 1e6


def schnapsen_peer(games: int, seed: int) -> tuple[int, float] | None:
    """(moves, seconds) of ``games`` games of two ``RandBot`` in the package's engine, as
    ``speed/bench_schnapsen.py`` times them; None without the package."""
    from speed.bench_schnapsen import package_rate

    timed = package_rate(games, seed)
    return None if timed is None else (timed[1], timed[0])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=20000, help="hands of random play (default 20000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--peer-games", type=int, default=2000, help="schnapsen games (default 2000)")
    ap.add_argument("--no-peer", action="store_true", help="skip the schnapsen peer")
    ap.add_argument("--no-pin", action="store_true", help="do not pin the process to one core")
    args = ap.parse_args(argv)

    if not args.no_pin and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print("one core, random legal play, dealing included\n")
    for rules in ("altmisalti", "pagat66", "santase"):
        random_play(200, args.seed, rules)  # warm up
        n, dt = random_play(args.hands, args.seed, rules)
        print(
            f"{rules:<11} {n / dt:>10,.0f} actions/s  {args.hands / dt:>8,.0f} hands/s  "
            f"({n / args.hands:.1f} actions per hand, {args.hands} hands)"
        )
    positions = sample_positions(20000, args.seed)
    t_legal, t_apply = micro(positions)
    print(f"\nlegal_actions: {t_legal:.2f} us   apply: {t_apply:.2f} us   (20,000 sampled positions)")

    if args.no_peer:
        return 0
    ours, dt = random_play(args.hands, args.seed, "altmisalti")
    ours_rate = ours / dt
    peer = schnapsen_peer(args.peer_games, args.seed)
    if peer is None:
        print("\npeer: the 'schnapsen' package is not installed (pip install schnapsen) - skipped")
        return 0
    moves, pdt = peer
    peer_rate = moves / pdt
    print(
        f"\npeer schnapsen (random bots): {peer_rate:>10,.0f} moves/s ({args.peer_games} games)\n"
        f"sixtysix (random play):       {ours_rate:>10,.0f} actions/s\n"
        f"ratio sixtysix / schnapsen:   {ours_rate / peer_rate:.1f}x"
    )
    return 0


if __name__ == "__main__":
    say_how_long_at_exit(__file__, _STARTED)
    raise SystemExit(main())
