"""``sixtysix export``: a run or a model as a numpy policy file, or a policy as ONNX.

    sixtysix export runs/quickstart -o quickstart.npz          # the run's best model
    sixtysix export runs/quickstart --which latest -o latest.npz
    sixtysix export runs/quickstart --snapshot 250000 -o at-250k.npz   # a kept snapshot
    sixtysix export runs/quickstart/best/model.zip -o best.npz --eval-deals 2000
    sixtysix export my_sb3_model.zip -o my_model.npz    # any SB3 model of docs/ecosystem.md
    sixtysix export my_sb3_model.zip --rules schnapsen-vu -o my_model.npz   # trained for a preset
    sixtysix export runs/quickstart --format onnx -o quickstart.onnx   # docs/onnx.md
    sixtysix export sixtysix-ppo-v4 --format onnx -o v4.onnx   # a policy file or shipped name

From a run folder it also copies the run's evaluation log (``eval.jsonl``)
beside the policy as ``NAME.eval.jsonl``, from which
``sixtysix plot-curve NAME.npz`` draws the learning curve.

This module is the command and the only one that knows both backends: an
SB3 run or any SB3 model goes to :mod:`.sb3.export`, an RLlib run to
:mod:`.rllib.export`, ``--format onnx`` to :mod:`sixtysix_env.policy.onnx`.
"""

from __future__ import annotations

import argparse
import os
import sys

from sixtysix_env.game.rules import PRESETS

from .common.figures import add_export_evaluation_arguments
from .common.runs import find_model
from .config.loader import config_backend, read_config_values
from .config.options import ConfigError

__all__ = ["add_arguments", "run"]


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
    parser.add_argument(
        "--snapshot",
        type=int,
        metavar="STEPS",
        help="for an SB3 run folder, in place of --which: the snapshot of the learner the run "
        "kept at STEPS steps (snapshots/snap-STEPS.npz; its file names list the steps)",
    )
    parser.add_argument("--name", help="name of the policy (default: the output file's stem)")
    parser.add_argument(
        "--rules",
        choices=sorted(PRESETS),
        help="the rule preset a model saved outside a run (.zip) was trained for, recorded in "
        "the policy file (default altmisalti); a run's own config names its rules, and a "
        "different --rules is refused",
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="write the actor alone (one forward pass per decision), not averaged over the "
        "suit renamings as a run with play_symmetry evaluated it",
    )
    add_export_evaluation_arguments(
        parser,
        eval_log="copy the run's evaluation log (eval.jsonl) beside the policy as "
        "NAME.eval.jsonl (the learning curve's data)",
    )


def _run_onnx(args: argparse.Namespace) -> int:
    """``--format onnx``: a policy file or shipped name converted; a run or model exported
    as usual to ``STEM.npz`` beside the ``.onnx``, then converted (docs/onnx.md)."""
    from sixtysix_env.policy.onnx import (
        OnnxExportError,
        OnnxUnavailableError,
        check_output,
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
        check_output(out)  # a folder: refused before any work
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


def _snapshot_refusal(args: argparse.Namespace) -> str | None:
    """Why ``--snapshot`` cannot apply here (None: it can, or it was not given)."""
    steps = getattr(args, "snapshot", None)
    if steps is None:
        return None
    if steps < 0:
        return f"--snapshot takes a number of learner steps >= 0, got {steps}"
    if not os.path.isdir(args.model):
        return f"--snapshot takes a run folder (runs/NAME), got {args.model!r}"
    if getattr(args, "format", "npz") == "onnx":
        return ("--snapshot writes a policy file (.npz); convert it after: "
                "sixtysix export FILE.npz --format onnx -o FILE.onnx")
    if config_backend(args.model) == "rllib":
        return "--snapshot is built for SB3 runs; an RLlib run exports its best or latest policy"
    return None


def _rules_refusal(args: argparse.Namespace) -> str | None:
    """Why ``--rules`` cannot apply here (None: it can, or it was not given): a run's config
    names its own rules; a policy file (.npz) or shipped name records them already."""
    given = getattr(args, "rules", None)
    if given is None:
        return None
    is_zip = os.path.isfile(args.model) and args.model.endswith(".zip")
    if not (os.path.isdir(args.model) or is_zip):
        return (f"--rules applies to a model saved outside a run (.zip); {args.model!r} records "
                "its own rules")
    try:
        _, folder = find_model(args.model, args.which)
    except FileNotFoundError:
        return None  # the export itself says what is missing
    if folder is not None:
        try:
            values, _ = read_config_values(os.path.join(folder, "config.yaml"))
        except ConfigError:
            return None  # the export itself says what is wrong with the run
        trained = values.get("rules", "altmisalti")
        if trained != given:
            return (f"--rules {given}: the run {folder} was trained for {trained!r} (its "
                    "config.yaml); leave --rules out for a run's model")
    return None


def run(args: argparse.Namespace) -> int:
    refusal = _rules_refusal(args)
    if refusal is not None:
        print(f"sixtysix export: {refusal}", file=sys.stderr)
        return 2
    refusal = _snapshot_refusal(args)
    if refusal is not None:
        print(f"sixtysix export: {refusal}", file=sys.stderr)
        return 2
    if getattr(args, "format", "npz") == "onnx":
        return _run_onnx(args)
    if not args.output.endswith(".npz"):
        print(f"sixtysix export: the output must end in .npz, got {args.output!r}", file=sys.stderr)
        return 2
    if os.path.isdir(args.output):  # before any work
        print(f"sixtysix export: {args.output!r} is a folder; name the policy file to write "
              "(e.g. policy.npz)", file=sys.stderr)
        return 2
    if os.path.isdir(args.model) and config_backend(args.model) == "rllib":
        from .rllib.export import run as run_rllib  # RLlib runs keep numpy policies already

        return run_rllib(args)
    from .sb3.export import run as run_sb3  # MaskablePPO (torch, SB3)

    return run_sb3(args)
