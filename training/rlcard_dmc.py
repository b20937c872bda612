"""RLCard's Deep Monte-Carlo (DMC, as in DouZero) on Sixty-Six, and its network as a policy file.

Train (RLCard's DMC actor, batches, learning step and model on
:mod:`sixtysix_env.env.rlcard`, bounded in frames or minutes: :func:`train`), then export the network to the project's numpy policy format, so that it
is an agent like any other (``sixtysix eval my-dmc.npz heuristic``, ``play``,
``benchmark``; no torch needed to play it)::

    python -m sixtysix_training.rlcard_dmc train --out runs/dmc --minutes 25
    python -m sixtysix_training.rlcard_dmc export runs/dmc/sixtysix/model.tar -o my-dmc.npz

DMC learns Q(s, a) with one network per position that reads the observation and the
action one-hot side by side. The export is exact, not a distillation: the policy
file's network computes Q(s, a) for all 34 actions at once, one copy of DMC's hidden
layers per action (the first layer's action columns become that copy's biases, the
deeper layers block-diagonal), and its logits are the Q-values, so its argmax over
the legal actions is DMC's greedy move. Hidden layers of width h make a file of
about 349·34h + (34h)² per deeper layer parameters: keep them small (64, 64 gives
5.6M, mostly zeros that the compressed file does not store).

RLCard's DMC stores the states it learns from as int8 (its games' observations are
0/1); the project's observation has fractions (points / 120, ...), which int8 would
round to 0: :func:`train` keeps them as float32. Needs ``pip install "rlcard[torch]"``
(its DMC imports GitPython).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import threading
import time
from collections import deque
from typing import Any

import numpy as np

from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.game.rules import make_rules
from sixtysix_env.policy import PolicyNetwork, save_policy
from sixtysix_env.policy.observation import OBS_SIZE

#: The settings used here unless told otherwise (``DMCTrainer``'s defaults, but for the
#: network, five layers of 512 there, and the actors, 5 there).
SMALL: dict[str, Any] = {
    "mlp_layers": (64, 64), "num_actors": 1, "unroll_length": 100, "batch_size": 32,
    "num_buffers": 50, "learning_rate": 1e-4, "exp_epsilon": 0.01,
}


def _env_and_model(rules: str, seed: int, layers: list[int], exp_epsilon: float):
    import rlcard
    from rlcard.agents.dmc_agent.model import DMCModel

    import sixtysix_env.env.rlcard  # noqa: F401  (registers "sixtysix")

    env = rlcard.make("sixtysix", config={"seed": seed, "game_rules": rules})
    action_shape = [[env.num_actions] for _ in range(env.num_players)]  # one-hot actions

    def model() -> DMCModel:
        return DMCModel(env.state_shape, action_shape, mlp_layers=layers,
                        exp_epsilon=exp_epsilon, device="cpu")

    return env, action_shape, model


def _settings(settings: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(settings) - set(SMALL))
    if unknown:
        raise ValueError(
            f"unknown DMC setting(s) {', '.join(unknown)}; allowed: {', '.join(sorted(SMALL))}"
        )
    return {**SMALL, **settings}


def train(savedir: str, rules: str = "altmisalti", seed: int = 0, total_frames: int = 10**12,
          minutes: float | None = None, **settings: Any) -> dict[str, Any]:
    """DMC on Sixty-Six on the CPU, to ``total_frames`` or for ``minutes``, whichever ends
    first; writes ``savedir/sixtysix/model.tar`` in ``DMCTrainer``'s format and returns
    the frames and the wall time. ``settings`` override :data:`SMALL`.

    RLCard's own pieces do the work (its actor processes, ``act``; its batches,
    ``get_batch``; its learning step, ``learn``; its model and optimizers; one learner
    thread per position, as ``DMCTrainer`` has: the two positions' networks play
    differently, so one position can fill its buffers faster than the other, and a
    single loop taking the positions in turn waits for the slow one while the actor
    waits for a free buffer of the fast one). The stopping is this module's, because
    ``DMCTrainer.start()`` cannot stop: at its frame bound one position's thread waits
    for a batch that the actor, blocked on the other position's full buffers, never
    sends, and its actor processes outlive it. Here the actors are ended, the model is
    saved under the learning locks, and a learner thread still waiting for a batch is
    left to end with the process (a daemon).
    """
    s = _settings(settings)
    run, actors = _new_run(s, rules, seed, total_frames)
    T, n = s["unroll_length"], len(run["locks"])
    start = time.perf_counter()
    deadline = start + minutes * 60 if minutes is not None else float("inf")
    for actor in actors:
        actor.start()
    for p in range(n):
        threading.Thread(target=_learner, args=(run, p, T, s["batch_size"]), daemon=True,
                         name=f"dmc-learner-{p}").start()
    try:
        while not run["stop"].wait(1.0) and time.perf_counter() < deadline:
            pass
    finally:
        run["stop"].set()
        for actor in actors:
            actor.terminate()
            actor.join()
    wall = time.perf_counter() - start
    with contextlib.ExitStack() as held:
        for lock in run["locks"]:
            held.enter_context(lock)
        _save(os.path.join(savedir, "sixtysix"), run)
    stats = run["stats"]
    return {"frames": run["frames"], "wall_time_s": round(wall, 1),
            "loss": [round(stats[f"loss_{p}"], 4) if f"loss_{p}" in stats else None
                     for p in range(n)]}


def _new_run(s: dict[str, Any], rules: str, seed: int, total_frames: int) -> tuple[dict, list]:
    """The run's shared state (models, optimizers, buffers, queues, locks) and its actor
    processes, not started: RLCard's pieces set up as ``DMCTrainer.start()`` sets them up."""
    import torch
    from rlcard.agents.dmc_agent import utils

    env, action_shape, model = _env_and_model(rules, seed, list(s["mlp_layers"]),
                                              s["exp_epsilon"])
    T, n = s["unroll_length"], env.num_players
    run = {"actor": model(), "learner": model(), "stats": {}, "frames": 0,
           "stop": threading.Event(), "locks": [threading.Lock() for _ in range(n)],
           "returns": [deque(maxlen=100) for _ in range(n)], "total": total_frames}
    run["actor"].share_memory()
    run["actor"].eval()
    run["buffers"] = _float_buffers(utils.create_buffers(
        T, s["num_buffers"], env.state_shape, action_shape, ["cpu"]))["cpu"]
    run["optimizers"] = utils.create_optimizers(n, s["learning_rate"], 0, 1e-5, 0.99,
                                                run["learner"])
    ctx = torch.multiprocessing.get_context("spawn")
    run["free"], run["full"] = ([ctx.SimpleQueue() for _ in range(n)] for _ in range(2))
    for m in range(s["num_buffers"]):
        for p in range(n):
            run["free"][p].put(m)
    actors = [ctx.Process(target=utils.act, daemon=True, args=(
        i, "cpu", T, run["free"], run["full"], run["actor"], run["buffers"], env))
        for i in range(s["num_actors"])]
    return run, actors


