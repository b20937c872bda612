"""Exported policies: a trained network that plays with numpy alone.

A policy file is a ``.npz`` archive (read with ``allow_pickle=False``, so a
crafted file can run no code) holding:

==================  ==========================================================
array               meaning
==================  ==========================================================
``metadata``        uint8: UTF-8 JSON record (see below)
``layer{i}_weight`` float32 ``(inputs, outputs)`` of dense layer ``i``
``layer{i}_bias``   float32 ``(outputs,)``
==================  ==========================================================

The layers form a multi-layer perceptron: the observation vector of
:func:`sixtysix_env.env.observation.encode_view` goes in, every layer but the
last is followed by the activation, and the last one gives one logit per
action id. Illegal actions are masked out before the argmax or the softmax.

A network may declare a **symmetry** (``architecture.symmetry``; file format
version 2, which older loaders refuse instead of playing it wrongly):
``"suits"`` plays the mean of the network's logits over the 24 renamings of
the four suits. The rules treat the suits alike, so a renamed position is the
same game; a network trained on raw suits answers the renamings slightly
differently, and their mean is an ensemble of 24 views of one network (each
logit read back under its own renaming, see
:func:`sixtysix_env.env.observation.suit_relabelling`). The result gives the
same answer for every renaming of a position. A file without a symmetry is
written as version 1, as before.

The metadata record holds ``format`` (``"sixtysix-policy"``),
``format_version``, ``obs_version``, ``obs_size``, ``num_actions``,
``rules`` (the rule switches it was trained under), ``architecture``
(``hidden``, ``activation``, ``layers`` as ``[inputs, outputs]`` pairs, and
``symmetry`` where there is one),
``training`` (algorithm, config, steps, wall time), ``evaluation`` (figures
measured at export) and ``sha256``, a checksum over every array but the
metadata. Loading checks all of it and refuses, with a message naming what
was expected, a file for another observation version, a malformed file or
one whose weights no longer match their checksum.

    from sixtysix_env.policy import load_policy
    agent = load_policy("checkpoints/sixtysix-ppo.npz")           # argmax
    agent = load_policy("checkpoints/sixtysix-ppo.npz", deterministic=False)  # sampling

``make_agent("path/to/file.npz")`` (and so ``sixtysix eval``, the
environments' ``opponent=`` and play against a person) loads files this way.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import itertools
import json
import os
import random
import stat
import struct
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .actions import NUM_ACTIONS, suit_relabelled_actions
from .env.observation import (
    OBS_SIZE,
    OBS_VERSION,
    check_obs_version,
    encode_view,
    suit_relabelling,
)
from .errors import SixtySixError
from .view import PlayerView

__all__ = [
    "ACTIVATIONS",
    "FORMAT",
    "FORMAT_VERSION",
    "SYMMETRIES",
    "PolicyAgent",
    "PolicyFileError",
    "PolicyNetwork",
    "load_policy",
    "read_policy",
    "save_policy",
]

FORMAT = "sixtysix-policy"
#: The version written for a plain network; one with a symmetry is written as
#: ``SYMMETRY_FORMAT_VERSION``, so that a loader that cannot apply it refuses the file.
FORMAT_VERSION = 1
SYMMETRY_FORMAT_VERSION = 2
FORMAT_VERSIONS = (FORMAT_VERSION, SYMMETRY_FORMAT_VERSION)
ACTIVATIONS = ("tanh", "relu")
#: The symmetries a network may be averaged over (``PolicyNetwork(symmetry=...)``).
SYMMETRIES = ("suits",)
#: Averaged logits this close to the best count as a tie (the lowest action id plays):
#: equivalent moves differ only by float rounding, about 1e-6 here.
SYMMETRY_TIE = 1e-4
METADATA_KEY = "metadata"

_ACTION_BITS = np.arange(NUM_ACTIONS, dtype=np.int64)


class PolicyFileError(SixtySixError, ValueError):
    """A policy file that cannot be used: unreadable, malformed, modified or mismatched."""


def _layer_keys(i: int) -> tuple[str, str]:
    return f"layer{i}_weight", f"layer{i}_bias"


def _checksum(arrays: Mapping[str, np.ndarray]) -> str:
    """sha256 over every array's name, dtype, shape and bytes, in name order."""
    h = hashlib.sha256()
    for key in sorted(arrays):
        if key == METADATA_KEY:
            continue
        a = np.ascontiguousarray(arrays[key])
        h.update(key.encode())
        h.update(str(a.dtype).encode())
        h.update(repr(tuple(a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def _suit_tables() -> tuple[np.ndarray, np.ndarray]:
    """(observation index maps (24, OBS_SIZE), action maps (24, NUM_ACTIONS)), identity first."""
    perms = list(itertools.permutations(range(4)))
    obs = np.stack([suit_relabelling(p) for p in perms])
    act = np.array([suit_relabelled_actions(p) for p in perms], dtype=np.intp)
    obs.setflags(write=False)
    act.setflags(write=False)
    return obs, act


class PolicyNetwork:
    """The dense layers of a policy: observation vectors in, action logits out.

    With ``symmetry="suits"`` the logits are the mean of the layers' logits
    over the 24 renamings of the suits (the module's docstring says why).
    """

    def __init__(
        self,
        weights: Sequence[np.ndarray],
        biases: Sequence[np.ndarray],
        activation: str,
        symmetry: str | None = None,
    ) -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(
                f"unknown activation {activation!r}; allowed: {', '.join(ACTIVATIONS)}"
            )
        if symmetry is not None and symmetry not in SYMMETRIES:
            raise ValueError(
                f"unknown symmetry {symmetry!r}; allowed: None (a plain network) or "
                f"{', '.join(map(repr, SYMMETRIES))}"
            )
        self.symmetry = symmetry
        if len(weights) != len(biases) or not weights:
            raise ValueError(
                "a policy network needs one bias per weight matrix, and at least one layer"
            )
        self.weights = tuple(np.ascontiguousarray(w, dtype=np.float32) for w in weights)
        self.biases = tuple(np.ascontiguousarray(b, dtype=np.float32) for b in biases)
        self.activation = activation

    @property
    def hidden(self) -> list[int]:
        return [int(w.shape[1]) for w in self.weights[:-1]]

    @property
    def layers(self) -> list[list[int]]:
        return [[int(w.shape[0]), int(w.shape[1])] for w in self.weights]

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Action logits (float32) for one observation ``(OBS_SIZE,)`` or a batch ``(n, OBS_SIZE)``."""
        if self.symmetry is None:
            return self.layer_logits(obs)
        x = np.asarray(obs, dtype=np.float32)
        obs_maps, act_maps = _suit_tables()
        # (..., 24, 1, OBS_SIZE): every renaming of each position as a one-row matrix of
        # its own, so the layers make one small product per renaming. One product of 24
        # rows is a little faster alone, but it starts BLAS threads, which fight over the
        # cores when another process holds them (26 ms against 0.6 ms per decision, on 2
        # cores beside an evaluation worker).
        out = self.layer_logits(x[..., obs_maps][..., None, :])[..., 0, :]
        # Renaming r puts action a's logit at act_maps[r, a]: read each one back there.
        back = np.take_along_axis(out, np.broadcast_to(act_maps, out.shape), axis=-1)
        return back.mean(axis=-2, dtype=np.float32)

    def layer_logits(self, obs: np.ndarray) -> np.ndarray:
        """The layers' own logits, without the symmetry (the same as :meth:`logits` for a
        plain network)."""
        x = np.asarray(obs, dtype=np.float32)
        last = len(self.weights) - 1
        relu = self.activation == "relu"
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = x @ w
            x += b
            if i < last:
                if relu:
                    np.maximum(x, 0.0, out=x)
                else:
                    np.tanh(x, out=x)
        return x

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Action probabilities with the illegal actions (``mask`` false/0) at exactly 0."""
        logits = self.logits(obs).astype(np.float64)
        legal = np.asarray(mask).astype(bool)
        if not legal.any(axis=-1).all():
            raise ValueError("an action mask with no legal action")
        logits = np.where(legal, logits, -np.inf)
        logits -= logits.max(axis=-1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=-1, keepdims=True)
        return p

    def n_parameters(self) -> int:
        return int(sum(w.size + b.size for w, b in zip(self.weights, self.biases)))


def _mask_of(view: PlayerView) -> np.ndarray:
    return ((np.int64(view.legal_mask) >> _ACTION_BITS) & 1).astype(bool)


class PolicyAgent:
    """An exported policy as an agent: argmax over legal actions, or sampling with ``rng``."""

    def __init__(
        self,
        network: PolicyNetwork,
        metadata: Mapping[str, Any] | None = None,
        deterministic: bool = True,
        name: str | None = None,
    ) -> None:
        if not isinstance(deterministic, bool):
            raise TypeError(f"deterministic must be True or False, got {deterministic!r}")
        self.network = network
        self.metadata = dict(metadata or {})
        self.deterministic = deterministic
        self.name = name or str(self.metadata.get("name") or "policy")

    def action_probabilities(self, view: PlayerView) -> np.ndarray:
        """Probabilities over all 34 action ids (0 for illegal ones) for ``view.seat``."""
        return self.network.probabilities(encode_view(view), _mask_of(view))

    def act(self, view: PlayerView, rng: random.Random) -> int:
        legal = view.legal_mask
        if not legal:
            raise ValueError(f"{self.name}: seat {view.seat} has no legal action in this view")
        if legal & (legal - 1) == 0:  # one legal action: no need to think
            return legal.bit_length() - 1
        mask = _mask_of(view)
        logits = self.network.logits(encode_view(view))
        if self.deterministic:
            z = np.where(mask, logits, -np.inf)
            if self.network.symmetry is None:
                # The first of equal best logits: the same answer on every machine.
                return int(np.argmax(z))
            # Moves that a renaming of the suits maps onto each other in this position
            # (say the 9 of clubs and the 9 of diamonds where nothing else tells the two
            # suits apart) get equal averaged logits, up to float rounding, which depends
            # on the machine and the BLAS path. The first of those within SYMMETRY_TIE of
            # the best is the same answer everywhere.
            return int(np.argmax(z >= z.max() - SYMMETRY_TIE))
        z = np.where(mask, logits.astype(np.float64), -np.inf)
        z -= z.max()
        p = np.exp(z)
        cum = np.cumsum(p)
        u = rng.random() * cum[-1]
        a = int(np.searchsorted(cum, u, side="right"))
        a = min(a, NUM_ACTIONS - 1)
        while not mask[a]:  # u landed on the edge of an illegal (zero-width) action
            a -= 1
        return a

    def __repr__(self) -> str:
        mode = "argmax" if self.deterministic else "sampling"
        return (
            f"PolicyAgent({self.name!r}, {self.network.layers}, {self.network.activation}, {mode})"
        )


def save_policy(
    path: str | os.PathLike,
    network: PolicyNetwork,
    metadata: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Write ``network`` and a metadata record to ``path`` (a ``.npz``); returns the record.

    The format fields (format, versions, sizes, architecture, checksum) are
    filled in here; ``metadata`` adds the rest (name, rules, training,
    evaluation), and must be JSON-serialisable.
    """
    arrays: dict[str, np.ndarray] = {}
    for i, (w, b) in enumerate(zip(network.weights, network.biases)):
        kw, kb = _layer_keys(i)
        arrays[kw], arrays[kb] = w, b
    record = dict(metadata or {})
    architecture = {
        "type": "mlp",
        "hidden": network.hidden,
        "activation": network.activation,
        "layers": network.layers,
    }
    if network.symmetry is not None:
        architecture["symmetry"] = network.symmetry
    record.update(
        format=FORMAT,
        format_version=FORMAT_VERSION if network.symmetry is None else SYMMETRY_FORMAT_VERSION,
        obs_version=OBS_VERSION,
        obs_size=OBS_SIZE,
        num_actions=NUM_ACTIONS,
        architecture=architecture,
        sha256=_checksum(arrays),
    )
    text = json.dumps(record, sort_keys=True, allow_nan=False)
    arrays[METADATA_KEY] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    _validate_shapes(network.weights, network.biases, str(path))
    check_network(network, f"policy {os.fspath(path)!r}")  # nothing is written that would not load
    path = os.fspath(path)
    if not path.endswith(".npz"):
        raise ValueError(f"a policy file name must end in .npz, got {path!r}")
    tmp = path + ".tmp.npz"
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **arrays)
    os.replace(tmp, path)
    return record


def _validate_shapes(weights, biases, where: str) -> None:
    n_in = OBS_SIZE
    for i, (w, b) in enumerate(zip(weights, biases)):
        if w.ndim != 2 or w.shape[0] != n_in or b.shape != (w.shape[1],):
            raise PolicyFileError(
                f"{where}: layer {i} has weight {tuple(w.shape)} and bias {tuple(b.shape)}; "
                f"expected weight ({n_in}, n) and bias (n,)"
            )
        n_in = w.shape[1]
    if n_in != NUM_ACTIONS:
        raise PolicyFileError(
            f"{where}: the last layer gives {n_in} outputs; expected one per action ({NUM_ACTIONS})"
        )


def _require(cond: bool, where: str, what: str) -> None:
    if not cond:
        raise PolicyFileError(f"{where}: {what}")


#: Bounds checked before any array data is read (a crafted file may declare anything).
MAX_LAYERS = 16
MAX_LAYER_WIDTH = 65536
MAX_PARAMETERS = 1 << 25  # 128 MiB of float32
MAX_METADATA_BYTES = 1 << 20
_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_MAX_HEADER = 4096  # an .npy header of a plain array is ~128 bytes
# The central directory of a policy file: at most this many entries of this many bytes
# each (numpy writes ~60), read from the archive's end record before zipfile parses it.
MAX_MEMBERS = 1 + 2 * MAX_LAYERS
_MAX_DIRECTORY_BYTES = MAX_MEMBERS * 1024
# Every logit of a valid file stays within this bound for every observation
# (the features lie in [0, 1]); trained networks are many orders of magnitude below.
MAX_LOGIT_BOUND = 1e20
_EOCD = struct.Struct("<4s4H2LH")  # the zip's end of central directory record
_EOCD_SIG, _ZIP64_LOCATOR_SIG = b"PK\x05\x06", b"PK\x06\x07"


class _Shape:
    """An array's shape alone, for :func:`_validate_shapes` before the data is read."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape
        self.ndim = len(shape)


def _npy_header(f, where: str, key: str) -> tuple[np.dtype, tuple[int, ...], int]:
    """Read and check an .npy header from ``f``: (dtype, shape, header length)."""
    head = f.read(8)
    _require(
        len(head) == 8 and head[:6] == _NPY_MAGIC, where, f"member {key!r} is not an .npy array"
    )
    major = head[6]
    _require(major in (1, 2, 3), where, f"member {key!r} has .npy format version {major}")
    size_bytes = 2 if major == 1 else 4
    raw = f.read(size_bytes)
    _require(len(raw) == size_bytes, where, f"member {key!r} is truncated")
    hlen = int.from_bytes(raw, "little")
    _require(hlen <= _MAX_HEADER, where, f"member {key!r} declares a {hlen}-byte header")
    text = f.read(hlen)
    _require(len(text) == hlen, where, f"member {key!r} is truncated")
    try:
        header = ast.literal_eval(text.decode("latin1" if major < 3 else "utf-8"))
    except (ValueError, SyntaxError, MemoryError, RecursionError, UnicodeDecodeError):
        raise PolicyFileError(f"{where}: member {key!r} has a malformed .npy header") from None
    _require(
        isinstance(header, dict) and set(header) == {"descr", "fortran_order", "shape"},
        where,
        f"member {key!r} has a malformed .npy header",
    )
    descr, shape = header["descr"], header["shape"]
    try:
        dtype = np.dtype(descr) if isinstance(descr, str) else None
    except (TypeError, ValueError):
        dtype = None
    _require(
        dtype is not None and dtype.kind in "biuf" and header["fortran_order"] is False,
        where,
        f"member {key!r} holds {descr!r} data; expected a plain float32 or uint8 array",
    )
    _require(
        isinstance(shape, tuple)
        and len(shape) <= 2
        and all(type(n) is int and 0 <= n <= MAX_PARAMETERS for n in shape),
        where,
        f"member {key!r} has shape {shape!r}",
    )
    return dtype, shape, 8 + size_bytes + hlen


def _read_member(zf, info, where: str, key: str, dtype, shape) -> np.ndarray:
    """Read one member whose dtype and shape are known in advance, reading no more than that."""
    n = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    with zf.open(info) as f:
        got_dtype, got_shape, hsize = _npy_header(f, where, key)
        _require(
            got_dtype == np.dtype(dtype) and got_shape == tuple(shape),
            where,
            f"array {key!r} is {got_dtype} {got_shape}; expected {np.dtype(dtype)} {tuple(shape)}",
        )
        _require(
            info.file_size == hsize + n,
            where,
            f"member {key!r} declares {info.file_size} bytes; its header says {hsize + n}",
        )
        data = f.read(n)
        _require(len(data) == n and not f.read(1), where, f"member {key!r} has the wrong length")
    return np.frombuffer(data, dtype=dtype).reshape(shape)


def read_policy(path: str | os.PathLike) -> tuple[PolicyNetwork, dict[str, Any]]:
    """The network and metadata of a policy file, after every check (see the module docstring).

    Every problem is a :class:`PolicyFileError`. The archive's member names,
    count, compression, encryption and declared sizes, and each array's
    header, are checked against the metadata before that array's data is
    read, and no more than the expected bytes are ever decompressed: a
    crafted file costs little time or memory to refuse.
    """
    where = f"policy file {os.fspath(path)!r}"
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise PolicyFileError(f"{where} does not exist") from None
    except (OSError, ValueError) as e:
        raise PolicyFileError(f"{where} cannot be read ({e})") from None
    # A FIFO or device would block or never end: refuse before opening.
    if not stat.S_ISREG(st.st_mode):
        raise PolicyFileError(f"{where} is not a regular file (a folder, FIFO or device)")
    max_bytes = 4 * MAX_PARAMETERS + MAX_METADATA_BYTES + (1 << 20)
    if st.st_size > max_bytes:
        raise PolicyFileError(
            f"{where} is {st.st_size} bytes; a policy file is at most {max_bytes}"
        )
    try:
        return _read_policy(path, where)
    except PolicyFileError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, OSError, EOFError, ValueError,
            NotImplementedError, RuntimeError, MemoryError, RecursionError, KeyError,
            OverflowError) as e:
        raise PolicyFileError(
            f"{where} is not a readable {FORMAT} archive ({type(e).__name__}: {e})"
        ) from None


def _read_policy(path, where: str) -> tuple[PolicyNetwork, dict[str, Any]]:
    with open(path, "rb") as fh:
        magic = fh.read(6)
        if magic == _NPY_MAGIC:
            raise PolicyFileError(
                f"{where} is a single .npy array, not a {FORMAT} .npz archive"
            )
        if magic[:4] not in _ZIP_MAGIC:
            raise PolicyFileError(
                f"{where} is not a readable {FORMAT} file: it is not a zip archive (.npz) "
                "such as `sixtysix export` writes"
            )
        _check_directory(fh, where)
        fh.seek(0)
        with zipfile.ZipFile(fh) as zf:
            return _read_archive(zf, where)


def _check_directory(fh, where: str) -> None:
    """Refuse an archive whose central directory is too large for a policy, from its end
    record alone: zipfile reads the whole directory (millions of entries can fit within
    the file-size cap) before its members can be counted."""
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    tail_start = max(0, size - _EOCD.size - 0xFFFF)
    fh.seek(tail_start)
    tail = fh.read()
    # The record zipfile would use: the last one, whose comment ends the file.
    at = len(tail) - _EOCD.size
    if tail[at : at + 4] != _EOCD_SIG:
        at = tail.rfind(_EOCD_SIG)
    _require(at >= 0 and at + _EOCD.size <= len(tail), where, "no zip end record was found")
    _sig, _disk, _cd_disk, here, total, cd_size, _cd_offset, _comment = _EOCD.unpack_from(tail, at)
    _require(
        tail_start + at < 20 or tail[at - 20 : at - 16] != _ZIP64_LOCATOR_SIG,
        where,
        "it is a zip64 archive; a policy file is a plain zip (as numpy writes)",
    )
    _require(
        here <= MAX_MEMBERS and total <= MAX_MEMBERS and cd_size <= _MAX_DIRECTORY_BYTES,
        where,
        f"its central directory declares {total} members in {cd_size} bytes; a policy has "
        f"at most {MAX_MEMBERS} members in {_MAX_DIRECTORY_BYTES} bytes",
    )


def check_network(network: PolicyNetwork, where: str = "the network") -> None:
    """Raise :class:`PolicyFileError` for a network the loader would refuse: too many or
    too wide layers, too many parameters, values that are not finite, or outputs that
    can overflow."""
    layers = network.layers
    n_params = network.n_parameters()
    _require(
        len(layers) <= MAX_LAYERS
        and all(0 < n <= MAX_LAYER_WIDTH for x in layers for n in x)
        and n_params <= MAX_PARAMETERS,
        where,
        f"{len(layers)} layers of widths {[b for _, b in layers]} ({n_params} parameters) are "
        f"over a policy file's limits (at most {MAX_LAYERS} layers, {MAX_LAYER_WIDTH} units "
        f"wide, {MAX_PARAMETERS} parameters)",
    )
    _require(
        all(np.isfinite(a).all() for a in (*network.weights, *network.biases)),
        where,
        "its weights hold NaN or infinite values",
    )
    _check_finite_outputs(network, where)


def logit_bound(weights: Sequence[np.ndarray], biases: Sequence[np.ndarray]) -> float:
    """An upper bound of every |logit| over all observations in [0, 1]: each layer's
    output is at most the sum of |weight| times its input bound plus |bias|, and ReLU
    and tanh do not grow it."""
    bound = 1.0
    with np.errstate(over="ignore"):
        for w, b in zip(weights, biases):
            rows = np.abs(w.astype(np.float64)).sum(axis=0) * bound + np.abs(b.astype(np.float64))
            bound = float(rows.max())
    return bound if np.isfinite(bound) else float("inf")


def _check_finite_outputs(network: PolicyNetwork, where: str) -> None:
    """The network's logits are finite for every observation: a bound on the weights, and
    a probe batch of observations through the real forward pass."""
    bound = logit_bound(network.weights, network.biases)
    _require(
        bound <= MAX_LOGIT_BOUND,
        where,
        f"its weights can make logits up to {bound:.3g} in size (at most {MAX_LOGIT_BOUND:.0e}): "
        "the network's outputs overflow",
    )
    rng = np.random.default_rng(0)
    probe = np.concatenate(
        [np.zeros((1, OBS_SIZE)), np.ones((1, OBS_SIZE)), rng.integers(0, 2, (30, OBS_SIZE))]
    ).astype(np.float32)
    with np.errstate(all="ignore"):
        finite = bool(np.isfinite(network.logits(probe)).all())
    _require(finite, where, "its logits are not finite on a probe batch of observations")


def _read_archive(zf: zipfile.ZipFile, where: str) -> tuple[PolicyNetwork, dict[str, Any]]:
    """The network and metadata of an open archive, every check passed, in this order:
    the members, the metadata record, its fields, the architecture, the arrays, the checksum."""
    members = _members(zf, where)
    meta = _read_metadata(zf, members, where)
    _check_metadata(meta, where)
    layers, activation = _architecture(meta, where)
    symmetry = _symmetry(meta, where)
    weights, biases, arrays = _read_weights(zf, members, layers, where)
    digest = _checksum(arrays)
    _require(
        digest == meta.get("sha256"),
        where,
        f"the weights do not match the checksum in its metadata (expected sha256 "
        f"{meta.get('sha256')!r}, found {digest!r}): the file was modified or damaged after export",
    )
    network = PolicyNetwork(weights, biases, activation, symmetry)
    _check_finite_outputs(network, where)
    return network, meta


def _members(zf: zipfile.ZipFile, where: str) -> dict[str, zipfile.ZipInfo]:
    """The archive's ``.npy`` members by key: few, flat, unique, plainly compressed."""
    infos = zf.infolist()
    _require(
        len(infos) <= MAX_MEMBERS,
        where,
        f"the archive has {len(infos)} members; a policy has at most {MAX_MEMBERS}",
    )
    members: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        name = info.filename
        _require(name.endswith(".npy") and "/" not in name, where, f"unexpected member {name!r}")
        key = name[:-4]
        _require(key not in members, where, f"member {name!r} appears twice")
        _require(not info.flag_bits & 0x1, where, f"member {name!r} is encrypted")
        _require(
            info.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED),
            where,
            f"member {name!r} uses compression method {info.compress_type}; "
            "expected stored or deflated (as numpy writes)",
        )
        members[key] = info
    return members


def _read_metadata(zf: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo], where: str) -> Any:
    """The metadata record's JSON (its size checked before it is read)."""
    _require(METADATA_KEY in members, where, f"no {METADATA_KEY!r} record; not a {FORMAT} file")
    minfo = members[METADATA_KEY]
    _require(
        minfo.file_size <= MAX_METADATA_BYTES,
        where,
        f"the metadata record declares {minfo.file_size} bytes; at most {MAX_METADATA_BYTES}",
    )
    with zf.open(minfo) as f:
        dtype, shape, hsize = _npy_header(f, where, METADATA_KEY)
        _require(
            dtype == np.uint8 and len(shape) == 1,
            where,
            f"the {METADATA_KEY!r} record must be UTF-8 JSON bytes (uint8), got {dtype}",
        )
        _require(
            minfo.file_size == hsize + shape[0],
            where,
            f"the metadata record declares {minfo.file_size} bytes; its header says "
            f"{hsize + shape[0]}",
        )
        raw = f.read(shape[0])
        _require(len(raw) == shape[0] and not f.read(1), where, "the metadata record is truncated")
    try:
        meta = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        # ValueError covers bad JSON and integers past Python's digit limit.
        raise PolicyFileError(f"{where}: the metadata record is not valid JSON ({e})") from None
    return meta


