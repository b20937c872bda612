"""Training throughput: environment steps per second while MaskablePPO learns.

    python speed/bench_training.py [--config configs/full.yaml] [--steps 262144]
                                        [--default-steps 32768] [--no-default]
                                        [--set KEY=VALUE ...] [--compare KEY=VALUE ...]
                                        [--dense-first] [--rounds N]

Measures, in this process, learning on the Sixty-Six single-agent
environment against the baseline opponents (random and heuristic, the first
opponents of every run):

* "default": MaskablePPO's default settings (one game, n_steps 2048,
  batch 64, 10 epochs, a 64-64 tanh network), games through SB3's
  ``DummyVecEnv`` with a flat-observation wrapper;
* "configured": the settings of ``--config`` (games side by side in
  ``sixtysix_training.sb3.vec_env.SelfPlayVecEnv``, large batches, few epochs, one torch
  thread).

Each run first learns one rollout to warm up, then is timed over
``--steps`` (or ``--default-steps``) further steps, collection and updates
included (no evaluation). Prints steps per second, wall time per million
steps and the ratio. Figures depend on the machine and on its load: on a
shared machine run it twice and compare the ratio, or give ``--rounds N``
(the two settings timed in turn N times, the median ratio).

``--dense-first`` times the first setting as training ran before the
factored product (issue 50): the suit-symmetric actor's layers multiply by
their dense matrices in the PPO update too
(:meth:`~sixtysix_training.common.equivariant.SuitSymmetricLinear.dense`).
With ``--compare batched_games=true`` that is the training of before issue
50 (games one at a time, the dense product) against today's.

numpy's BLAS on one thread (torch's threads as they are) and how long it took, on stderr:
:mod:`sixtysix_env.util.scripts`.
"""

from __future__ import annotations

import os
import sys
import time

_STARTED = time.perf_counter()
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)
from sixtysix_env.util.scripts import one_blas_thread, say_how_long_at_exit

one_blas_thread(keep_torch_threads=True)

import argparse
import contextlib
import platform
import statistics

DEFAULT_THREADS = 0  # torch's default thread count, read before any run changes it


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _flat_env(rules: str, seed: int):
    import gymnasium

    from sixtysix_env.env.single_agent import SixtySixEnv

    class FlatObservation(gymnasium.Wrapper):
        """The observation vector alone; keeps ``action_masks()``."""

        def __init__(self, env):
            super().__init__(env)
            self.observation_space = env.observation_space["observation"]

        def reset(self, **kw):
            obs, info = self.env.reset(**kw)
            return obs["observation"], info

        def step(self, action):
            obs, r, term, trunc, info = self.env.step(action)
            return obs["observation"], r, term, trunc, info

        def action_masks(self):
            return self.env.unwrapped.action_masks()

    return FlatObservation(SixtySixEnv(opponent="heuristic", rules=rules))


def time_learning(model, steps: int) -> tuple[int, float]:
    """Learn one warm-up rollout, then ``steps`` more; returns (steps timed, seconds)."""
    rollout = model.n_steps * model.n_envs
    model.learn(rollout)
    before = model.num_timesteps
    t0 = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    return model.num_timesteps - before, time.perf_counter() - t0


def bench_default(steps: int, rules: str, seed: int) -> tuple[int, float]:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(DEFAULT_THREADS)  # the library's own default
    env = DummyVecEnv([lambda: _flat_env(rules, seed)])
    model = MaskablePPO("MlpPolicy", env, seed=seed, device="cpu", verbose=0)
    return time_learning(model, steps)


def bench_configured(
    config: str, steps: int, seed: int, overrides: list[str] | None = None
) -> tuple[int, float, object, str]:
    """The config's training step as ``sixtysix train`` builds it (its learning options too):
    (steps timed, seconds, the config, the number format its critic computed in)."""
    import torch

    from sixtysix_training.common.pool import OpponentPool
    from sixtysix_training.config.loader import load_config
    from sixtysix_training.sb3.policy import critic_precision
    from sixtysix_training.sb3.train import new_model
    from sixtysix_training.sb3.vec_env import SelfPlayVecEnv

    cfg = load_config(config, [f"seed={seed}", *(overrides or [])])
    torch.set_num_threads(cfg.torch_threads)
    pool = OpponentPool(cfg.baseline_weights, seed=seed)
    env = SelfPlayVecEnv.from_config(cfg, pool)
    model = new_model(cfg, env)
    n, dt = time_learning(model, steps)
    return n, dt, cfg, critic_precision(model.policy)


