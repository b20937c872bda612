"""Distillation of a search agent into a trained policy (DAgger, one round).

An experiment: PPO against the heuristic stays below what the ``expert``
search bot reaches against the same opponent, and imitating the expert on
the learner's own states is one way to close that gap. Its first measured
round (about 16,000 labels) made the policy worse, mostly by closing the
stock too often (see ``checkpoints/sixtysix-ppo.md``); nothing shipped uses it.

1. ``collect``: the *learner* (a policy file) plays hands against an
   opponent; at every decision of the learner with more than one legal
   action the *teacher* (e.g. ``expert``) is asked what it would play in the
   same view, and (observation, mask, teacher action) is recorded. The
   learner's own move is played, so the states are the ones the learner
   meets (DAgger's roll-in), not the teacher's. Work is split over worker
   processes by hand index, so the data do not depend on the worker count.
2. ``fit``: the saved MaskablePPO model of a run is fitted to the teacher's
   actions by cross-entropy over the legal actions (a few epochs at a small
   learning rate), and written as a new run folder whose ``best/`` and
   ``latest/`` hold the result, so ``sixtysix export`` and ``--resume`` work
   on it as on any run.

    python -m research.distill collect --learner checkpoints/sixtysix-ppo.npz \\
        --teacher expert --opponent heuristic --hands 4000 --seed 1 --workers 2 \\
        -o runs/distill-data.npz
    python -m research.distill fit --run runs/full --data runs/distill-data.npz \\
        -o runs/full-distilled
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from sixtysix_env.agents import make_agent
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.rules import make_rules
from sixtysix_env.game.view import player_view
from sixtysix_env.policy.observation import OBS_VERSION, observe_view
from sixtysix_env.util.progress import progress_bar
from sixtysix_training.common.bc import stack_records

DATA_FORMAT = "sixtysix-distill-data/1"
_CHUNK = 50  # hands per task handed to a worker


def _collect_chunk(args: tuple[str, str, str, str, int, int, int]) -> dict[str, np.ndarray]:
    learner_spec, teacher_spec, opponent_spec, rules, seed, first, count = args
    cfg = make_rules(rules)
    learner = make_agent(learner_spec)
    teacher = make_agent(teacher_spec)
    opponent = make_agent(opponent_spec)
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    agree = 0
    for h in range(first, first + count):
        rng = random.Random(f"sixtysix-distill:{seed}:{h}")
        seat = h % 2  # the learner's seat alternates with the hand index
        state = new_hand(rng, rng.randrange(2), cfg)
        rngs = [random.Random(rng.random()) for _ in range(3)]
        while state.result is None:
            p = state.current_player()
            view = player_view(state, p)
            if p == seat:
                a = learner.act(view, rngs[0])
                legal = view.legal_mask
                if legal & (legal - 1):  # more than one legal action
                    t = teacher.act(view, rngs[2])
                    ov = observe_view(view)
                    obs.append(ov["observation"])
                    masks.append(ov["action_mask"])
                    actions.append(int(t))
                    agree += int(t == a)
            else:
                a = opponent.act(view, rngs[1])
            state = state.apply(a)
    obs_arr, mask_arr = stack_records(obs, masks)
    return {
        "obs": obs_arr,
        "masks": mask_arr,
        "actions": np.array(actions, dtype=np.int64),
        "agree": np.array([agree], dtype=np.int64),
    }


def collect(
    learner: str,
    teacher: str,
    opponent: str,
    hands: int,
    rules: str = "altmisalti",
    seed: int = 0,
    workers: int = 1,
    progress: bool = True,
) -> dict[str, Any]:
    """Teacher-labelled decisions from ``hands`` hands of ``learner`` vs ``opponent``."""
    for spec in (learner, teacher, opponent):
        make_agent(spec)  # a bad name fails here, before any work
    tasks = [
        (learner, teacher, opponent, rules, seed, first, min(_CHUNK, hands - first))
        for first in range(0, hands, _CHUNK)
    ]
    bar = progress_bar(hands, f"labelling with {teacher}", "hand") if progress else None
    parts: list[dict[str, np.ndarray]] = []
    t0 = time.perf_counter()
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            for part, task in zip(pool.map(_collect_chunk, tasks), tasks):
                parts.append(part)
                if bar is not None:
                    bar.update(task[-1])
    else:
        for task in tasks:
            parts.append(_collect_chunk(task))
            if bar is not None:
                bar.update(task[-1])
    if bar is not None:
        bar.close()
    data = {k: np.concatenate([p[k] for p in parts]) for k in ("obs", "masks", "actions")}
    n = len(data["actions"])
    agree = int(sum(int(p["agree"][0]) for p in parts))
    meta = labelled_meta(
        DATA_FORMAT, learner, teacher, opponent, hands, rules, seed,
        decisions=n, learner_agreement=agree / n if n else None,
        seconds=time.perf_counter() - t0,
    )
    return {"data": data, "meta": meta}


def labelled_meta(
    data_format: str, learner: str, teacher: str, opponent: str, hands: int, rules: str,
    seed: int, **more: Any,
) -> dict[str, Any]:
    """The ``meta`` record of a labelled data file (this script's, ``distill_soft``'s): its
    format and observation version, who played and who labelled, the hands, rules and seed,
    then ``more``."""
    return {
        "format": data_format,
        "obs_version": OBS_VERSION,
        "learner": learner,
        "teacher": teacher,
        "opponent": opponent,
        "hands": hands,
        "rules": rules,
        "seed": seed,
        **more,
    }


def save_data(result: dict[str, Any], path: str) -> None:
    d = result["data"]
    np.savez_compressed(
        path,
        obs=d["obs"],
        masks=d["masks"],
        actions=d["actions"],
        meta=np.array(json.dumps(result["meta"])),
    )


def read_meta(z: Any, path: str, data_format: str, what: str) -> dict[str, Any]:
    """The ``meta`` record of an open data archive, checked against ``data_format`` and the
    observation version (``what`` names the kind of file in the error)."""
    if "meta" not in z.files:
        raise ValueError(f"{path}: not {what} (no 'meta' record)")
    meta = json.loads(str(z["meta"]))
    if meta.get("format") != data_format or meta.get("obs_version") != OBS_VERSION:
        raise ValueError(
            f"{path}: data format {meta.get('format')!r} / observation version "
            f"{meta.get('obs_version')!r}; this code reads {data_format!r} / {OBS_VERSION}"
        )
    return meta


def load_data(
    paths: list[str],
    fmt: str = DATA_FORMAT,
    what: str = "a distillation data file",
    keys: tuple[str, ...] | None = ("obs", "masks", "actions"),
) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """Concatenate the ``keys`` arrays (None: all but the metadata) of data files of
    format ``fmt`` (by default written by ``collect``); refuse other files, naming ``what``
    was expected. Also each file's metadata."""
    parts, metas = [], []
    for path in paths:
        with np.load(path, allow_pickle=False) as z:
            metas.append(read_meta(z, path, fmt, what))
            parts.append({k: z[k] for k in (keys or [k for k in z.files if k != "meta"])})
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    return data, metas