def _check_metadata(meta: Any, where: str) -> None:
    """The record is an object of this format, and for this observation and action space."""
    _require(isinstance(meta, dict), where, "the metadata record must be a JSON object")
    _require(
        meta.get("format") == FORMAT, where, f"format {meta.get('format')!r}; expected {FORMAT!r}"
    )
    _require(
        type(meta.get("format_version")) is int and meta.get("format_version") in FORMAT_VERSIONS,
        where,
        f"file format version {meta.get('format_version')!r}; this loader reads versions "
        f"{' and '.join(map(str, FORMAT_VERSIONS))}",
    )
    version = meta.get("obs_version")
    _require(
        isinstance(version, int) and not isinstance(version, bool),
        where,
        f"obs_version {version!r} is not an integer",
    )
    try:
        check_obs_version(version)
    except ValueError as e:
        raise PolicyFileError(f"{where}: {e}") from None
    _require(
        meta.get("obs_size") == OBS_SIZE,
        where,
        f"obs_size {meta.get('obs_size')!r}; observation version {OBS_VERSION} has {OBS_SIZE}",
    )
    _require(
        meta.get("num_actions") == NUM_ACTIONS,
        where,
        f"num_actions {meta.get('num_actions')!r}; expected {NUM_ACTIONS}",
    )


