"""A ``sixtysix train`` SB3 run's MaskablePPO model, or any SB3 model, as a numpy policy file.

The file holds the policy network (observation -> hidden layers -> action
logits; the value network is left out) and a metadata record: observation
version, action count, rules, architecture, the training config and steps,
and evaluation figures measured at export on paired deals (see
:mod:`sixtysix_env.policy` for the format). It plays with numpy alone.

The steps live by job: :mod:`..common.runs` (a run folder's model, config and
records), :mod:`..common.numpy_policy` (the torch actor as a numpy network) and
:mod:`..common.figures` (the evaluation recorded at export); this module
writes the file. ``sixtysix export`` (:mod:`sixtysix_training.export`) sends
SB3 runs and models here.

A model saved by Stable-Baselines3 outside a run (``MaskablePPO``, ``PPO``,
``A2C`` or ``DQN``, with ``MultiInputPolicy`` on SixtySix-v0's ``Dict``
observation or ``MlpPolicy`` on the flat one) is read by
:mod:`sixtysix_env.policy.sb3` instead: the same numpy network that ``sixtysix
eval my_model.zip`` plays, written as a policy file (format version 3 where it
reads the action mask, as a ``CombinedExtractor`` does).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from sixtysix_env.policy import read_policy
from sixtysix_env.policy.sb3 import SB3ModelError, read_sb3_model

from ..common.figures import export_record, print_export, save_exported_policy
from ..common.numpy_policy import ExportError, network_from_policy
from ..common.runs import (
    copy_eval_log,
    distillation,
    find_model,
    read_json,
    run_config,
    snapshot_file,
)
from ..config.loader import TrainConfig, flat_options
from .model_file import OWN_POLICY_MODULES, ModelFileError, load_model, read_data_record

__all__ = ["export_model", "export_sb3_file", "is_foreign_model", "run"]


def _versions() -> dict[str, str]:
    import sb3_contrib
    import stable_baselines3
    import torch

    return {
        "torch": torch.__version__,
        "stable_baselines3": stable_baselines3.__version__,
        "sb3_contrib": sb3_contrib.__version__,
    }


def _jsonable(cfg: TrainConfig) -> dict:
    """The config as a policy file's training record holds it: every option, flat."""
    return json.loads(json.dumps(flat_options(cfg)))


def _training_record(
    steps: int, cfg: TrainConfig | None, run_dir: str | None, summary: dict
) -> dict[str, Any]:
    """How the policy was trained: algorithm, steps, config, run, time, machine, versions."""
    return {
        "algorithm": "MaskablePPO (sb3-contrib), self-play with an opponent pool",
        "steps": steps,
        "config": None if cfg is None else _jsonable(cfg),
        "run": None if run_dir is None else os.path.basename(os.path.abspath(run_dir)),
        "wall_time_s": summary.get("wall_time_s"),
        "steps_per_s": summary.get("steps_per_s"),
        "bc": summary.get("bc"),
        "distillation": distillation(run_dir),
        "machine": summary.get("machine"),
        "versions": _versions(),
    }


def export_model(
    model_path: str,
    out: str,
    run_dir: str | None = None,
    name: str | None = None,
    eval_deals: int = 1000,
    eval_opponents: list[str] | None = None,
    eval_seed: int = 7,
    eval_workers: int = 1,
    plain: bool = False,
    rules: str | None = None,
) -> dict[str, Any]:
    """Export ``model_path`` to ``out``; returns the metadata record written.

    A run's policy is written as the run evaluated it (its option ``play_symmetry``);
    ``plain`` writes the actor alone (one forward pass per decision). ``rules``: the preset
    a model outside a run was trained for (a run's config names its own)."""
    cfg: TrainConfig | None = None
    summary: dict = {}
    run_eval: dict = {}
    if run_dir is not None:
        cfg = run_config(run_dir)
        summary = read_json(os.path.join(run_dir, "summary.json"))
        model_dir = os.path.dirname(os.path.abspath(model_path))
        run_eval = read_json(os.path.join(model_dir, "eval.json"))
    model = load_model(model_path)
    network = network_from_policy(model.policy)
    if cfg is not None and not plain:  # as the run evaluated it (option play_symmetry)
        network = network.with_symmetry(cfg.shared.play_symmetry)
    rules = cfg.shared.rules if cfg is not None else (rules or "altmisalti")
    training = _training_record(int(model.num_timesteps), cfg, run_dir, summary)
    record = export_record(out, name, rules, training, run_eval)
    return save_exported_policy(
        out, network, record, rules, eval_deals, eval_opponents, eval_seed, eval_workers
    )


