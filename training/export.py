"""Turn a trained MaskablePPO model into a numpy policy file.

    sixtysix export runs/quickstart -o quickstart.npz          # the run's best model
    sixtysix export runs/quickstart --which latest -o latest.npz
    sixtysix export runs/quickstart/best/model.zip -o best.npz --eval-deals 2000
    sixtysix export my_sb3_model.zip -o my_model.npz    # any SB3 model of docs/ecosystem.md
    sixtysix export runs/quickstart --format onnx -o quickstart.onnx   # docs/onnx.md
    sixtysix export sixtysix-ppo-v4 --format onnx -o v4.onnx   # a policy file or shipped name

From a run folder it also copies the run's evaluation log (``eval.jsonl``)
beside the policy as ``NAME.eval.jsonl``, from which
``sixtysix plot-curve NAME.npz`` draws the learning curve.

The file holds the policy network (observation -> hidden layers -> action
logits; the value network is left out) and a metadata record: observation
version, action count, rules, architecture, the training config and steps,
and evaluation figures measured at export on paired deals (see
:mod:`sixtysix_env.policy` for the format). It plays with numpy alone.

The steps live by job: :mod:`.runs` (a run folder's model, config and
records), :mod:`.numpy_policy` (the torch actor as a numpy network) and
:mod:`.figures` (the evaluation recorded at export); this module writes the
file and is the ``sixtysix export`` command.

A model saved by Stable-Baselines3 outside a run (``MaskablePPO``, ``PPO``,
``A2C`` or ``DQN``, with ``MultiInputPolicy`` on SixtySix-v0's ``Dict``
observation or ``MlpPolicy`` on the flat one) is read by
:mod:`sixtysix_env.policy.sb3` instead: the same numpy network that ``sixtysix
eval my_model.zip`` plays, written as a policy file (format version 3 where it
reads the action mask, as a ``CombinedExtractor`` does).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from typing import Any

from sixtysix_env.game.rules import make_rules
from sixtysix_env.policy import read_policy, save_policy
from sixtysix_env.policy.sb3 import SB3ModelError, read_sb3_model

from .config import TrainConfig, config_backend
from .figures import (
    add_export_evaluation_arguments,
    evaluate_at_export,
    export_lines,
)
from .model_file import ModelFileError, load_model, read_data_record
from .numpy_policy import ExportError, network_from_policy
from .runs import (
    copy_eval_log,
    distillation,
    find_model,
    read_json,
    run_config,
)

__all__ = ["add_arguments", "export_model", "run"]


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
    return json.loads(json.dumps(dataclasses.asdict(cfg)))


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
) -> dict[str, Any]:
    """Export ``model_path`` to ``out``; returns the metadata record written.

    A run's policy is written as the run evaluated it (its option ``play_symmetry``);
    ``plain`` writes the actor alone (one forward pass per decision)."""
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
        network = network.with_symmetry(cfg.play_symmetry)
    rules = cfg.rules if cfg is not None else "altmisalti"
    name = name or os.path.splitext(os.path.basename(out))[0]
    record: dict[str, Any] = {
        "name": name,
        "rules": make_rules(rules).to_dict(),
        "rule_preset": rules,
        "training": _training_record(int(model.num_timesteps), cfg, run_dir, summary),
        "exported": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "evaluation": {"during_training": run_eval or None},
    }
    if eval_deals > 0:
        record["evaluation"]["at_export"] = evaluate_at_export(
            network, name, eval_opponents, eval_deals, eval_seed, rules, eval_workers
        )
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    written = save_policy(out, network, record)
    read_policy(out)  # the file must load with every check passing
    return written


def is_foreign_model(model_path: str, run_dir: str | None) -> bool:
    """Whether ``model_path`` is an SB3 model saved outside a ``sixtysix train`` run (read by
    :mod:`sixtysix_env.policy.sb3`), rather than a run's own model."""
    if run_dir is not None or not model_path.endswith(".zip"):
        return False
    try:
        module = read_data_record(model_path).get("policy_class", {}).get("__module__")
    except ModelFileError:
        return False
    return module != "sixtysix_training.sb3_policy"


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
    name = name or os.path.splitext(os.path.basename(out))[0]
    record: dict[str, Any] = {
        "name": name,
        "rules": make_rules(rules).to_dict(),
        "rule_preset": rules,
        "training": {
            "algorithm": f"{source['algorithm']} (Stable-Baselines3 {source['policy']})",
            "steps": source["steps"],
            "config": None,
            "run": None,
            "source": source,
        },
        "exported": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "evaluation": {"during_training": None},
    }
    if eval_deals > 0:
        record["evaluation"]["at_export"] = evaluate_at_export(
            network, name, eval_opponents, eval_deals, eval_seed, rules, eval_workers
        )
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    written = save_policy(out, network, record)
    read_policy(out)  # the file must load with every check passing
    return written


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model",
        metavar="RUN_OR_MODEL",
        help="a run folder (runs/NAME) or a saved model (.zip); with --format onnx also a "
        "policy file (.npz) or a shipped policy's name",
    )
    parser.add_argument(
        "-o", "--output", required=True, help="policy file to write (.npz; .onnx with --format onnx)"
    )
    parser.add_argument(
        "--format",
        choices=("npz", "onnx"),
        default="npz",
        help="npz: a numpy policy file (default); onnx: an ONNX model of the same policy "
        "(the [onnx] extra, docs/onnx.md), from a run or model (the .npz is written beside it, "
        "same stem) or from a policy file (.npz) or shipped policy's name",
    )
    parser.add_argument(
        "--which",
        choices=("best", "latest"),
        default="best",
        help="for a run folder: its best model (default) or its latest",
    )
    parser.add_argument("--name", help="name of the policy (default: the output file's stem)")
    parser.add_argument(
        "--plain",
        action="store_true",
        help="write the actor alone (one forward pass per decision), not averaged over the "
        "suit renamings as a run with play_symmetry evaluated it",
    )
    add_export_evaluation_arguments(parser)
    parser.add_argument(
        "--no-eval-log",
        action="store_true",
        help="do not copy the run's evaluation log (eval.jsonl) beside the policy as "
        "NAME.eval.jsonl (the learning curve's data)",
    )


