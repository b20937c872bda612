"""A policy file as an ONNX model: the same masked logits, for other runtimes (docs/onnx.md).

    python -m sixtysix_env.policy.onnx sixtysix-ppo-v4 -o v4.onnx   # a shipped name
    python -m sixtysix_env.policy.onnx my_policy.npz -o my.onnx      # any policy file
    sixtysix export runs/NAME --format onnx -o model.onnx             # a run (see export)

The model is built from the numpy weights with ``onnx.helper`` alone (no torch)
and computes what :class:`~sixtysix_env.policy.network.PolicyNetwork` and
:class:`~sixtysix_env.policy.agent.PolicyAgent` compute:

==========  =====================  ==============================================
name        type                   meaning
==========  =====================  ==============================================
``obs``     float32 [batch, 349]   input: the observation vector (``encode_view``)
``mask``    bool [batch, 34]       input: the legal actions (true = legal)
``logits``  float32 [batch, 34]    output: the network's logits, ``-inf`` where
                                   the mask is false
``action``  int64 [batch]          output: the move the numpy agent plays
                                   (argmax of ``logits``, the lowest id among
                                   equal ones; for a suit-symmetric policy the
                                   lowest id within ``SYMMETRY_TIE`` of the best)
==========  =====================  ==============================================

The layers are ``MatMul``, ``Add`` and ``Relu`` or ``Tanh``; a network that reads
the action mask (format version 3) reads it as 0/1 floats concatenated with the
observation in its order; a suit-symmetric one (``symmetry="suits"``) runs the
layers on the 24 renamings of the observation (one ``Gather`` of a fixed index
table), reads each logit back under its renaming (another ``Gather``) and
averages them (``ReduceMean``). The model's ``metadata_props`` record the policy's
name, observation version and size, action count, rules, symmetry, the source
file's checksum and its whole metadata record (:func:`model_metadata` reads them).

Needs the ``[onnx]`` extra (``onnx`` to build the model; ``onnxruntime`` to run
it); importing this module imports neither, and a missing one is named with the
command that installs it (:class:`OnnxUnavailableError`).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..game.actions import NUM_ACTIONS
from ..util.errors import SixtySixError
from ..util.files import replaced
from ..util.version import __version__
from .fileformat import read_policy
from .network import SYMMETRY_TIE, PolicyNetwork, suit_tables
from .observation import OBS_SIZE, OBS_VERSION
from .shipped import shipped_policies

#: The ONNX operator set and IR version written: old enough for every current runtime
#: (onnxruntime 1.14 and later, onnxruntime-web, the C#, Java and C++ packages).
OPSET = 17
IR_VERSION = 8
#: The names of the model's inputs and outputs.
OBS_INPUT, MASK_INPUT = "obs", "mask"
LOGITS_OUTPUT, ACTION_OUTPUT = "logits", "action"
#: What ``logits`` holds for an illegal action.
MASKED_LOGIT = float("-inf")
#: ``metadata_props``: ``sixtysix.format`` names the model layout, versioned apart from the
#: policy file format (a change of inputs or outputs changes it).
MODEL_FORMAT = "sixtysix-onnx-policy"
MODEL_FORMAT_VERSION = 1
PREFIX = "sixtysix."
INSTALL = 'pip install "sixtysix[onnx]"'


class OnnxUnavailableError(SixtySixError, ImportError):
    """The ``[onnx]`` extra (onnx, onnxruntime) is not installed."""


class OnnxExportError(SixtySixError, ValueError):
    """A policy that cannot be converted: an unknown name or file, or a bad output path."""


def require(module: str = "onnx"):
    """Import ``onnx`` or ``onnxruntime``, or raise :class:`OnnxUnavailableError` naming the
    extra that installs it."""
    try:
        found = importlib.import_module(module)
        if getattr(found, "__file__", None) is None:  # a folder of that name, not the library
            raise ImportError(f"{module!r} found here is a namespace package, not the library")
        return found
    except ImportError as e:
        raise OnnxUnavailableError(
            f"ONNX export and inference need {module}, from the [onnx] extra; install it "
            f'with {INSTALL} (in a clone: pip install -e ".[onnx]") ({e})'
        ) from None


def resolve_policy(source: str | os.PathLike, also: str = "") -> Path:
    """The policy file of ``source``: a path to a ``.npz`` file, or a shipped policy's name
    (``also`` names what else the caller would have taken, for the error)."""
    text = os.fspath(source)
    if os.path.isfile(text):
        return Path(text)
    shipped = shipped_policies()
    if text in shipped:
        return shipped[text].path
    raise OnnxExportError(
        f"{text!r} is neither {also}a policy file (.npz) nor a shipped policy; shipped: "
        f"{', '.join(shipped) or 'none'} (sixtysix agents lists them)"
    )


def _suit_gathers() -> tuple[np.ndarray, np.ndarray]:
    """(observation index table (24, OBS_SIZE), logit read-back table (24, NUM_ACTIONS)).

    Row ``r`` of the first is renaming ``r``'s observation (``x[table[r]]``); row ``r`` of
    the second indexes the (24 * NUM_ACTIONS) flattened logits so that entry ``a`` reads
    action ``a``'s logit under renaming ``r`` (where ``PolicyNetwork.logits`` reads it):
    the network's own :func:`~sixtysix_env.policy.network.suit_tables`, as ONNX indexes."""
    obs, act = suit_tables()
    back = act.astype(np.int64) + NUM_ACTIONS * np.arange(len(act), dtype=np.int64)[:, None]
    return obs.astype(np.int64), back


