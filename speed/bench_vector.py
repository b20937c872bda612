"""The batched engine side by side with the per-hand environment and OpenSpiel's C++ games.

    python speed/bench_vector.py [--seconds 2] [--rounds 3] [--sizes 64 256 1024 4096]
                                      [--eval-deals 1000] [--no-eval] [--eval-only]

Prints, from one process:

1. **Steps per second against the batch size**: ``gymnasium.make_vec("SixtySix-v0",
   vectorization_mode="vector_entry_point", copy=False)`` with the ``random``
   opponent, every ``step`` call times ``num_envs`` counted (Gymnasium's count:
   the steps that deal a finished game anew count too), observations and masks
   written for every game at every step. The learner's actions are random legal
   ones: a fixed table of random numbers times the mask, argmax per row. Then,
   at the best batch size, the same with ``heuristic`` and ``sixtysix-ppo-v4``
   as the opponent.
2. **Side by side** (interleaved rounds, the median printed): the vector env at
   the best batch size of (1); ``SixtySix-v0`` through Gymnasium's ``sync``
   vectorization (16 copies) and one ``SixtySix-v0`` stepped alone, the
   learner's random legal action drawn from ``info["action_mask"]``; OpenSpiel's
   C++ ``skat`` (observation tensor read at every decision) and ``euchre``
   (information-state tensor) through ``pyspiel``, random legal moves; and the
   ratios.
3. **Paired-deal evaluation** (``--no-eval`` skips it, ``--eval-only`` skips 1 and 2):
   ``sixtysix eval sixtysix-ppo-v5 sixtysix-ppo-v4`` on one worker, per hand (the path before
   the batched engine) and in lock-step (what ``sixtysix eval`` does now),
   hands per second, the ratio, and whether every deal's game points are the
   same; then in lock-step with one matrix product per batch for each policy
   (``BatchedPolicy(exact=False)``: faster, but its float sums run in another
   order, so a near tie can go the other way) and how many deals then differ.
   The same for ``sixtysix-ppo-v4`` against ``sixtysix-ppo-v3``, ``sixtysix-ppo``
   against ``random`` and ``sixtysix-ppo-v4`` against ``heuristic``.
4. **Forward passes** (with 3): ``sixtysix-ppo-v5``'s layers over random 0/1
   observations, computed four ways: each row alone (the agent's path for one
   observation, and what ``argmax_alone`` recomputes at a near tie), in fixed blocks of 4 and of 8
   rows (one matrix product per block, the last block padded with zeros, one
   observation padded to a block), and one matrix product for the whole batch. For
   each: milliseconds per row in a batch of 1,000, milliseconds for one
   observation, whether a row's logits are the same bit for bit in batches of
   other sizes and at other places as alone, and whether they are the agent's own.

Compare ratios, not absolute figures, across machines: the machines this is
run on are shared.

numpy's BLAS runs on one thread (``OPENBLAS_NUM_THREADS=1`` and the like, set before
numpy is imported); it prints how long it took as it ends, on stderr (3 min 18 s with
the defaults on 2 shared cores under load).
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

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402

import sixtysix_env  # noqa: E402,F401  (registers SixtySix-v0)


def vector_rate(num_envs: int, seconds: float, seed: int = 0, opponent="random") -> float:
    env = gymnasium.make_vec("SixtySix-v0", num_envs=num_envs, opponent=opponent,
                             vectorization_mode="vector_entry_point", copy=False)
    obs, _ = env.reset(seed=seed)
    table = np.random.default_rng(seed).random((16, num_envs, 34)).astype(np.float32)
    for k in range(20):  # warm
        obs, *_ = env.step((table[k % 16] * obs["action_mask"]).argmax(1))
    steps, k = 0, 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(10):
            obs, *_ = env.step((table[k % 16] * obs["action_mask"]).argmax(1))
            k += 1
        steps += 10 * num_envs
    return steps / (time.perf_counter() - t0)


def gym_rate(num_envs: int | None, seconds: float, seed: int = 0) -> float:
    """``SixtySix-v0`` alone (None) or through ``sync`` vectorization (``num_envs`` copies)."""
    rng = random.Random(seed)
    if num_envs is None:
        env = gymnasium.make("SixtySix-v0")
        obs, info = env.reset(seed=seed)
        steps = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            for _ in range(100):
                legal = np.flatnonzero(info["action_mask"])
                obs, r, term, trunc, info = env.step(int(legal[rng.randrange(len(legal))]))
                if term or trunc:
                    obs, info = env.reset()
            steps += 100
        return steps / (time.perf_counter() - t0)
    env = gymnasium.make_vec("SixtySix-v0", num_envs=num_envs, vectorization_mode="sync")
    obs, info = env.reset(seed=seed)
    steps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(10):
            acts = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0
                    for m in info["action_mask"]]
            obs, r, term, trunc, info = env.step(np.array(acts))
        steps += 10 * num_envs
    return steps / (time.perf_counter() - t0)


def openspiel_rate(name: str, seconds: float, seed: int = 0) -> float | None:
    """Random legal play of an OpenSpiel game, its tensor read at every decision."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    info_state = not game.get_type().provides_observation_tensor
    rng = random.Random(seed)
    decisions = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                continue
            p = state.current_player()
            if info_state:
                state.information_state_tensor(p)
            else:
                state.observation_tensor(p)
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            decisions += 1
    return decisions / (time.perf_counter() - t0)