def add_collect_arguments(parser: argparse.ArgumentParser, hands: int) -> None:
    """The options of a labelling run (``collect`` here and in ``distill_soft``): the learner
    that plays, the teacher that labels, the opponent, the hands (default ``hands``), the
    rules and the seed; :func:`collect_arguments` reads them."""
    parser.add_argument("--learner", required=True, help="policy file (or agent name) that plays")
    parser.add_argument("--teacher", default="expert", help="agent whose actions are the labels")
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--hands", type=int, default=hands)
    parser.add_argument("--rules", default="altmisalti")
    parser.add_argument("--seed", type=int, default=0)


def collect_arguments(args: argparse.Namespace) -> tuple[str, str, str, int, str, int]:
    """(learner, teacher, opponent, hands, rules, seed) of :func:`add_collect_arguments`."""
    return args.learner, args.teacher, args.opponent, args.hands, args.rules, args.seed


def add_fit_arguments(
    parser: argparse.ArgumentParser,
    epochs: int,
    learning_rate: float,
    batch_size: int,
    val_fraction: float,
) -> None:
    """The options of a fit (``fit`` here, in ``distill_soft`` and in ``endgame_fit``), with
    their defaults: epochs, learning rate, batch size, seed and the share held out;
    :func:`fit_arguments` reads them."""
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--learning-rate", type=float, default=learning_rate)
    parser.add_argument("--batch-size", type=int, default=batch_size)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--val-fraction", type=float, default=val_fraction, help="share held out for accuracy"
    )


