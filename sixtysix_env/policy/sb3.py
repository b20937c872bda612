"""A Stable-Baselines3 model file (``model.save("my_model")`` -> ``my_model.zip``) as a
numpy policy, for the models the docs' recipes train:

==============================  ===================================  ==========================
algorithm                       policy                               the network read
==============================  ===================================  ==========================
``MaskablePPO`` (sb3-contrib)   ``MultiInputPolicy`` on SixtySix-v0  ``mlp_extractor.policy_net``
``PPO``, ``A2C``                ``MlpPolicy`` on ``MaskInInfo``      and ``action_net``
``DQN``                         either                               ``q_net`` (greedy)
==============================  ===================================  ==========================

On the ``Dict`` observation SB3's ``CombinedExtractor`` flattens the action
mask and the observation and concatenates them in the space's key order; the
numpy network reads the same (``PolicyNetwork(inputs=...)``, a policy file
of format version 3). On the flat observation it reads the observation alone.

Nothing in the file is unpickled: the model's record (``data``) is read as
JSON text, where SB3 keeps a readable copy of what it pickles (the policy's
module, ``net_arch``, the activation's class name, the observation space),
and the weights (``policy.pth``) are read with ``torch.load(weights_only=True)``,
which builds tensors and nothing else. So reading a model needs torch (the
``[train]`` extra) but neither SB3 nor the class that trained it.

Everything is checked before anything large is built: the file (a regular file, opened
so that a FIFO cannot block), its zip directory (few members, each and all together of
bounded size as declared, none encrypted; only ``data``, ``policy.pth`` and
``_stable_baselines3_version`` are decompressed, each under its own bound) and what
``policy.pth`` declares, read without unpickling (:mod:`.torch_file`): few tensors, each
dense and contiguous over exactly its storage, of bounded size, and the layers' shapes,
before ``torch.load`` builds them.

The network plays argmax over the legal actions of the actor's logits (PPO,
A2C) or of the Q-values (DQN): the move the SB3 model ranks first among the
legal ones (``MaskablePPO.predict(..., action_masks=mask, deterministic=True)``;
a plain PPO or DQN knows no masks, and its ``predict`` may name an illegal
move). ``tests/policy/test_sb3_models.py`` checks the moves against SB3's own
on 100,000 observations from real games.
"""

from __future__ import annotations

import io
import json
import os
import re
import zipfile
import zlib
from typing import Any

import numpy as np

from ..game.actions import NUM_ACTIONS
from ..util.bounded import open_regular
from ..util.files import check_regular_file
from .agent import PolicyAgent
from .fileformat import MAX_PARAMETERS, PolicyFileError, check_network
from .network import INPUTS, PolicyNetwork
from .torch_file import TensorRecord, read_torch_file

#: The policy modules whose networks are read here, by what they are.
ACTOR_CRITIC_MODULES = (
    "stable_baselines3.common.policies",  # PPO, A2C
    "sb3_contrib.common.maskable.policies",  # MaskablePPO
)
Q_NETWORK_MODULES = ("stable_baselines3.dqn.policies",)  # DQN

#: The activations a numpy network has, by the class name SB3 records.
_ACTIVATIONS = {
    "<class 'torch.nn.modules.activation.ReLU'>": "relu",
    "<class 'torch.nn.modules.activation.Tanh'>": "tanh",
}
#: SB3's defaults where ``policy_kwargs`` names no activation.
_DEFAULT_ACTIVATION = {"actor-critic": "tanh", "q-network": "relu"}
_MAX_DATA_BYTES = 4 * 1024 * 1024
_MAX_WEIGHT_BYTES = 8 * MAX_PARAMETERS + (1 << 20)  # the actor and critic (or target) nets
_HELP = (
    "an SB3 model here is a MaskablePPO, PPO, A2C or DQN with MultiInputPolicy on "
    "SixtySix-v0's Dict observation or MlpPolicy on the flat one (MaskInInfo), as "
    "docs/ecosystem.md trains them; for another kind of model write an agent class "
    "(docs/own-agent.md)"
)


class SB3ModelError(PolicyFileError):
    """An SB3 model file that cannot be played here, and why."""


#: Bounds checked before anything in a model file is read beyond its zip directory.
MAX_MODEL_BYTES = 256 * 1024 * 1024
MAX_MODEL_MEMBERS = 16  # SB3 writes 6
MAX_MEMBER_BYTES = 256 * 1024 * 1024
#: All members together, as declared: a run's model (policy, optimizer) is far below.
MAX_MODEL_TOTAL_BYTES = 512 * 1024 * 1024
#: The ``_stable_baselines3_version`` member (SB3 writes "2.3.2" and the like).
MAX_VERSION_BYTES = 64