def eval_rates(agents: list[str], deals: int, seed: int) -> list[tuple[float, list]]:
    """Hands per second and the records of one evaluation per hand, in lock-step, and in
    lock-step with one matrix product per batch for the policies (``exact=False``)."""
    from sixtysix_env.agents import make_agent
    from sixtysix_env.agents.batch import BatchedPolicy
    from sixtysix_env.evaluation import runner
    from sixtysix_env.policy.agent import PolicyAgent

    def loose(name):
        agent = make_agent(name)
        return BatchedPolicy(agent, exact=False) if isinstance(agent, PolicyAgent) else agent

    out = []
    for way in ("per hand", "lock-step", "one product"):
        keep = runner.batchable
        if way == "per hand":
            runner.batchable = lambda mode, built: False
        specs = [loose(a) for a in agents] if way == "one product" else agents
        records: list = []
        try:
            runner.evaluate(specs, deals=20, seed=seed + 1)  # load the agents and kernels once
            t0 = time.perf_counter()
            runner.evaluate(specs, deals=deals, seed=seed, on_record=records.append)
            out.append((2 * deals / (time.perf_counter() - t0),
                        sorted((r.index, r.gp) for r in records)))
        finally:
            runner.batchable = keep
    return out


def _blocks(net, x: np.ndarray, size: int) -> np.ndarray:
    """The layers over rows in blocks of ``size`` (the last padded with zeros), one matrix
    product per block and layer."""
    padded = np.zeros((-(-len(x) // size) * size, x.shape[1]), np.float32)
    padded[:len(x)] = x
    out = net.layer_logits(padded.reshape(-1, size, x.shape[1]))
    return out.reshape(len(padded), -1)[:len(x)]


FORWARDS = {
    "each row alone (one observation's product)":
        lambda net, x: net.layer_logits(x[:, None, :])[:, 0],
    "blocks of 4 rows": lambda net, x: _blocks(net, x, 4),
    "blocks of 8 rows": lambda net, x: _blocks(net, x, 8),
    "one product for the batch (lock-step's first pass)": lambda net, x: net.layer_logits(x),
}


def forward_table(name: str = "sixtysix-ppo-v5", rows: int = 1000, seed: int = 0) -> None:
    """Section 4: each of :data:`FORWARDS` over ``name``'s layers."""
    from sixtysix_env.policy import read_policy
    from sixtysix_env.policy.observation import OBS_SIZE
    from sixtysix_env.policy.shipped import shipped_policies

    net = read_policy(shipped_policies()[name].path)[0]
    rng = np.random.default_rng(seed)
    x = (rng.random((rows, OBS_SIZE)) < 0.3).astype(np.float32)
    own = np.stack([net.layer_logits(row) for row in x[:200]])  # PolicyAgent.act's pass
    print(f"| forward pass | ms per row, batch of {rows:,} | ms for one observation "
          "| a row's logits the same in any batch as alone | the agent's own |")
    print("|---|---:|---:|---|---|")
    for label, f in FORWARDS.items():
        alone = np.concatenate([f(net, x[i:i + 1]) for i in range(200)])
        batch, one = [], []
        for _ in range(3):
            t0 = time.perf_counter()
            f(net, x)
            batch.append((time.perf_counter() - t0) / rows)
            t0 = time.perf_counter()
            for i in range(50):
                f(net, x[i:i + 1])
            one.append((time.perf_counter() - t0) / 50)
        same = all(np.array_equal(f(net, x[picks])[:len(picks)], alone[picks])
                   for size in (2, 7, 9, 13, 200)
                   for picks in (rng.permutation(200)[:size],))
        print(f"| {label} | {statistics.median(batch) * 1e3:.4f} | "
              f"{statistics.median(one) * 1e3:.3f} | {'yes' if same else 'NO'} | "
              f"{'yes' if np.array_equal(alone, own) else 'NO'} |", flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", type=int, nargs="+", default=[16, 64, 256, 1024, 4096, 16384])
    ap.add_argument("--eval-deals", type=int, default=1000)
    ap.add_argument("--no-eval", action="store_true")
    ap.add_argument("--eval-only", action="store_true", help="only sections 3 and 4")
    args = ap.parse_args(argv)
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, numpy {np.__version__}")
    if not args.eval_only:
        vector_sections(args)
    if not args.no_eval:
        eval_section(args.eval_deals)
        print("\n## 4. Forward passes of sixtysix-ppo-v5's layers, one BLAS thread\n")
        forward_table()


def vector_sections(args) -> None:
    """Sections 1, 1b and 2."""
    print("\n## 1. The vector environment's steps per second against num_envs (random opponent)\n")
    print("| num_envs | steps/s |")
    print("|---:|---:|")
    curve = {}
    for n in args.sizes:
        curve[n] = vector_rate(n, args.seconds)
        print(f"| {n:,} | {curve[n]:,.0f} |", flush=True)
    best = max(curve, key=curve.get)

    from sixtysix_env.agents import make_agent
    from sixtysix_env.agents.batch import BatchedPolicy

    print(f"\n## 1b. Other opponents, num_envs={best:,}\n")
    print("| opponent | steps/s |")
    print("|---|---:|")
    v4 = make_agent("sixtysix-ppo-v4")
    for label, opp in (("heuristic (compiled)", "heuristic"),
                       ("sixtysix-ppo-v4, each row as the agent computes it", v4),
                       ("sixtysix-ppo-v4, one matrix product (exact=False)",
                        BatchedPolicy(v4, exact=False))):
        print(f"| {label} | {vector_rate(best, args.seconds, opponent=opp):,.0f} |", flush=True)

    print(f"\n## 2. Side by side ({args.rounds} interleaved rounds of {args.seconds:g} s, median)\n")
    runs = {
        f"SixtySix-v0 vector_entry_point, num_envs={best:,}": lambda: vector_rate(best, args.seconds),
        "SixtySix-v0 sync vectorization, num_envs=16": lambda: gym_rate(16, args.seconds),
        "SixtySix-v0, one env": lambda: gym_rate(None, args.seconds),
        "OpenSpiel skat (C++, observation tensor)": lambda: openspiel_rate("skat", args.seconds),
        "OpenSpiel euchre (C++, information-state tensor)":
            lambda: openspiel_rate("euchre", args.seconds),
    }
    rates: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(args.rounds):
        for k, f in runs.items():
            r = f()
            if r is not None:
                rates[k].append(r)
    med = {k: statistics.median(v) for k, v in rates.items() if v}
    top = med[next(iter(runs))]
    print("| environment | steps (decisions)/s | the vector env is |")
    print("|---|---:|---:|")
    for k in runs:
        if k in med:
            print(f"| {k} | {med[k]:,.0f} | {top / med[k]:,.1f}x |")
        else:
            print(f"| {k} | not installed (pip install open-spiel) | |")



def eval_section(deals: int) -> None:
    """Section 3."""
    print(f"\n## 3. Paired-deal evaluation, one worker, {deals:,} deals "
          "(sixtysix eval A B --workers 1)\n")
    print("| A vs B | per hand, hands/s | lock-step, hands/s | ratio | same game points "
          "| one product per batch, hands/s | ratio | deals whose game points differ |")
    print("|---|---:|---:|---:|---|---:|---:|---:|")
    for pair in (["sixtysix-ppo-v5", "sixtysix-ppo-v4"], ["sixtysix-ppo-v4", "sixtysix-ppo-v3"],
                 ["sixtysix-ppo", "random"], ["sixtysix-ppo-v4", "heuristic"]):
        (old, r0), (new, r1), (fast, r2) = eval_rates(pair, deals, seed=11)
        differ = sum(a != b for a, b in zip(r0, r2))
        print(f"| {' vs '.join(pair)} | {old:,.0f} | {new:,.0f} | {new / old:.1f}x | "
              f"{'yes, every deal' if r0 == r1 else 'NO'} | {fast:,.0f} | {fast / old:.1f}x | "
              f"{differ} of {len(r0)} |", flush=True)


if __name__ == "__main__":
    say_how_long_at_exit(__file__, _STARTED)
    main()
