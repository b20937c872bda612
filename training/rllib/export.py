"""``sixtysix export`` for a run folder of the RLlib backend.

Training already keeps the best and the latest learner as numpy policies
(``best/policy.npz``, ``latest/policy.npz``, weight copies of the actor:
:mod:`.weights`), so exporting needs neither torch nor ray: it reads one,
adds the metadata record the SB3 path writes (rules, training config and
figures, evaluation at export) and writes the same policy file format.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any

from sixtysix_env.policy import read_policy

from ..common.figures import export_record, print_export, save_exported_policy
from ..common.runs import copy_eval_log, read_json
from ..config.loader import load_config


def _versions() -> dict[str, str]:
    out = {}
    for mod in ("ray", "torch"):
        try:
            out[mod] = __import__(mod).__version__
        except ImportError:
            pass
    return out


def export_run(
    run_dir: str,
    out: str,
    which: str = "best",
    name: str | None = None,
    eval_deals: int = 1000,
    eval_opponents: list[str] | None = None,
    eval_seed: int = 7,
    eval_workers: int = 1,
    plain: bool = False,
) -> dict[str, Any]:
    """Write ``out`` from the run's ``best`` (or ``latest``) policy; returns the metadata.

    The policy is written as the run evaluated it (its option ``play_symmetry``);
    ``plain`` writes the actor alone."""
    src = os.path.join(run_dir, which, "policy.npz")
    if which == "best" and not os.path.exists(src):
        src = os.path.join(run_dir, "latest", "policy.npz")
    if not os.path.exists(src):
        raise FileNotFoundError(f"no {which}/policy.npz (nor latest/policy.npz) in {run_dir!r}")
    network, meta = read_policy(src)
    cfg = load_config(os.path.join(run_dir, "config.yaml"), backend="rllib")
    t = cfg.shared
    if not plain:
        network = network.with_symmetry(t.play_symmetry)  # as the run evaluated it
    summary = read_json(os.path.join(run_dir, "summary.json"))
    training = {
        "algorithm": "PPO (Ray RLlib, new API stack), self-play with an opponent league",
        "steps": int((meta.get("training") or {}).get("steps", 0)),
        "config": json.loads(
            json.dumps({**dataclasses.asdict(t), **dataclasses.asdict(cfg.rllib)})
        ),
        "run": os.path.basename(os.path.abspath(run_dir)),
        "wall_time_s": summary.get("wall_time_s"),
        "steps_per_s": summary.get("steps_per_s"),
        "machine": summary.get("machine"),
        "versions": _versions(),
    }
    run_eval = read_json(os.path.join(os.path.dirname(os.path.abspath(src)), "eval.json"))
    record = export_record(out, name, t.rules, training, run_eval)
    return save_exported_policy(
        out, network, record, t.rules, eval_deals, eval_opponents, eval_seed, eval_workers
    )


def run(args) -> int:
    """``sixtysix export RUN_DIR -o FILE`` for an RLlib run (the arguments of ``sixtysix_training.export``)."""
    import sys

    try:
        record = export_run(
            args.model,
            args.output,
            args.which,
            args.name,
            args.eval_deals,
            args.eval_opponents,
            args.eval_seed,
            args.workers,
            getattr(args, "plain", False),
        )
    except (FileNotFoundError, ValueError) as e:
        print(f"sixtysix export: {e}", file=sys.stderr)
        return 1
    log = None if getattr(args, "no_eval_log", False) else copy_eval_log(args.model, args.output)
    print_export(args.output, record, f"{os.path.join(args.model, args.which)} (RLlib run)", log)
    return 0