def open_model_file(path: str | os.PathLike, where: str):
    """The model file opened for reading (binary), refused as :func:`check_model_file`
    refuses, and opened so that a FIFO swapped in since the check cannot block."""
    return open_regular(path, where, MAX_MODEL_BYTES, "a model file is read up to",
                        SB3ModelError)


def check_model_file(path: str | os.PathLike, where: str) -> None:
    """Refuse what is not a regular file of at most :data:`MAX_MODEL_BYTES`."""
    check_regular_file(path, where, MAX_MODEL_BYTES, "a model file is read up to",
                       SB3ModelError)


def check_members(zf: zipfile.ZipFile, where: str) -> None:
    """Few members, none over :data:`MAX_MEMBER_BYTES` uncompressed and all together at most
    :data:`MAX_MODEL_TOTAL_BYTES` (as declared: a small zip can declare gigabytes, and
    Python's zip reader stops at the declared size), nothing encrypted."""
    infos = zf.infolist()
    if len(infos) > MAX_MODEL_MEMBERS:
        raise SB3ModelError(
            f"{where}: the zip has {len(infos)} members; a model has at most {MAX_MODEL_MEMBERS}"
        )
    for info in infos:
        if info.file_size > MAX_MEMBER_BYTES or info.flag_bits & 0x1:
            raise SB3ModelError(
                f"{where}: member {info.filename!r} declares {info.file_size} bytes"
                + (" and is encrypted" if info.flag_bits & 0x1 else "")
                + f"; a model's members are at most {MAX_MEMBER_BYTES} bytes, unencrypted"
            )
    total = sum(info.file_size for info in infos)
    if total > MAX_MODEL_TOTAL_BYTES:
        raise SB3ModelError(
            f"{where}: its members declare {total} bytes in all; a model's members hold at "
            f"most {MAX_MODEL_TOTAL_BYTES} bytes together"
        )


def read_model_record(path: str | os.PathLike, where: str | None = None) -> dict[str, Any]:
    """The JSON ``data`` record of an SB3 model file, read as text (nothing unpickled), after
    the file and its zip directory are checked against the bounds above."""
    where = where or f"SB3 model {os.fspath(path)!r}"
    try:
        with open_model_file(path, where) as f, zipfile.ZipFile(f) as zf:
            check_members(zf, where)
            return data_record(zf, where)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as e:
        raise SB3ModelError(f"{where} is not a readable zip file ({e})") from None


def _member(zf: zipfile.ZipFile, where: str, name: str, missing: str, too_big: str,
            limit: int) -> zipfile.ZipInfo:
    """The model's zip member ``name``, refused where the model has none (it has no
    ``missing``) or where it is over ``limit`` bytes (``too_big``, formatted with its ``size``
    and the ``limit``)."""
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise SB3ModelError(f"{where} is not an SB3 model: it has no {missing}") from None
    if info.file_size > limit:
        raise SB3ModelError(f"{where}: " + too_big.format(size=info.file_size, limit=limit))
    return info


def data_record(zf: zipfile.ZipFile, where: str) -> dict[str, Any]:
    """The model's JSON ``data`` record (a bounded member), read as text."""
    info = _member(zf, where, "data", "'data' record",
                   "its 'data' record is {size} bytes, over the {limit} read here",
                   _MAX_DATA_BYTES)
    try:
        data = json.loads(zf.read(info).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError, zlib.error) as e:
        raise SB3ModelError(f"{where}: its 'data' record is not JSON ({e})") from None
    if not isinstance(data, dict):
        raise SB3ModelError(f"{where}: its 'data' record is not a JSON object")
    return data


