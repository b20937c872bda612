"""Turn a trained MaskablePPO model into a numpy policy file.

    sixtysix export runs/quickstart -o quickstart.npz          # the run's best model
    sixtysix export runs/quickstart --which latest -o latest.npz
    sixtysix export runs/quickstart/best/model.zip -o best.npz --eval-deals 2000

From a run folder it also copies the run's evaluation log (``eval.jsonl``)
beside the policy as ``NAME.eval.jsonl``, from which
``python -m sixtysix_training.plot_curve NAME.npz`` draws the learning curve.

The file holds the policy network (observation -> hidden layers -> action
logits; the value network is left out) and a metadata record: observation
version, action count, rules, architecture, the training config and steps,
and evaluation figures measured at export on paired deals (see
:mod:`sixtysix_env.policy` for the format). It plays with numpy alone.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from typing import Any

import numpy as np

from sixtysix_env.policy import PolicyAgent, PolicyNetwork, read_policy, save_policy
from sixtysix_env.rules import make_rules

from .config import ConfigError, TrainConfig, config_from_dict

_ACTIVATION_NAMES = {"ReLU": "relu", "Tanh": "tanh"}


class ExportError(ValueError):
    """A model that cannot be exported (an architecture the numpy policy does not cover)."""


def network_from_policy(policy) -> PolicyNetwork:
    """The actor of an SB3 ``MaskableActorCriticPolicy`` over a flat Box observation, in numpy."""
    from torch import nn

    extractor = getattr(policy, "pi_features_extractor", None) or policy.features_extractor
    if not isinstance(extractor, nn.Flatten) and type(extractor).__name__ != "FlattenExtractor":
        raise ExportError(
            f"only a flat observation (FlattenExtractor) can be exported, not {type(extractor).__name__}"
        )
    weights, biases, activation = [], [], None
    for m in policy.mlp_extractor.policy_net:
        if isinstance(m, nn.Linear):
            weights.append(m.weight.detach().cpu().numpy().T.astype(np.float32))
            biases.append(m.bias.detach().cpu().numpy().astype(np.float32))
        else:
            name = _ACTIVATION_NAMES.get(type(m).__name__)
            if name is None:
                raise ExportError(f"layer {type(m).__name__} has no numpy counterpart (ReLU, Tanh)")
            if activation not in (None, name):
                raise ExportError("mixed activations cannot be exported")
            activation = name
    head = policy.action_net
    if not isinstance(head, nn.Linear):
        raise ExportError(f"the action head must be a Linear layer, not {type(head).__name__}")
    weights.append(head.weight.detach().cpu().numpy().T.astype(np.float32))
    biases.append(head.bias.detach().cpu().numpy().astype(np.float32))
    return PolicyNetwork(weights, biases, activation or "relu")


def policy_agent(model_or_policy, name: str = "learner", deterministic: bool = True) -> PolicyAgent:
    """A numpy agent playing the model's current policy (for evaluation and snapshots)."""
    policy = getattr(model_or_policy, "policy", model_or_policy)
    return PolicyAgent(
        network_from_policy(policy), {"name": name}, deterministic=deterministic, name=name
    )


def eval_figures(res, opponent: str) -> dict[str, Any]:
    """The figures of one pair of an evaluation result (from the first agent's side)."""
    p = res.pairs[0]
    return {
        "opponent": opponent,
        "paired_deals": p.deals,
        "hands": p.hands,
        "gp_per_hand": p.gp_per_hand,
        "gp_ci95": p.gp_ci95,
        "hands_won": p.hands_won_a,
        "hands_lost": p.hands_won_b,
        "hands_tied": p.hands_tied,
        "seed": res.seed,
        "rules": res.rules.get("name"),
    }


def split_opponent(spec: str, deals: int) -> tuple[str, int]:
    """``"expert@400"`` -> ``("expert", 400)``; without ``@N`` the default ``deals``."""
    name, at, count = spec.rpartition("@")
    if at and name and count.isdigit() and int(count) > 0:
        return name, int(count)
    return spec, deals