def model_metadata_props(
    network: PolicyNetwork, metadata: Mapping[str, Any] | None = None, name: str | None = None
) -> dict[str, str]:
    """The ``metadata_props`` written for ``network`` and its policy file's ``metadata``."""
    meta = dict(metadata or {})
    props = {
        "format": MODEL_FORMAT,
        "format_version": str(MODEL_FORMAT_VERSION),
        "name": str(name or meta.get("name") or "policy"),
        "obs_version": str(meta.get("obs_version", OBS_VERSION)),
        "obs_size": str(OBS_SIZE),
        "num_actions": str(NUM_ACTIONS),
        "inputs": f"{OBS_INPUT} float32 [batch, {OBS_SIZE}], {MASK_INPUT} bool "
        f"[batch, {NUM_ACTIONS}] (true = legal)",
        "outputs": f"{LOGITS_OUTPUT} float32 [batch, {NUM_ACTIONS}] (-inf where illegal), "
        f"{ACTION_OUTPUT} int64 [batch]",
        "masked_logit": "-inf",
        "network_inputs": json.dumps(list(network.inputs)),
        "symmetry": network.symmetry or "none",
        "architecture": json.dumps(
            {"layers": network.layers, "activation": network.activation}, sort_keys=True
        ),
    }
    if network.symmetry is not None:
        props["symmetry_tie"] = repr(SYMMETRY_TIE)
    if "rules" in meta:
        props["rules"] = json.dumps(meta["rules"], sort_keys=True)
    if "rule_preset" in meta:
        props["rule_preset"] = str(meta["rule_preset"])
    if "sha256" in meta:
        props["policy_sha256"] = str(meta["sha256"])
    if meta:
        props["policy_metadata"] = json.dumps(meta, sort_keys=True)
    return {PREFIX + k: v for k, v in props.items()}


def network_to_onnx(
    network: PolicyNetwork, metadata: Mapping[str, Any] | None = None, name: str | None = None
):
    """An ``onnx.ModelProto`` computing ``network``'s masked logits and the agent's move
    (see the module docstring); checked with ``onnx.checker``."""
    onnx = require("onnx")
    graph = _Graph()
    logits = _logit_nodes(graph, network)
    _move_nodes(graph, network, logits)
    model = _model(graph, model_metadata_props(network, metadata, name))
    onnx.checker.check_model(model, full_check=True)
    return model


class _Graph:
    """An ONNX graph's nodes and initializers, in the order they are added."""

    def __init__(self) -> None:
        self.nodes: list = []
        self.inits: list = []

    def const(self, cname: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value), cname))
        return cname

    def node(self, op: str, ins: list[str], out: str, **attrs) -> str:
        from onnx import helper

        self.nodes.append(helper.make_node(op, ins, [out], name=out, **attrs))
        return out


