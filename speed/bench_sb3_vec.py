"""MaskablePPO on SB3's ``make_vec_env`` side by side with ``SB3VecEnv`` over the vector env.

    python speed/bench_sb3_vec.py [--steps 32768] [--rollout 2048] [--sizes 8 128]

Trains ``MaskablePPO("MultiInputPolicy")`` for the same number of steps, from the same
seed, on:

1. ``make_vec_env("SixtySix-v0", n_envs=8)``: SB3's ``DummyVecEnv`` stepping 8 single
   environments one after the other (docs/ecosystem.md's first SB3 recipe);
2. ``VecMonitor(SB3VecEnv(gymnasium.make_vec("SixtySix-v0", num_envs=N,
   vectorization_mode="vector_entry_point", autoreset_mode="SameStep")))`` for each N of
   ``--sizes``: the N games on the batched engine, one SB3 ``VecEnv``
   (sixtysix_env/env/sb3.py).

Every run collects ``--rollout`` steps per update (``n_steps = rollout / n_envs``) and
trains on them with batches of 256 and SB3's other defaults, so the learning costs the
same; only the stepping differs. Prints, for each: the steps per second of the whole
``learn()`` and of the collection alone (the time inside ``collect_rollouts``), and the
ratios to ``make_vec_env``; then how long the script took (160 s with the defaults on
this project's 2 shared cores, under a load average of 10 to 13). numpy's BLAS and
torch run on one thread (set before numpy is imported): the figures are one core's.
Compare the ratios, not the absolute figures, across machines: the machines this is run
on are shared.
"""

from __future__ import annotations

import os
import sys

# numpy's BLAS on one thread before numpy is imported (sixtysix_env.util.scripts says why).
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from sixtysix_env.util.scripts import one_blas_thread

one_blas_thread()

import argparse
import platform
import time
import warnings

import gymnasium
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import VecMonitor

import sixtysix_env  # noqa: F401  (registers SixtySix-v0)
from sixtysix_env.env.sb3 import SB3VecEnv


def make_env(kind: str, n: int):
    if kind == "make_vec_env":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # render_mode="rgb_array", kept with a warning
            return make_vec_env("SixtySix-v0", n_envs=n, seed=0)
    return VecMonitor(SB3VecEnv(gymnasium.make_vec(
        "SixtySix-v0", num_envs=n, vectorization_mode="vector_entry_point",
        autoreset_mode="SameStep")))


def run(kind: str, n: int, steps: int, rollout: int) -> tuple[float, float]:
    """(steps per second of learn(), of the collection alone) for one configuration."""
    env = make_env(kind, n)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=rollout // n, batch_size=256, seed=0)
    collecting = [0.0]
    collect = model.collect_rollouts

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return collect(*args, **kwargs)
        finally:
            collecting[0] += time.perf_counter() - start

    model.collect_rollouts = timed
    start = time.perf_counter()
    model.learn(steps)
    elapsed = time.perf_counter() - start
    env.close()
    return model.num_timesteps / elapsed, model.num_timesteps / collecting[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=32_768, help="steps of each learn()")
    ap.add_argument("--rollout", type=int, default=2048, help="steps collected per update")
    ap.add_argument("--sizes", type=int, nargs="+", default=[8, 128],
                    help="games of the vector env (each must divide --rollout)")
    args = ap.parse_args(argv)
    for n in [8, *args.sizes]:
        if n < 1 or args.rollout % n:
            ap.error(f"--rollout {args.rollout} must be a multiple of every size, got {n}")
    torch.set_num_threads(1)
    began = time.perf_counter()
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"MaskablePPO, {args.steps} steps each, {args.rollout} per update, one thread")
    runs = [("make_vec_env", 8)] + [("SB3VecEnv", n) for n in args.sizes]
    base = None
    print(f"{'environment':<24}{'learn() steps/s':>16}{'collection steps/s':>20}"
          f"{'ratios':>18}")
    for kind, n in runs:
        whole, collection = run(kind, n, args.steps, args.rollout)
        base = base or (whole, collection)
        ratios = f"{whole / base[0]:.2f}x {collection / base[1]:.2f}x"
        print(f"{f'{kind}, {n} games':<24}{whole:>16,.0f}{collection:>20,.0f}{ratios:>18}",
              flush=True)
    print(f"took {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