@contextlib.contextmanager
def dense_products(on: bool):
    """While on, the suit-symmetric layers multiply by their dense matrices with gradients
    too (the PPO update), as before the factored product."""
    from torch.nn import functional

    from sixtysix_training.common.equivariant import SuitSymmetricLinear

    factored = SuitSymmetricLinear._factored
    if on:
        SuitSymmetricLinear._factored = lambda self, x: functional.linear(x, *self.dense())
    try:
        yield
    finally:
        SuitSymmetricLinear._factored = factored


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--config",
        default=os.path.join(ROOT, "configs", "full.yaml"),
        help="training config whose settings are measured (default configs/full.yaml)",
    )
    p.add_argument("--steps", type=int, default=262_144, help="timed steps, configured settings")
    p.add_argument(
        "--default-steps", type=int, default=32_768, help="timed steps, default settings"
    )
    p.add_argument("--no-default", action="store_true", help="skip the default-settings run")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE",
        help="change an option of the config, as sixtysix train --set (e.g. batched_games=true)",
    )
    p.add_argument(
        "--compare", metavar="KEY=VALUE", action="append", default=[],
        help="time the config a second time with these options changed and print the ratio "
             "(e.g. --compare batched_games=true)",
    )
    p.add_argument(
        "--dense-first", action="store_true",
        help="the first setting with the suit-symmetric actor's dense product in the update "
             "(training before the factored product; a config without actor_symmetry has no "
             "such product, and this changes nothing there)",
    )
    p.add_argument(
        "--rounds", type=int, default=1,
        help="with --compare: time the two settings in turn this many times; the median ratio",
    )
    args = p.parse_args(argv)
    if args.rounds < 1 or (args.rounds > 1 and not args.compare):
        p.error(f"--rounds must be 1 or more, and above 1 only with --compare; got {args.rounds}")

    import torch

    global DEFAULT_THREADS
    DEFAULT_THREADS = torch.get_num_threads()
    print(
        f"machine: {_cpu()}, {os.cpu_count()} CPU cores, "
        f"Python {platform.python_version()}, torch {torch.__version__}"
        + (f", load average {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "")
    )
    ratios = []
    for _ in range(args.rounds):
        with dense_products(args.dense_first):
            n, dt, cfg, precision = bench_configured(args.config, args.steps, args.seed, args.set)
        conf_sps = n / dt
        print(
            f"configured ({os.path.basename(args.config)}: {cfg.n_envs} games x {cfg.n_steps} "
            f"steps, batch {cfg.batch_size}, {cfg.n_epochs} epochs, net {cfg.net_arch} "
            f"{cfg.activation}, {cfg.torch_threads} torch thread(s), suit_augment "
            f"{cfg.suit_augment}, privileged_critic {cfg.privileged_critic}, batched_games "
            f"{cfg.batched_games}, critic in {precision}"
            f"{', dense product' if args.dense_first and cfg.actor_symmetry else ''}): "
            f"{conf_sps:,.0f} steps/s, "
            f"{1e6 / conf_sps / 60:.1f} min per million steps ({n:,} steps in {dt:.1f} s)"
        )
        if args.compare:
            n2, dt2, _, precision2 = bench_configured(
                args.config, args.steps, args.seed, args.set + args.compare
            )
            ratios.append((n2 / dt2) / conf_sps)
            print(
                f"with {' '.join(args.compare)} (critic in {precision2}): {n2 / dt2:,.0f} steps/s, "
                f"{1e6 / (n2 / dt2) / 60:.1f} min per million steps ({n2:,} steps in "
                f"{dt2:.1f} s); ratio {ratios[-1]:.2f}x"
            )
    if len(ratios) > 1:
        print(
            f"ratios over {len(ratios)} rounds: {', '.join(f'{r:.2f}x' for r in ratios)}; "
            f"median {statistics.median(ratios):.2f}x"
        )
    if not args.no_default:
        n, dt = bench_default(args.default_steps, cfg.rules, args.seed)
        def_sps = n / dt
        print(
            f"default (1 game x 2048 steps, batch 64, 10 epochs, net [64, 64] tanh, "
            f"{DEFAULT_THREADS} torch thread(s)): {def_sps:,.0f} steps/s, "
            f"{1e6 / def_sps / 60:.1f} min per million steps ({n:,} steps in {dt:.1f} s)"
        )
        print(f"ratio configured / default: {conf_sps / def_sps:.1f}x")
    if hasattr(os, "getloadavg"):
        print(
            f"load average at the end: {os.getloadavg()[0]:.2f} "
            "(figures on a shared machine vary from run to run)"
        )
    return 0


if __name__ == "__main__":
    say_how_long_at_exit(__file__, _STARTED)
    sys.exit(main())