def _entry(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _kind(data: dict[str, Any], where: str) -> tuple[str, str]:
    """(``"actor-critic"`` or ``"q-network"``, the algorithm's name as far as the record tells)."""
    module = _entry(data, "policy_class").get("__module__")
    if module in Q_NETWORK_MODULES:
        return "q-network", "DQN"
    if module in ACTOR_CRITIC_MODULES:
        if module.startswith("sb3_contrib"):
            return "actor-critic", "MaskablePPO"
        return "actor-critic", "PPO" if "clip_range" in data else "A2C"
    if module in ("sixtysix_training.sb3.policy", "sixtysix_training.sb3_policy"):  # old runs'
        raise SB3ModelError(
            f"{where} was saved by `sixtysix train`: export its run folder with "
            "sixtysix export RUN -o policy.npz (then name policy.npz)"
        )
    raise SB3ModelError(f"{where}: a policy class from module {module!r}; {_HELP}")


def _inputs(data: dict[str, Any], where: str) -> tuple[str, ...]:
    """What the network reads, from the readable copy of the observation space."""
    space = _entry(data, "observation_space")
    kind = space.get(":type:")
    if kind == "<class 'gymnasium.spaces.box.Box'>":
        return ("observation",)
    if kind == "<class 'gymnasium.spaces.dict.Dict'>":
        # SB3 writes the spaces as their repr: "{'action_mask': Box(...), 'observation': Box(...)}"
        keys = tuple(re.findall(r"'(\w+)': ", str(space.get("spaces", ""))))
        if sorted(keys) == sorted(INPUTS):
            return keys
        raise SB3ModelError(
            f"{where}: a Dict observation with keys {list(keys)}; SixtySix-v0's has "
            f"{sorted(INPUTS)}"
        )
    raise SB3ModelError(f"{where}: an observation space of type {kind!r}; {_HELP}")


def _activation(data: dict[str, Any], kind: str, where: str) -> str:
    name = _entry(data, "policy_kwargs").get("activation_fn")
    if name is None:
        return _DEFAULT_ACTIVATION[kind]
    if name not in _ACTIVATIONS:
        raise SB3ModelError(
            f"{where}: activation {name}; a numpy network has ReLU or Tanh"
        )
    return _ACTIVATIONS[name]


def _check_extractor(data: dict[str, Any], where: str) -> None:
    """The features are the flattened observation (SB3's ``FlattenExtractor`` or
    ``CombinedExtractor``): no extractor class of the user's own, nothing of it to read."""
    kwargs = _entry(data, "policy_kwargs")
    for key in ("features_extractor_class", "features_extractor_kwargs"):
        if key in kwargs:
            raise SB3ModelError(
                f"{where}: policy_kwargs sets {key}; only SB3's own flattening extractors "
                "can be read as a numpy network"
            )


def _weights(zf: zipfile.ZipFile, where: str) -> tuple[bytes, dict[str, TensorRecord]]:
    """``policy.pth``'s bytes, and its tensors by name as it declares them (read without
    unpickling, :func:`.torch_file.read_torch_file`: nothing built yet)."""
    info = _member(zf, where, "policy.pth", "'policy.pth'",
                   "its weights are {size} bytes, over the {limit} of a policy file's limits",
                   _MAX_WEIGHT_BYTES)
    raw = zf.read(info)
    state, _ = read_torch_file(raw, f"{where}: its weights (policy.pth)", SB3ModelError,
                               max_elements=MAX_PARAMETERS)
    if not isinstance(state, dict):
        raise SB3ModelError(f"{where}: its weights (policy.pth) are not a state dict")
    return raw, {k: v for k, v in state.items()
                 if isinstance(k, str) and isinstance(v, TensorRecord)}


def _arrays(raw: bytes, keys: list[str], where: str) -> dict[str, np.ndarray]:
    """The tensors ``keys`` of ``policy.pth`` (checked already) as float32 arrays, built by
    ``torch.load(weights_only=True)``."""
    try:
        import torch  # noqa: PLC0415  the [train] extra, only to read SB3's weights
    except ModuleNotFoundError:
        raise SB3ModelError(
            f"{where}: reading an SB3 model needs torch, from the [train] extra: "
            'pip install "sixtysix[train]" (in a clone: pip install -e ".[train]")'
        ) from None
    try:
        state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many kinds for a damaged or crafted file
        raise SB3ModelError(f"{where}: its weights (policy.pth) cannot be read ({e})") from None
    out = {}
    for key in keys:
        value = state.get(key) if isinstance(state, dict) else None
        if not (isinstance(value, torch.Tensor) and value.layout == torch.strided
                and value.is_contiguous()):  # as read_torch_file checked: never otherwise
            raise SB3ModelError(f"{where}: its weight {key!r} is not a dense tensor")
        out[key] = value.detach().to(torch.float32).numpy()
    return out


def _version(zf: zipfile.ZipFile, where: str) -> str | None:
    """The ``_stable_baselines3_version`` member's text (at most :data:`MAX_VERSION_BYTES`)."""
    if "_stable_baselines3_version" not in zf.namelist():
        return None
    info = _member(zf, where, "_stable_baselines3_version", "version",
                   "its _stable_baselines3_version is {size} bytes; at most {limit}",
                   MAX_VERSION_BYTES)
    return zf.read(info).decode("utf-8", "replace").strip()


def _layers(state: dict[str, TensorRecord], prefix: str) -> list[tuple[str, str]]:
    """The names of the (weight, bias) pairs of the ``nn.Sequential`` at ``prefix``, in
    order (``""`` where one is missing)."""
    found: dict[int, dict[str, str]] = {}
    for key in state:
        m = re.fullmatch(re.escape(prefix) + r"\.(\d+)\.(weight|bias)", key)
        if m:
            found.setdefault(int(m.group(1)), {})[m.group(2)] = key
    return [(found[i].get("weight", ""), found[i].get("bias", "")) for i in sorted(found)]


def _dense_layers(state: dict[str, TensorRecord], kind: str, algorithm: str,
                  where: str) -> list[tuple[str, str]]:
    """The names of the policy's (weight, bias) pairs, their shapes checked: 2-D weights,
    biases as long as their weight's rows."""
    if kind == "q-network":
        layers = _layers(state, "q_net.q_net")
    else:
        layers = _layers(state, "mlp_extractor.policy_net")
        layers.append(("action_net.weight" if "action_net.weight" in state else "",
                       "action_net.bias" if "action_net.bias" in state else ""))
    ok = bool(layers) and all(w and b for w, b in layers)
    ok = ok and all(len(state[w].shape) == 2 and state[b].shape == state[w].shape[:1]
                    for w, b in layers)
    if not ok:
        raise SB3ModelError(
            f"{where}: its weights are not the dense layers of {algorithm}'s policy; {_HELP}"
        )
    return layers


def read_sb3_model(path: str | os.PathLike) -> tuple[PolicyNetwork, dict[str, Any]]:
    """The network of an SB3 model file, and a record of what it is (algorithm, policy,
    inputs, training steps, SB3 version). Raises :class:`SB3ModelError` naming what is
    not supported."""
    where = f"SB3 model {os.fspath(path)!r}"
    try:
        with open_model_file(path, where) as f, zipfile.ZipFile(f) as zf:
            check_members(zf, where)
            data = data_record(zf, where)
            kind, algorithm = _kind(data, where)
            inputs = _inputs(data, where)
            activation = _activation(data, kind, where)
            _check_extractor(data, where)
            raw, state = _weights(zf, where)
            version = _version(zf, where)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, zlib.error) as e:
        raise SB3ModelError(f"{where} is not a readable zip file ({e})") from None
    layers = _dense_layers(state, kind, algorithm, where)
    arrays = _arrays(raw, [name for pair in layers for name in pair], where)
    weights = [np.ascontiguousarray(arrays[w].T) for w, _ in layers]
    biases = [arrays[b] for _, b in layers]
    network = PolicyNetwork(weights, biases, activation, inputs=inputs)
    expect = network.input_size
    widths = [w.shape for w in weights]
    chained = all(a[1] == b[0] for a, b in zip(widths, widths[1:]))
    if widths[0][0] != expect or widths[-1][1] != NUM_ACTIONS or not chained:
        raise SB3ModelError(
            f"{where}: its layers are {[list(s) for s in widths]}; a network over "
            f"{' + '.join(inputs)} ({expect} inputs) with {NUM_ACTIONS} outputs was expected"
        )
    check_network(network, where)
    policy = "MultiInputPolicy" if len(inputs) > 1 else "MlpPolicy"
    record = {
        "algorithm": algorithm,
        "policy": policy,
        "inputs": list(inputs),
        "steps": _int(data.get("num_timesteps")),
        "stable_baselines3": version,
        "file": os.path.basename(os.fspath(path)),
    }
    return network, record


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


def load_sb3_model(
    path: str | os.PathLike, deterministic: bool = True, name: str | None = None
) -> PolicyAgent:
    """An SB3 model file as an agent: its argmax over the legal actions; ``deterministic=False``
    samples the actor's softmax (PPO, A2C; a Q-network has no policy to sample)."""
    network, record = read_sb3_model(path)
    if not deterministic and record["algorithm"] == "DQN":
        raise SB3ModelError(
            f"SB3 model {os.fspath(path)!r} is a DQN: it plays its greedy move "
            "(deterministic=True); its Q-values are no policy to sample"
        )
    if name is None:
        name = os.path.splitext(os.path.basename(os.fspath(path)))[0]
    metadata = {"name": name, "sb3": record}
    return PolicyAgent(network, metadata, deterministic=deterministic, name=name)