def _architecture(meta: dict[str, Any], where: str) -> tuple[list[list[int]], str]:
    """(layers as [inputs, outputs] pairs, activation), within the bounds."""
    arch = meta.get("architecture")
    _require(isinstance(arch, dict), where, "no 'architecture' record")
    activation = arch.get("activation")
    _require(
        activation in ACTIVATIONS,
        where,
        f"activation {activation!r}; expected one of {', '.join(ACTIVATIONS)}",
    )
    layers = arch.get("layers")
    _require(
        isinstance(layers, list)
        and layers
        and all(
            isinstance(x, list) and len(x) == 2 and all(type(n) is int for n in x) for x in layers
        ),
        where,
        "architecture 'layers' must be a list of [inputs, outputs] pairs",
    )
    _require(
        len(layers) <= MAX_LAYERS
        and all(0 < n <= MAX_LAYER_WIDTH for x in layers for n in x)
        and sum(a * b + b for a, b in layers) <= MAX_PARAMETERS,
        where,
        f"architecture 'layers' {layers!r} is out of bounds (at most {MAX_LAYERS} layers, "
        f"{MAX_LAYER_WIDTH} units wide, {MAX_PARAMETERS} parameters)",
    )
    return layers, activation


def _symmetry(meta: dict[str, Any], where: str) -> str | None:
    """The architecture's symmetry: none in a version 1 file, one of SYMMETRIES in version 2."""
    arch = meta["architecture"]
    if meta["format_version"] == FORMAT_VERSION:
        _require(
            "symmetry" not in arch,
            where,
            f"a file of format version {FORMAT_VERSION} declares a symmetry; one with a "
            f"symmetry is version {SYMMETRY_FORMAT_VERSION}",
        )
        return None
    symmetry = arch.get("symmetry")
    _require(
        type(symmetry) is str and symmetry in SYMMETRIES,
        where,
        f"symmetry {symmetry!r}; a file of format version {SYMMETRY_FORMAT_VERSION} declares "
        f"one of {', '.join(map(repr, SYMMETRIES))}",
    )
    return symmetry