def _learner(run: dict, p: int, T: int, B: int) -> None:
    """Position ``p``'s learner thread: RLCard's ``get_batch`` and ``learn`` until stopped."""
    from rlcard.agents.dmc_agent import utils
    from rlcard.agents.dmc_agent.trainer import learn

    batch_lock = threading.Lock()
    while not run["stop"].is_set():
        batch = utils.get_batch(run["free"][p], run["full"][p], run["buffers"][p], B,
                                batch_lock)
        if run["stop"].is_set():
            return
        stats = learn(p, {"cpu": run["actor"]}, run["learner"].get_agent(p), batch,
                      run["optimizers"][p], "cpu", 40, run["returns"], run["locks"][p])
        with run["locks"][p]:
            run["stats"].update(stats)
            run["frames"] += T * B
            if run["frames"] >= run["total"]:
                run["stop"].set()


def _float_buffers(buffers: dict) -> dict:
    """RLCard's buffers with the states kept as float32 (it makes them int8)."""
    import torch

    for per_device in buffers.values():
        for position in per_device:
            position["state"] = [torch.empty(b.shape, dtype=torch.float32).share_memory_()
                                 for b in position["state"]]
    return buffers


def _save(folder: str, run: dict) -> None:
    """``model.tar`` as ``DMCTrainer`` writes it (``load_model=True`` resumes from it)."""
    import torch

    os.makedirs(folder, exist_ok=True)
    torch.save({
        "model_state_dict": [a.state_dict() for a in run["learner"].get_agents()],
        "optimizer_state_dict": [o.state_dict() for o in run["optimizers"]],
        "stats": dict(run["stats"]),
        "frames": run["frames"],
    }, os.path.join(folder, "model.tar"))