def evaluate_agent(
    agent, opponents: list[str], deals: int, seed: int, rules: str, workers: int = 1
) -> dict[str, dict[str, Any]]:
    """Paired-deal evaluation of ``agent`` against each opponent, with ``sixtysix_env.evaluation``.

    An opponent written ``NAME@N`` is played over ``N`` paired deals instead of ``deals``.
    """
    from sixtysix_env.evaluation import evaluate

    out = {}
    for spec in opponents:
        opp, n = split_opponent(spec, deals)
        res = evaluate([agent, opp], deals=n, rules=rules, seed=seed, workers=workers)
        out[opp] = eval_figures(res, opp)
        out[opp]["seconds"] = round(res.wall_seconds, 1)
    return out


def find_model(path: str, which: str = "best") -> tuple[str, str | None]:
    """(model .zip, run folder or None) from a run folder or a model file."""
    if os.path.isdir(path):
        run_dir = path
        model = os.path.join(path, which, "model.zip")
        if which == "best" and not os.path.exists(model):
            model = os.path.join(path, "latest", "model.zip")
        if not os.path.exists(model):
            raise FileNotFoundError(
                f"no {which}/model.zip (nor latest/model.zip) in run folder {path!r}"
            )
        return model, run_dir
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path!r} is neither a run folder nor a model file")
    # runs/NAME/best/model.zip -> runs/NAME
    parent = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    return path, parent if os.path.exists(os.path.join(parent, "config.yaml")) else None


def _read_json(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError):
        return {}


def export_model(
    model_path: str,
    out: str,
    run_dir: str | None = None,
    name: str | None = None,
    eval_deals: int = 1000,
    eval_opponents: list[str] | None = None,
    eval_seed: int = 7,
    eval_workers: int = 1,
) -> dict[str, Any]:
    """Export ``model_path`` to ``out``; returns the metadata record written."""
    import sb3_contrib
    import stable_baselines3
    import torch
    from sb3_contrib import MaskablePPO

    cfg: TrainConfig | None = None
    summary: dict = {}
    run_eval: dict = {}
    if run_dir is not None:
        import yaml

        with open(os.path.join(run_dir, "config.yaml"), encoding="utf-8") as f:
            try:
                cfg = config_from_dict(
                    yaml.safe_load(f) or {}, os.path.join(run_dir, "config.yaml")
                )
            except ConfigError as e:
                print(f"sixtysix export: warning: {e}; the config is left out", file=sys.stderr)
        summary = _read_json(os.path.join(run_dir, "summary.json"))
        run_eval = _read_json(
            os.path.join(os.path.dirname(os.path.abspath(model_path)), "eval.json")
        )
    model = MaskablePPO.load(model_path, device="cpu")
    network = network_from_policy(model.policy)
    rules = cfg.rules if cfg is not None else "altmisalti"
    name = name or os.path.splitext(os.path.basename(out))[0]
    record: dict[str, Any] = {
        "name": name,
        "rules": make_rules(rules).to_dict(),
        "rule_preset": rules,
        "training": {
            "algorithm": "MaskablePPO (sb3-contrib), self-play with an opponent pool",
            "steps": int(model.num_timesteps),
            "config": None if cfg is None else _jsonable(cfg),
            "run": None if run_dir is None else os.path.basename(os.path.abspath(run_dir)),
            "wall_time_s": summary.get("wall_time_s"),
            "steps_per_s": summary.get("steps_per_s"),
            "bc": summary.get("bc"),
            "distillation": _distillation(run_dir),
            "machine": summary.get("machine"),
            "versions": {
                "torch": torch.__version__,
                "stable_baselines3": stable_baselines3.__version__,
                "sb3_contrib": sb3_contrib.__version__,
            },
        },
        "exported": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "evaluation": {"during_training": run_eval or None},
    }
    if eval_deals > 0:
        agent = PolicyAgent(network, {"name": name}, deterministic=True, name=name)
        figures = evaluate_agent(
            agent,
            eval_opponents or ["random", "heuristic"],
            eval_deals,
            eval_seed,
            rules,
            eval_workers,
        )
        record["evaluation"]["at_export"] = {
            "deterministic": True,
            "seed": eval_seed,
            "against": figures,
        }
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    written = save_policy(out, network, record)
    read_policy(out)  # the file must load with every check passing
    return written