def _run_onnx(args: argparse.Namespace) -> int:
    """``--format onnx``: a policy file or shipped name converted; a run or model exported
    as usual to ``STEM.npz`` beside the ``.onnx``, then converted (docs/onnx.md)."""
    from sixtysix_env.policy.onnx import (
        OnnxExportError,
        OnnxUnavailableError,
        convert,
        require,
        resolve_policy,
        summary_line,
    )

    out = args.output
    if not out.endswith(".onnx"):
        print(f"sixtysix export: --format onnx writes a .onnx file, got {out!r}", file=sys.stderr)
        return 2
    try:
        require("onnx")  # before a long export
        if os.path.isdir(args.model) or (
            os.path.isfile(args.model) and not args.model.endswith(".npz")
        ):  # a run or a model: its .npz first, as without --format
            npz = os.path.splitext(out)[0] + ".npz"
            if os.path.exists(npz):  # never written over unasked
                print(
                    f"sixtysix export: {npz} exists (--format onnx writes the policy file "
                    "beside the .onnx first); choose another output name, or convert that "
                    f"file: sixtysix export {npz} --format onnx -o {out}",
                    file=sys.stderr,
                )
                return 2
            args.output, args.format = npz, "npz"
            status = run(args)
            if status:
                return status
            source = args.output
        else:
            source = resolve_policy(args.model, "a run folder, a model (.zip), ")
        props = convert(source, out, args.name)
    except OnnxUnavailableError as e:
        print(f"sixtysix export: {e}", file=sys.stderr)
        return 2
    except OnnxExportError as e:
        print(f"sixtysix export: {e}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as e:  # a policy file that does not load
        print(f"sixtysix export: {e}", file=sys.stderr)
        return 1
    print(summary_line(out, props))
    return 0


def run(args: argparse.Namespace) -> int:
    if getattr(args, "format", "npz") == "onnx":
        return _run_onnx(args)
    if not args.output.endswith(".npz"):
        print(f"sixtysix export: the output must end in .npz, got {args.output!r}", file=sys.stderr)
        return 2
    if os.path.isdir(args.model) and config_backend(args.model) == "rllib":
        from .rllib.export import run as run_rllib  # RLlib runs keep numpy policies already

        return run_rllib(args)
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
            )
    except (FileNotFoundError, ExportError, ModelFileError, SB3ModelError, ValueError) as e:
        print(f"sixtysix export: {e}", file=sys.stderr)
        return 1
    size = os.path.getsize(args.output)
    print(
        f"wrote {args.output} ({size / 1024:.0f} KiB) from {model_path}, "
        f"{record['training']['steps']} training steps"
        + (f", {record['training']['algorithm']}" if record["training"].get("source") else "")
    )
    if run_dir is not None and not args.no_eval_log:
        log = copy_eval_log(run_dir, args.output)
        if log is not None:
            print(f"wrote {log} (the run's evaluation log: sixtysix plot-curve)")
    for line in export_lines(record):
        print(line)
    return 0