def _layers(state_dict: dict) -> list[tuple[np.ndarray, np.ndarray]]:
    """DMC's ``fc_layers`` as (weight [out, in], bias) pairs, in order."""
    keys = sorted({k.rsplit(".", 1)[0] for k in state_dict}, key=lambda k: int(k.split(".")[1]))
    return [
        (np.asarray(state_dict[k + ".weight"], np.float64),
         np.asarray(state_dict[k + ".bias"], np.float64))
        for k in keys
    ]


def q_network(state_dict: dict) -> PolicyNetwork:
    """The policy network whose logits are DMC's Q(s, a) for every action (exactly)."""
    layers = _layers(state_dict)
    w1, b1 = layers[0]
    if w1.shape[1] != OBS_SIZE + NUM_ACTIONS or layers[-1][0].shape[0] != 1:
        raise ValueError(
            f"not a DMC network of this game: its first layer reads {w1.shape[1]} values "
            f"(the observation and the action one-hot: {OBS_SIZE + NUM_ACTIONS})"
        )
    eye = np.eye(NUM_ACTIONS)
    weights = [np.tile(w1[:, :OBS_SIZE].T, (1, NUM_ACTIONS))]
    biases = [(b1[None, :] + w1[:, OBS_SIZE:].T).reshape(-1)]
    for w, b in layers[1:]:
        weights.append(np.kron(eye, w.T))
        biases.append(np.tile(b, NUM_ACTIONS))
    return PolicyNetwork(weights, biases, "relu")


def export(checkpoint: str, out: str, name: str | None = None,
           training: dict[str, Any] | None = None) -> dict[str, Any]:
    """Write DMC's network (position 0's: both positions play either seat) from the
    trainer's ``model.tar`` to the policy file ``out``; returns its metadata."""
    import torch

    saved = torch.load(checkpoint, map_location="cpu", weights_only=True)
    state_dict = {k: v.numpy() for k, v in saved["model_state_dict"][0].items()}
    info = dict(training or {})
    rules = make_rules(info.pop("rules", "altmisalti"))
    record = {
        "name": name or os.path.splitext(os.path.basename(out))[0],
        "rule_preset": rules.name,
        "rules": rules.to_dict(),
        "training": {"algorithm": "rlcard-dmc", "steps": int(saved["frames"]), **info},
    }
    return save_policy(out, q_network(state_dict), record)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m sixtysix_training.rlcard_dmc", description=__doc__
                                .split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="train DMC; writes OUT/sixtysix/model.tar and OUT/run.json")
    t.add_argument("--out", required=True)
    t.add_argument("--rules", default="altmisalti")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--minutes", type=float, help="stop after this long (at most --frames)")
    t.add_argument("--frames", type=int, default=10**12, help="stop after this many frames")
    t.add_argument("--hidden", type=int, nargs="+", default=list(SMALL["mlp_layers"]))
    t.add_argument("--lr", type=float, default=SMALL["learning_rate"], help="RMSprop's rate")
    e = sub.add_parser("export", help="a trainer's model.tar as a policy file")
    e.add_argument("checkpoint")
    e.add_argument("-o", "--out", required=True)
    e.add_argument("--name")
    args = p.parse_args(argv)
    if args.command == "train":
        import torch

        torch.set_num_threads(1)
        run = {"rules": args.rules, "seed": args.seed, "hidden": args.hidden, "lr": args.lr,
               **train(args.out, args.rules, args.seed, args.frames, args.minutes,
                       mlp_layers=args.hidden, learning_rate=args.lr)}
        with open(os.path.join(args.out, "run.json"), "w") as f:
            json.dump(run, f, indent=1)
        print(json.dumps(run))
        return 0
    run_file = os.path.join(os.path.dirname(os.path.dirname(args.checkpoint)), "run.json")
    info = {}
    if os.path.isfile(run_file):
        with open(run_file, encoding="utf-8") as f:
            info = json.load(f)
    record = export(args.checkpoint, args.out, args.name, info)
    print(f"wrote {args.out}: {record['architecture']['layers']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