def fit_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of a ``fit`` from :func:`add_fit_arguments`'s options."""
    return {
        "epochs": args.epochs,
        "learning_rate": args.learning_rate,
        "batch_size": args.batch_size,
        "seed": args.seed,
        "val_fraction": args.val_fraction,
    }


def fit(
    run_dir: str,
    data_paths: list[str],
    out_dir: str,
    epochs: int = 3,
    learning_rate: float = 1e-4,
    batch_size: int = 256,
    seed: int = 0,
    source: str = "best",
    val_fraction: float = 0.1,
) -> dict[str, Any]:
    """Fit the run's ``source`` model to the teacher's actions; write ``out_dir``."""
    from sixtysix_training.common.bc import pretrain
    from sixtysix_training.sb3.model_file import load_model
    from sixtysix_training.sb3.policy import SB3ActorCritic

    if os.path.exists(out_dir):
        raise FileExistsError(f"{out_dir!r} exists; choose another output folder")
    data, metas = load_data(data_paths)
    model = load_model(os.path.join(run_dir, source, "model.zip"))
    # Only the actor is fitted: the value network gets no gradient from this loss.
    stats = pretrain(
        SB3ActorCritic(model.policy),
        data,
        epochs,
        batch_size,
        learning_rate,
        fit_value=False,
        seed=seed,
        val_fraction=val_fraction,
    )

    shutil.copytree(run_dir, out_dir, ignore=shutil.ignore_patterns("tb", "policy.npz"))
    for sub in ("best", "latest"):
        model.save(os.path.join(out_dir, sub, "model.zip"))
    # The source's evaluation of its best model no longer describes this one, and a
    # resumed PPO run must not compare its scores with the source's best.
    stale = os.path.join(out_dir, "best", "eval.json")
    if os.path.exists(stale):
        os.remove(stale)
    state_path = os.path.join(out_dir, "latest", "state.json")
    if os.path.exists(state_path):
        with open(state_path, encoding="utf-8") as f:
            state = json.load(f)
        state.pop("best_score", None)
        state.pop("best_steps", None)
        state["steps"] = int(model.num_timesteps)
        with open(state_path, "w", encoding="utf-8") as f:
            json.dump(state, f, indent=2)
    record = {
        "source_run": run_dir,
        "source_model": source,
        "steps": int(model.num_timesteps),
        "data": metas,
        "epochs": epochs,
        "learning_rate": learning_rate,
        "batch_size": batch_size,
        "seed": seed,
        "decisions": len(data["actions"]),
        "held_out": len(data["actions"]) - stats["decisions"],
        "history": stats["epochs"],
        "fit_seconds": stats["seconds"],
    }
    with open(os.path.join(out_dir, "distill.json"), "w", encoding="utf-8") as f:
        json.dump(record, f, indent=2)
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m research.distill", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="label the learner's decisions with the teacher's")
    add_collect_arguments(c, hands=4000)
    c.add_argument("--workers", type=int, default=1)
    c.add_argument("-o", "--out", required=True)
    f = sub.add_parser("fit", help="fit a run's model to labelled data; write a new run folder")
    f.add_argument("--run", required=True)
    f.add_argument("--data", nargs="+", required=True)
    f.add_argument("-o", "--out", required=True)
    add_fit_arguments(f, epochs=3, learning_rate=1e-4, batch_size=256, val_fraction=0.1)
    f.add_argument("--source", choices=("best", "latest"), default="best")
    args = parser.parse_args(argv)
    if args.cmd == "collect":
        res = collect(*collect_arguments(args), args.workers)
        save_data(res, args.out)
        print(json.dumps(res["meta"], indent=2))
    else:
        rec = fit(args.run, args.data, args.out, source=args.source, **fit_arguments(args))
        print(json.dumps({k: v for k, v in rec.items() if k != "data"}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
