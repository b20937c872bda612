"""The policy file: writing it, and reading it with every check (see :mod:`sixtysix_env.policy`)."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import struct
import zipfile
import zlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..game.actions import NUM_ACTIONS
from ..util.bounded import open_regular
from ..util.errors import SixtySixError
from ..util.files import replaced
from .agent import PolicyAgent
from .network import ACTIVATIONS, INPUTS, OBSERVATION_ONLY, SYMMETRIES, PolicyNetwork, logit_bound
from .observation import OBS_SIZE, OBS_VERSION, check_obs_version

FORMAT = "sixtysix-policy"
#: The version written for a plain network; one with a symmetry is written as
#: ``SYMMETRY_FORMAT_VERSION``, so that a loader that cannot apply it refuses the file.
FORMAT_VERSION = 1
SYMMETRY_FORMAT_VERSION = 2
#: The version written for a network that reads the action mask beside the observation
#: (``architecture.inputs``, a model trained on the ``Dict`` observation), so that a loader
#: that would feed it the observation alone refuses the file.
INPUTS_FORMAT_VERSION = 3
FORMAT_VERSIONS = (FORMAT_VERSION, SYMMETRY_FORMAT_VERSION, INPUTS_FORMAT_VERSION)
METADATA_KEY = "metadata"


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


def save_policy(
    path: str | os.PathLike,
    network: PolicyNetwork,
    metadata: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Write ``network`` and a metadata record to ``path`` (a ``.npz``); returns the record.

    The format fields (format, versions, sizes, architecture, checksum) are
    filled in here; ``metadata`` adds the rest (name, rules, training,
    evaluation), and must be JSON-serialisable.

    Nothing is written that :func:`read_policy` would refuse: the network and the metadata
    record's size are checked first, and the file is written beside ``path``, read back
    with every check of the loader, and only then renamed to ``path``. A refusal is a
    :class:`PolicyFileError` naming what is over which bound, and leaves ``path`` as it was.
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
    version = FORMAT_VERSION
    if network.symmetry is not None:
        architecture["symmetry"] = network.symmetry
        version = SYMMETRY_FORMAT_VERSION
    if network.inputs != OBSERVATION_ONLY:
        architecture["inputs"] = list(network.inputs)
        version = INPUTS_FORMAT_VERSION
    record.update(
        format=FORMAT,
        format_version=version,
        obs_version=OBS_VERSION,
        obs_size=OBS_SIZE,
        num_actions=NUM_ACTIONS,
        architecture=architecture,
        sha256=_checksum(arrays),
    )
    text = json.dumps(record, sort_keys=True, allow_nan=False).encode("utf-8")
    arrays[METADATA_KEY] = np.frombuffer(text, dtype=np.uint8)
    _validate_shapes(network.weights, network.biases, str(path), network.input_size)
    check_network(network, f"policy {os.fspath(path)!r}")  # nothing is written that would not load
    path = os.fspath(path)
    if not path.endswith(".npz"):
        raise ValueError(f"a policy file name must end in .npz, got {path!r}")
    _write_checked(path, arrays, len(text))
    return record


def _write_checked(path: str, arrays: dict[str, np.ndarray], metadata_bytes: int) -> None:
    """Write ``arrays`` beside ``path``, read the file back as :func:`read_policy` reads it,
    then put it at ``path``; a metadata record over the bound is refused before anything is
    written, and a file that would not load is removed, ``path`` left as it was."""
    if metadata_bytes > MAX_METADATA_BYTES:
        raise PolicyFileError(
            f"policy {path!r}: its metadata record would be {metadata_bytes} bytes; a policy "
            f"file's is at most {MAX_METADATA_BYTES} (its loader refuses more); nothing "
            "was written"
        )
    with replaced(path, ".tmp.npz") as tmp:
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **arrays)
        try:
            read_policy(tmp)  # what would not load is never put at path
        except PolicyFileError as e:
            raise PolicyFileError(
                f"policy {path!r}: the file written would not load "
                f"({str(e).replace(repr(tmp), 'it')}); nothing was written"
            ) from None


def _validate_shapes(weights, biases, where: str, n_in: int = OBS_SIZE) -> None:
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
    # A FIFO or device would block or never end: refused before opening, and opened so
    # that one put in its place since cannot block.
    max_bytes = 4 * MAX_PARAMETERS + MAX_METADATA_BYTES + (1 << 20)
    fh = open_regular(path, where, max_bytes, "a policy file is at most", PolicyFileError)
    try:
        with fh:
            return _read_policy(fh, where)
    except PolicyFileError:
        raise
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        zlib.error,
        OSError,
        EOFError,
        ValueError,
        NotImplementedError,
        RuntimeError,
        MemoryError,
        RecursionError,
        KeyError,
        OverflowError,
    ) as e:
        raise PolicyFileError(
            f"{where} is not a readable {FORMAT} archive ({type(e).__name__}: {e})"
        ) from None


def _read_policy(fh, where: str) -> tuple[PolicyNetwork, dict[str, Any]]:
    """Read the open policy file ``fh`` (from :func:`read_policy`)."""
    magic = fh.read(6)
    if magic == _NPY_MAGIC:
        raise PolicyFileError(f"{where} is a single .npy array, not a {FORMAT} .npz archive")
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
    n = network.input_size
    probe = np.concatenate(
        [np.zeros((1, n)), np.ones((1, n)), rng.integers(0, 2, (30, n))]
    ).astype(np.float32)
    with np.errstate(all="ignore"):
        if network.symmetry is None:
            out = network.layer_logits(probe)
        else:
            out = network.logits(probe)
        finite = bool(np.isfinite(out).all())
    _require(finite, where, "its logits are not finite on a probe batch of observations")


def _read_archive(zf: zipfile.ZipFile, where: str) -> tuple[PolicyNetwork, dict[str, Any]]:
    """The network and metadata of an open archive, every check passed, in this order:
    the members, the metadata record, its fields, the architecture, the arrays, the checksum."""
    members = _members(zf, where)
    meta = _read_metadata(zf, members, where)
    _check_metadata(meta, where)
    layers, activation = _architecture(meta, where)
    symmetry = _symmetry(meta, where)
    inputs = _inputs(meta, where)
    n_in = sum(INPUTS[name] for name in inputs)
    weights, biases, arrays = _read_weights(zf, members, layers, where, n_in)
    digest = _checksum(arrays)
    _require(
        digest == meta.get("sha256"),
        where,
        f"the weights do not match the checksum in its metadata (expected sha256 "
        f"{meta.get('sha256')!r}, found {digest!r}): the file was modified or damaged after export",
    )
    network = PolicyNetwork(weights, biases, activation, symmetry, inputs)
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


def _may_declare(meta: dict[str, Any], where: str, key: str, version: int, its: str,
                 one_with: str) -> bool:
    """Whether the file is of format ``version``, the one whose architecture may declare
    ``key``; a file of another version that declares it (``its``) is refused."""
    if meta["format_version"] == version:
        return True
    _require(
        key not in meta["architecture"],
        where,
        f"a file of format version {meta['format_version']} declares {its}; one with "
        f"{one_with} is version {version}",
    )
    return False


def _inputs(meta: dict[str, Any], where: str) -> tuple[str, ...]:
    """What the first layer reads: the observation alone, but in a version 3 file, whose
    ``architecture.inputs`` lists the observation and the action mask in their order."""
    if not _may_declare(meta, where, "inputs", INPUTS_FORMAT_VERSION, "its inputs", "inputs"):
        return OBSERVATION_ONLY
    inputs = meta["architecture"].get("inputs")
    allowed = [list(order) for order in (("observation", "action_mask"),
                                         ("action_mask", "observation"))]
    _require(
        inputs in allowed,
        where,
        f"inputs {inputs!r}; a file of format version {INPUTS_FORMAT_VERSION} declares one of "
        f"{allowed}",
    )
    return tuple(inputs)


def _symmetry(meta: dict[str, Any], where: str) -> str | None:
    """The architecture's symmetry: one of SYMMETRIES in a version 2 file, else none."""
    if not _may_declare(meta, where, "symmetry", SYMMETRY_FORMAT_VERSION, "a symmetry",
                        "a symmetry"):
        return None
    symmetry = meta["architecture"].get("symmetry")
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
    input_size: int = OBS_SIZE,
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
        input_size,
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
    _validate_shapes(weights, biases, where, input_size)
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
