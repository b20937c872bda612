"""RLlib backend throughput: steps per second with 0, 1 and 2 env runners, beside the SB3 backend.

    python speed/bench_rllib.py [--config configs/rllib-quickstart.yaml] [--runners 0 1 2]
                                     [--iterations 4] [--sb3-python .venv/bin/python]
                                     [--profile rllib.prof]

For each number of env runners, builds the RLlib backend's PPO exactly as
``sixtysix train --backend rllib`` does (league with the config's baselines,
the learner on one seat or both), learns one iteration to warm up, then
times ``--iterations`` more (sampling, learner update and weight sync; no
evaluation) and prints the learner's decisions per second (the figure the
SB3 path reports) and all environment steps per second.
With ``--sb3-python`` (an interpreter with the ``[train]`` extra; Ray and
SB3 may live in separate virtual environments) it also runs
``speed/bench_training.py`` there for the SB3 figure on this machine.

Figures depend on the machine and its load: on a shared machine run it
twice. On 2 cores, remote env runners share the cores with the learner in
the driver, so 2 runners cannot go much beyond 1; see docs/rllib.md.

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
import cProfile
import re
import subprocess


def measure(
    config_path: str, runners: int, iterations: int, num_cpus: int | None, profile: str | None = None
) -> dict:
    import ray
    import torch

    from sixtysix_training.common.pool import OpponentPool
    from sixtysix_training.config.loader import load_config
    from sixtysix_training.rllib.league import LEARNER, push
    from sixtysix_training.rllib.train import build_algo, init_ray

    cfg = load_config(config_path, [f"num_env_runners={runners}"], backend="rllib")
    if num_cpus is not None:
        cfg.rllib.num_cpus = num_cpus
    torch.set_num_threads(cfg.shared.torch_threads)  # as `sixtysix train` does
    init_ray(cfg)
    try:
        pool = OpponentPool(cfg.shared.baseline_weights, seed=cfg.shared.seed)
        algo = build_algo(cfg, pool)
        push(algo, pool, {}, cfg.rllib.self_weight, 1, cfg.shared.seed)
        algo.train()  # warm-up: actors started, first batch, first update
        learner = env = 0
        prof = cProfile.Profile() if profile else None
        t0 = time.perf_counter()
        if prof is not None:
            prof.enable()
        for _ in range(iterations):
            r = algo.train()
            learner += r["env_runners"]["num_module_steps_sampled"][LEARNER]
            env += r["env_runners"]["num_env_steps_sampled"]
        if prof is not None:
            prof.disable()
            prof.dump_stats(profile)
        dt = time.perf_counter() - t0
        algo.stop()
    finally:
        ray.shutdown()
    return {
        "runners": runners,
        "learner_sps": learner / dt,
        "env_sps": env / dt,
        "seconds": dt,
        "envs": cfg.rllib.num_envs_per_env_runner,
        "batch": cfg.rllib.train_batch_size,
    }


def sb3_figure(python: str, steps: int) -> str:
    r = subprocess.run(
        [
            python,
            os.path.join(ROOT, "benchmarks", "bench_training.py"),
            "--no-default",
            "--steps",
            str(steps),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    m = re.search(r"configured.*?: ([\d,]+) steps/s", r.stdout)
    if r.returncode != 0 or not m:
        return f"failed: {(r.stderr or r.stdout)[-400:]}"
    return m.group(1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--config", default=os.path.join(ROOT, "configs", "rllib-quickstart.yaml"))
    p.add_argument("--runners", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--iterations", type=int, default=4)
    p.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local Ray")
    p.add_argument("--sb3-python", help="interpreter with the [train] extra, for the SB3 figure")
    p.add_argument("--sb3-steps", type=int, default=65536)
    p.add_argument(
        "--profile",
        metavar="FILE",
        help="write a cProfile of the timed iterations (first runner count) to FILE "
        "(read it with python -m pstats FILE; cProfile slows RLlib's Python machinery most)",
    )
    args = p.parse_args(argv)
    print(f"machine: {os.cpu_count()} CPU cores; config {os.path.relpath(args.config, ROOT)}")
    rows = [
        measure(args.config, n, args.iterations, args.num_cpus, args.profile if i == 0 else None)
        for i, n in enumerate(args.runners)
    ]
    print()
    print("env runners | learner steps/s | env steps/s | timed")
    for r in rows:
        print(
            f"{r['runners']:>11} | {r['learner_sps']:>15,.0f} | {r['env_sps']:>11,.0f} | "
            f"{r['seconds']:.0f} s ({args.iterations} x {r['batch']} env steps, "
            f"{r['envs']} games per runner)"
        )
    if args.sb3_python:
        print(
            f"SB3 backend (bench_training.py, configured): {sb3_figure(args.sb3_python, args.sb3_steps)} steps/s"
        )
    return 0


if __name__ == "__main__":
    say_how_long_at_exit(__file__, _STARTED)
    sys.exit(main())