def _logit_nodes(g: _Graph, network: PolicyNetwork) -> str:
    """The nodes of ``network``'s raw logits (averaged over the renamings of the suits
    where it has that symmetry); returns their output's name."""
    from onnx import TensorProto

    # The first layer's input: the observation, or it and the mask as floats, in order.
    if network.reads_mask:
        mask_f = g.node("Cast", [MASK_INPUT], "mask_float", to=TensorProto.FLOAT)
        parts = {"observation": OBS_INPUT, "action_mask": mask_f}
        x = g.node("Concat", [parts[p] for p in network.inputs], "features", axis=1)
    else:
        x = OBS_INPUT
    if network.symmetry is not None:  # every renaming of the suits: (batch, 24, OBS_SIZE)
        obs_table, back_table = _suit_gathers()
        x = g.node("Gather", [x, g.const("suit_obs_index", obs_table)], "renamed_obs", axis=1)
    last = len(network.weights) - 1
    act = {"relu": "Relu", "tanh": "Tanh"}[network.activation]
    for i, (w, b) in enumerate(zip(network.weights, network.biases)):
        x = g.node("MatMul", [x, g.const(f"layer{i}_weight", w)], f"layer{i}_matmul")
        x = g.node("Add", [x, g.const(f"layer{i}_bias", b)], f"layer{i}_out")
        if i < last:
            x = g.node(act, [x], f"layer{i}_{network.activation}")
    if network.symmetry is not None:  # each logit read back under its renaming, then averaged
        n = back_table.shape[0] * NUM_ACTIONS
        flat = g.node("Reshape", [x, g.const("flat_shape", np.array([0, n], np.int64))], "flat")
        x = g.node("Gather", [flat, g.const("suit_logit_index", back_table)], "read_back", axis=1)
        x = g.node("ReduceMean", [x], "mean_logits", axes=[1], keepdims=0)
    return x


def _move_nodes(g: _Graph, network: PolicyNetwork, logits: str) -> None:
    """The nodes of the two outputs: the logits masked to the legal moves, and the move."""
    from onnx import TensorProto

    ninf = g.const("masked_logit", np.array(MASKED_LOGIT, np.float32))
    z = g.node("Where", [MASK_INPUT, logits, ninf], LOGITS_OUTPUT)
    if network.symmetry is None:  # the first of equal best logits (np.argmax)
        g.node("ArgMax", [z], ACTION_OUTPUT, axis=1, keepdims=0, select_last_index=0)
    else:  # the first within SYMMETRY_TIE of the best (PolicyAgent.act)
        best = g.node("ReduceMax", [z], "best_logit", axes=[1], keepdims=1)
        tie = g.const("symmetry_tie", np.array(SYMMETRY_TIE, np.float32))
        floor = g.node("Sub", [best, tie], "tie_floor")
        near = g.node("GreaterOrEqual", [z, floor], "near_best")
        near_f = g.node("Cast", [near], "near_best_float", to=TensorProto.FLOAT)
        g.node("ArgMax", [near_f], ACTION_OUTPUT, axis=1, keepdims=0, select_last_index=0)


def _model(g: _Graph, props: dict[str, str]):
    """The model of the graph ``g``: its inputs and outputs declared, ``props`` attached."""
    from onnx import TensorProto, helper

    inputs = [
        helper.make_tensor_value_info(OBS_INPUT, TensorProto.FLOAT, ["batch", OBS_SIZE]),
        helper.make_tensor_value_info(MASK_INPUT, TensorProto.BOOL, ["batch", NUM_ACTIONS]),
    ]
    outputs = [
        helper.make_tensor_value_info(LOGITS_OUTPUT, TensorProto.FLOAT, ["batch", NUM_ACTIONS]),
        helper.make_tensor_value_info(ACTION_OUTPUT, TensorProto.INT64, ["batch"]),
    ]
    graph = helper.make_graph(g.nodes, "sixtysix_policy", inputs, outputs, initializer=g.inits)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="sixtysix",
        producer_version=__version__,
        doc_string=(
            f"Sixty-Six policy {props[PREFIX + 'name']!r}: observation (obs_version "
            f"{props[PREFIX + 'obs_version']}) and legal-move mask in, masked logits and "
            "the policy's move out (docs/onnx.md)"
        ),
    )
    model.ir_version = IR_VERSION
    model.model_version = MODEL_FORMAT_VERSION
    helper.set_model_props(model, props)
    return model


