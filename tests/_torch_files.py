"""Torch files (``torch.save``'s zip) written by hand, without torch, for the tests of what
a reader refuses: a state dict whose tensors declare any storage, shape and strides.

The pickle is the one torch writes for a state dict (``OrderedDict`` of
``torch._utils._rebuild_tensor_v2`` over typed storages, protocol 2);
``tests/policy/test_torch_file.py`` checks that torch reads a plain one as written.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
from dataclasses import dataclass


@dataclass
class Tensor:
    """A tensor as the file declares it; ``numel`` is its storage's, ``stride`` row-major
    and ``record`` the storage's bytes (zeros of the declared size) unless given."""

    shape: tuple[int, ...]
    numel: int | None = None
    stride: tuple[int, ...] | None = None
    offset: int = 0
    storage: str = "FloatStorage"
    record: bytes | None = None


def _str(s: str) -> bytes:
    raw = s.encode()
    return b"X" + struct.pack("<I", len(raw)) + raw


def _int(n: int) -> bytes:
    if -(1 << 31) <= n < (1 << 31):
        return b"J" + struct.pack("<i", n)
    raw = n.to_bytes((n.bit_length() + 8) // 8, "little", signed=True)
    return b"\x8a" + bytes([len(raw)]) + raw  # LONG1


def _tuple(items) -> bytes:
    return b"(" + b"".join(_int(n) for n in items) + b"t"


def _row_major(shape) -> tuple[int, ...]:
    out, step = [], 1
    for size in reversed(shape):
        out.append(step)
        step *= size
    return tuple(reversed(out))


def state_dict_pickle(tensors: dict[str, Tensor], extra: bytes = b"") -> bytes:
    """The ``data.pkl`` of a state dict of ``tensors`` (storage keys "0", "1", ...);
    ``extra`` is pickled opcodes pushing one more (key, value) pair."""
    out = bytearray(b"\x80\x02ccollections\nOrderedDict\n)R(")
    for i, (name, t) in enumerate(tensors.items()):
        numel = t.numel if t.numel is not None else _prod(t.shape)
        stride = t.stride if t.stride is not None else _row_major(t.shape)
        out += _str(name) + b"ctorch._utils\n_rebuild_tensor_v2\n("
        out += b"(" + _str("storage") + f"ctorch\n{t.storage}\n".encode() + _str(str(i))
        out += _str("cpu") + _int(numel) + b"tQ"
        out += _int(t.offset) + _tuple(t.shape) + _tuple(stride)
        out += b"\x89ccollections\nOrderedDict\n)RtR"
    out += extra + b"u."
    return bytes(out)


def _prod(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


_ITEMSIZE = {"FloatStorage": 4, "DoubleStorage": 8, "HalfStorage": 2, "LongStorage": 8}


def torch_file(tensors: dict[str, Tensor], extra: bytes = b"", pickle: bytes | None = None,
               compress: int = zipfile.ZIP_STORED) -> bytes:
    """A torch file of the state dict ``tensors`` (see :func:`state_dict_pickle`), or of
    the pickle ``pickle`` as given."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=compress) as zf:
        zf.writestr("archive/data.pkl", pickle or state_dict_pickle(tensors, extra))
        zf.writestr("archive/byteorder", "little")
        for i, t in enumerate(tensors.values()):
            numel = t.numel if t.numel is not None else _prod(t.shape)
            record = t.record if t.record is not None else bytes(
                numel * _ITEMSIZE.get(t.storage, 4))
            zf.writestr(f"archive/data/{i}", record)
        zf.writestr("archive/version", "3\n")
    return buf.getvalue()


MASKABLE = {":type:": "<class 'abc.ABCMeta'>",
            "__module__": "sb3_contrib.common.maskable.policies"}
DICT_SPACE = {
    ":type:": "<class 'gymnasium.spaces.dict.Dict'>",
    "spaces": "{'action_mask': Box(0, 1, (34,), int8), 'observation': Box(0.0, 1.0, (349,), "
    "float32)}",
}


def actor_tensors(hidden: int = 8, inputs: int = 383, actions: int = 34) -> dict[str, Tensor]:
    """The tensors of a MaskablePPO actor (one hidden layer) over ``inputs`` features."""
    return {
        "mlp_extractor.policy_net.0.weight": Tensor((hidden, inputs)),
        "mlp_extractor.policy_net.0.bias": Tensor((hidden,)),
        "action_net.weight": Tensor((actions, hidden)),
        "action_net.bias": Tensor((actions,)),
    }


def sb3_zip(path, pth: bytes, data: dict | None = None, members: dict | None = None) -> str:
    """A model file as SB3 saves one: the JSON record, ``policy.pth`` and ``members``."""
    data = {"policy_class": MASKABLE, "observation_space": DICT_SPACE} if data is None else data
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("data", json.dumps(data))
        zf.writestr("policy.pth", pth)
        for name, raw in (members or {"_stable_baselines3_version": "2.3.2"}).items():
            zf.writestr(name, raw)
    return str(path)