def is_foreign_model(model_path: str, run_dir: str | None) -> bool:
    """Whether ``model_path`` is an SB3 model saved outside a ``sixtysix train`` run (read by
    :mod:`sixtysix_env.policy.sb3`), rather than a run's own model."""
    if run_dir is not None or not model_path.endswith(".zip"):
        return False
    try:
        policy_class = read_data_record(model_path).get("policy_class")
    except ModelFileError:
        return False
    module = policy_class.get("__module__") if isinstance(policy_class, dict) else None
    return module not in OWN_POLICY_MODULES


def export_sb3_file(
    model_path: str,
    out: str,
    name: str | None = None,
    eval_deals: int = 1000,
    eval_opponents: list[str] | None = None,
    eval_seed: int = 7,
    eval_workers: int = 1,
    rules: str = "altmisalti",
) -> dict[str, Any]:
    """Export an SB3 model saved outside a run (see the module docstring); returns the record."""
    network, source = read_sb3_model(model_path)
    training = {
        "algorithm": f"{source['algorithm']} (Stable-Baselines3 {source['policy']})",
        "steps": source["steps"],
        "config": None,
        "run": None,
        "source": source,
    }
    record = export_record(out, name, rules, training, None)
    return save_exported_policy(
        out, network, record, rules, eval_deals, eval_opponents, eval_seed, eval_workers
    )


def run(args: argparse.Namespace) -> int:
    """``sixtysix export`` for an SB3 run folder or model file (the output named ``.npz``)."""
    if getattr(args, "snapshot", None) is not None:
        return _run_snapshot(args)
    try:
        model_path, run_dir = find_model(args.model, args.which)
    except FileNotFoundError as e:
        print(f"sixtysix export: {e}", file=sys.stderr)
        return 2
    try:
        if is_foreign_model(model_path, run_dir):
            record = export_sb3_file(
                model_path,
                args.output,
                args.name,
                args.eval_deals,
                args.eval_opponents,
                args.eval_seed,
                args.workers,
                rules=getattr(args, "rules", None) or "altmisalti",
            )
        else:
            record = export_model(
                model_path,
                args.output,
                run_dir,
                args.name,
                args.eval_deals,
                args.eval_opponents,
                args.eval_seed,
                args.workers,
                args.plain,
                rules=getattr(args, "rules", None),
            )
    except (FileNotFoundError, ExportError, ModelFileError, SB3ModelError, ValueError) as e:
        print(f"sixtysix export: {e}", file=sys.stderr)
        return 1
    copy_log = run_dir is not None and not args.no_eval_log
    print_export(args.output, record, model_path,
                 copy_eval_log(run_dir, args.output) if copy_log else None)
    return 0


def _run_snapshot(args: argparse.Namespace) -> int:
    """``sixtysix export RUN --snapshot STEPS``: the snapshot the run kept of its learner at
    STEPS steps (``snapshots/snap-STEPS.npz``, the actor alone, as its opponent pool played
    it) written with the run's record, as :func:`export_model` writes its best or latest
    model. The training record names the snapshot; its wall time and speed are the run's,
    which went on past it."""
    try:
        path = snapshot_file(args.model, args.snapshot)
        cfg = run_config(args.model)
        network = read_policy(path)[0]
        if not args.plain:  # as the run evaluated its models (option play_symmetry)
            network = network.with_symmetry(cfg.shared.play_symmetry)
        summary = read_json(os.path.join(args.model, "summary.json"))
        training = _training_record(args.snapshot, cfg, args.model, summary)
        training["snapshot"] = os.path.relpath(path, args.model)
        record = save_exported_policy(
            args.output, network, export_record(args.output, args.name, cfg.shared.rules,
                                                training, None),
            cfg.shared.rules, args.eval_deals, args.eval_opponents, args.eval_seed, args.workers,
        )
    except (FileNotFoundError, ExportError, ValueError) as e:
        print(f"sixtysix export: {e}", file=sys.stderr)
        return 1
    log = None if args.no_eval_log else copy_eval_log(args.model, args.output)
    print_export(args.output, record, path, log)
    return 0