def _read_weights(
    zf: zipfile.ZipFile,
    members: dict[str, zipfile.ZipInfo],
    layers: list[list[int]],
    where: str,
) -> tuple[list[np.ndarray], list[np.ndarray], dict[str, np.ndarray]]:
    """(weights, biases, arrays by key): exactly the arrays the architecture lists, shapes
    chained, values finite."""
    expected = {METADATA_KEY}
    for i in range(len(layers)):
        expected.update(_layer_keys(i))
    for key in sorted(expected - set(members)):
        raise PolicyFileError(f"{where}: array {key!r} is missing (the architecture lists it)")
    extra = sorted(set(members) - expected)
    _require(not extra, where, f"unexpected arrays {extra}; expected only {sorted(expected)}")
    # Shapes chain from the observation to the actions before any weight is read.
    _validate_shapes(
        [_Shape((a, b)) for a, b in layers],
        [_Shape((b,)) for _, b in layers],
        where,
    )
    arrays: dict[str, np.ndarray] = {}
    weights, biases = [], []
    for i, (n_in, n_out) in enumerate(layers):
        kw, kb = _layer_keys(i)
        for key, shape in ((kw, (n_in, n_out)), (kb, (n_out,))):
            a = _read_member(zf, members[key], where, key, np.float32, shape)
            _require(
                bool(np.isfinite(a).all()), where, f"array {key!r} holds NaN or infinite values"
            )
            arrays[key] = a
        weights.append(arrays[kw])
        biases.append(arrays[kb])
    _validate_shapes(weights, biases, where)
    return weights, biases, arrays


def load_policy(
    path: str | os.PathLike,
    deterministic: bool = True,
    name: str | None = None,
) -> PolicyAgent:
    """An agent from a policy file: ``deterministic`` plays the argmax, else samples with the agent's rng."""
    network, meta = read_policy(path)
    if name is None:
        name = os.path.splitext(os.path.basename(os.fspath(path)))[0]
    return PolicyAgent(network, meta, deterministic=deterministic, name=name)