def eval_log_path(policy_path: str) -> str:
    """Where a policy's evaluation log goes: ``NAME.npz`` -> ``NAME.eval.jsonl``."""
    return policy_path.removesuffix(".npz") + ".eval.jsonl"


def copy_eval_log(run_dir: str, policy_path: str) -> str | None:
    """Copy the run's ``eval.jsonl`` beside the policy; the copy's path, or None if it has none."""
    log = os.path.join(run_dir, "eval.jsonl")
    if not os.path.isfile(log):
        return None
    out = eval_log_path(policy_path)
    shutil.copyfile(log, out)
    return out


def _distillation(run_dir: str | None) -> dict | None:
    """The run's distillation record (``sixtysix_training.distill fit``), if it has one."""
    if run_dir is None:
        return None
    rec = _read_json(os.path.join(run_dir, "distill.json"))
    return rec or None


def _jsonable(cfg: TrainConfig) -> dict:
    import dataclasses

    return json.loads(json.dumps(dataclasses.asdict(cfg)))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model", metavar="RUN_OR_MODEL", help="a run folder (runs/NAME) or a saved model (.zip)"
    )
    parser.add_argument("-o", "--output", required=True, help="policy file to write (.npz)")
    parser.add_argument(
        "--which",
        choices=("best", "latest"),
        default="best",
        help="for a run folder: its best model (default) or its latest",
    )
    parser.add_argument("--name", help="name of the policy (default: the output file's stem)")
    parser.add_argument(
        "--eval-deals",
        type=int,
        default=1000,
        help="paired deals per opponent for the figures recorded at export (default 1000; 0 skips)",
    )
    parser.add_argument(
        "--eval-opponents",
        nargs="+",
        default=["random", "heuristic"],
        help="opponents of that evaluation (default: random heuristic); NAME@N plays N paired "
        "deals against NAME instead of --eval-deals (e.g. expert@400)",
    )
    parser.add_argument("--eval-seed", type=int, default=7, help="seed of those deals (default 7)")
    parser.add_argument("--workers", type=int, default=1, help="evaluation worker processes")
    parser.add_argument(
        "--no-eval-log",
        action="store_true",
        help="do not copy the run's evaluation log (eval.jsonl) beside the policy as "
        "NAME.eval.jsonl (the learning curve's data)",
    )


def run(args: argparse.Namespace) -> int:
    if not args.output.endswith(".npz"):
        print(f"sixtysix export: the output must end in .npz, got {args.output!r}", file=sys.stderr)
        return 2
    from .rllib.train import is_rllib_run

    if os.path.isdir(args.model) and is_rllib_run(args.model):
        from .rllib.export import run as run_rllib  # RLlib runs keep numpy policies already

        return run_rllib(args)
    try:
        model_path, run_dir = find_model(args.model, args.which)
        record = export_model(
            model_path,
            args.output,
            run_dir,
            args.name,
            args.eval_deals,
            args.eval_opponents,
            args.eval_seed,
            args.workers,
        )
    except (FileNotFoundError, ExportError, ValueError) as e:
        print(f"sixtysix export: {e}", file=sys.stderr)
        return 1
    size = os.path.getsize(args.output)
    print(
        f"wrote {args.output} ({size / 1024:.0f} KiB) from {model_path}, "
        f"{record['training']['steps']} training steps"
    )
    if run_dir is not None and not args.no_eval_log:
        log = copy_eval_log(run_dir, args.output)
        if log is not None:
            print(f"wrote {log} (the run's evaluation log: python -m sixtysix_training.plot_curve)")
    at = (record.get("evaluation") or {}).get("at_export")
    if at:
        for opp, f in at["against"].items():
            lo, hi = f["gp_ci95"] or (float("nan"), float("nan"))
            print(
                f"  vs {opp:<10} {f['gp_per_hand']:+.3f} game points/hand "
                f"(95% CI {lo:+.3f} to {hi:+.3f}) over {f['paired_deals']} paired deals"
            )
    return 0
