"""Environment throughput under random legal play, on one core.

    python speed/bench_env.py [--seconds 1.0] [--rounds 3] [--rules altmisalti]
                                   [--mode hand] [--no-peer] [--no-pin]

Prints steps per second of

* ``sixtysix_v0.env()`` (PettingZoo's standard wrappers included) and
  ``sixtysix_v0.raw_env()``, driven the way a user loops an AEC environment:
  ``agent_iter()``, ``last()``, a random legal action drawn from the
  observation's ``action_mask`` (``random.choice(np.flatnonzero(mask))``, as
  PettingZoo's own ``performance_benchmark`` does), ``step()``; every
  ``step`` call counts, the ``None`` steps of finished agents too, and
  resets are inside the timing;
* the single-agent Gymnasium environment (learner steps; the random
  opponent's moves happen inside them);
* PettingZoo's ``leduc_holdem_v4.env()`` and ``raw_env()`` driven by the
  same loop in the same run, the ratio ``sixtysix_v0.env() /
  leduc_holdem_v4.env()``, and the microseconds per step that PettingZoo's
  standard wrappers add to each environment (which bound that ratio). Leduc
  needs ``rlcard`` and ``pygame``; without them the script says so and
  prints the rest.

The measurements are interleaved over ``--rounds`` rounds and the median is
printed, so a busy machine affects all of them alike. Compare ratios, not
absolute figures, across machines.

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
import warnings

import numpy as np  # noqa: E402

from sixtysix_env import sixtysix_v0  # noqa: E402
from sixtysix_env.env.single_agent import SixtySixEnv  # noqa: E402


def aec_steps_per_second(env, seconds: float, seed: int) -> float:
    """Random mask-sampled play for about ``seconds``; every ``step`` call counts."""
    rng = random.Random(seed)
    flatnonzero = np.flatnonzero
    env.reset(seed=seed)
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for agent in env.agent_iter():
            obs, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                action = None
            else:
                action = rng.choice(flatnonzero(obs["action_mask"]).tolist())
            env.step(action)
            steps += 1
        if time.perf_counter() >= deadline:
            break
        env.reset()
    return steps / (time.perf_counter() - start)


def single_agent_steps_per_second(env, seconds: float, seed: int) -> float:
    rng = random.Random(seed)
    flatnonzero = np.flatnonzero
    obs, _ = env.reset(seed=seed)
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        action = rng.choice(flatnonzero(obs["action_mask"]).tolist())
        obs, _reward, terminated, truncated, _info = env.step(action)
        steps += 1
        if terminated or truncated:
            if time.perf_counter() >= deadline:
                break
            obs, _ = env.reset()
    return steps / (time.perf_counter() - start)


def leduc_factory():
    """``leduc_holdem_v4.env``, or None with the reason it is missing."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from pettingzoo.classic import leduc_holdem_v4
        leduc_holdem_v4.env().reset(seed=0)
    except Exception as e:  # ImportError for rlcard/pygame, DependencyNotInstalled
        return None, f"{type(e).__name__}: {e}"
    return leduc_holdem_v4.env, None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="per measurement (default 1.0)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--rules", default="altmisalti", help="rule preset (default altmisalti)")
    parser.add_argument("--mode", default="hand", choices=("hand", "match"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-peer", action="store_true", help="skip leduc_holdem_v4")
    parser.add_argument("--no-pin", action="store_true", help="do not pin the process to one core")
    args = parser.parse_args(argv)
    if not args.no_pin and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})

    leduc, why = (None, "skipped (--no-peer)") if args.no_peer else leduc_factory()
    runs = {
        "sixtysix_v0.env()": lambda s: aec_steps_per_second(
            sixtysix_v0.env(rules=args.rules, mode=args.mode), args.seconds, s
        ),
        "sixtysix_v0.raw_env()": lambda s: aec_steps_per_second(
            sixtysix_v0.raw_env(rules=args.rules, mode=args.mode), args.seconds, s
        ),
        "SixtySix-v0 (single-agent)": lambda s: single_agent_steps_per_second(
            SixtySixEnv(opponent="random", rules=args.rules, mode=args.mode), args.seconds, s
        ),
    }
    if leduc is not None:
        from pettingzoo.classic import leduc_holdem_v4

        runs["leduc_holdem_v4.env()"] = lambda s: aec_steps_per_second(leduc(), args.seconds, s)
        runs["leduc_holdem_v4.raw_env()"] = lambda s: aec_steps_per_second(
            leduc_holdem_v4.raw_env(), args.seconds, s
        )
    figures: dict[str, list[float]] = {name: [] for name in runs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(args.rounds):
            for name, run in runs.items():
                figures[name].append(run(args.seed + r))

    print(
        f"sixtysix environment benchmark: rules={args.rules} mode={args.mode}, "
        f"{args.rounds} x {args.seconds:g} s each, median shown "
        f"(Python {platform.python_version()}, {platform.machine()})"
    )
    median = {name: statistics.median(v) for name, v in figures.items()}
    for name, value in median.items():
        spread = f"{min(figures[name]):,.0f}-{max(figures[name]):,.0f}"
        print(f"  {name:<28} {value:>10,.0f} steps/s   (range {spread})")
    if leduc is None:
        print(
            "  leduc_holdem_v4.env()        not measured: "
            + (
                why
                if args.no_peer
                else f"it needs rlcard and pygame (pip install rlcard pygame); {why}"
            )
        )
    else:
        ratio = median["sixtysix_v0.env()"] / median["leduc_holdem_v4.env()"]
        print(f"  ratio sixtysix_v0.env() / leduc_holdem_v4.env(): {ratio:.2f}x")
        # What PettingZoo's wrapper stack (OrderEnforcing, AssertOutOfBounds,
        # TerminateIllegal) adds to each step, in both environments: it bounds
        # the env() ratio whatever the raw environment costs.
        for name in ("sixtysix_v0", "leduc_holdem_v4"):
            env_us = 1e6 / median[f"{name}.env()"]
            raw_us = 1e6 / median[f"{name}.raw_env()"]
            print(
                f"  {name}: {env_us:.1f} us/step with the wrappers, {raw_us:.1f} us raw "
                f"(the wrappers add {env_us - raw_us:.1f} us)"
            )
        wrap_us = 1e6 / median["leduc_holdem_v4.env()"] - 1e6 / median["leduc_holdem_v4.raw_env()"]
        if wrap_us > 0:
            ceiling = (1e6 / median["leduc_holdem_v4.env()"]) / wrap_us
            print(
                f"  ceiling of the env() ratio with these wrappers (a raw env costing 0 us): "
                f"{ceiling:.2f}x"
            )
    return 0


if __name__ == "__main__":
    say_how_long_at_exit(__file__, _STARTED)
    sys.exit(main())