def policy_to_onnx(source: str | os.PathLike, name: str | None = None):
    """The ONNX model of a policy file or shipped name (every check of :func:`read_policy`)."""
    path = resolve_policy(source)
    network, meta = read_policy(path)
    return network_to_onnx(network, meta, name or meta.get("name") or path.stem)


def check_output(out: str | os.PathLike) -> None:
    """Refuse (:class:`OnnxExportError`) an output an ONNX model cannot be written to: a
    name not ending in ``.onnx``, or a folder (checked before any work)."""
    out = os.fspath(out)
    if not out.endswith(".onnx"):
        raise OnnxExportError(f"an ONNX model's file name must end in .onnx, got {out!r}")
    if os.path.isdir(out):
        raise OnnxExportError(f"{out!r} is a folder; name the ONNX model's file to write "
                              "(e.g. policy.onnx), not a folder")


def save_model(model, out: str | os.PathLike) -> None:
    """Write ``model`` to ``out`` (a ``.onnx``), whole or not at all."""
    out = os.fspath(out)
    check_output(out)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    data = model.SerializeToString()
    with replaced(out, ".tmp.onnx") as tmp, open(tmp, "wb") as f:
        f.write(data)


def convert(source: str | os.PathLike, out: str | os.PathLike, name: str | None = None) -> dict:
    """Write the ONNX model of ``source`` (a policy file or shipped name) to ``out``; returns
    its ``metadata_props`` (without the ``sixtysix.`` prefix)."""
    check_output(out)  # before any work
    model = policy_to_onnx(source, name)
    save_model(model, out)
    return model_metadata(model)


def model_metadata(model) -> dict[str, str]:
    """The ``sixtysix.*`` metadata of a model (a ``ModelProto``, or an onnxruntime
    ``InferenceSession``), keys without the prefix."""
    if hasattr(model, "get_modelmeta"):  # an onnxruntime session
        props = model.get_modelmeta().custom_metadata_map
    else:
        props = {p.key: p.value for p in model.metadata_props}
    return {k[len(PREFIX) :]: v for k, v in props.items() if k.startswith(PREFIX)}


def summary_line(out: str | os.PathLike, props: Mapping[str, str]) -> str:
    size = os.path.getsize(out)
    return (
        f"wrote {os.fspath(out)} ({size / 1024:.0f} KiB): ONNX opset {OPSET}, policy "
        f"{props['name']!r}, symmetry {props['symmetry']}, inputs {OBS_INPUT} float32 "
        f"[batch, {OBS_SIZE}] and {MASK_INPUT} bool [batch, {NUM_ACTIONS}], outputs "
        f"{LOGITS_OUTPUT} and {ACTION_OUTPUT} (docs/onnx.md)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sixtysix_env.policy.onnx",
        description="convert a numpy policy file (.npz) or a shipped policy to an ONNX model",
    )
    parser.add_argument("policy", help="a policy file (.npz) or a shipped policy's name")
    parser.add_argument("-o", "--output", required=True, help="the model to write (.onnx)")
    parser.add_argument("--name", help="the policy's name in the model (default: the file's)")
    args = parser.parse_args(argv)
    try:
        props = convert(args.policy, args.output, args.name)
    except OnnxUnavailableError as e:  # the [onnx] extra is missing
        print(f"{parser.prog}: {e}", file=sys.stderr)
        return 2
    except OnnxExportError as e:  # an unknown policy, an output not named .onnx
        print(f"{parser.prog}: {e}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as e:  # a policy file that does not load (PolicyFileError)
        print(f"{parser.prog}: {e}", file=sys.stderr)
        return 1
    print(summary_line(args.output, props))
    return 0


if __name__ == "__main__":
    sys.exit(main())
