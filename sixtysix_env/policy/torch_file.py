"""What a torch file (``torch.save``: a zip of ``data.pkl`` and one record per storage)
declares, read without unpickling it, so that it is checked before torch builds anything.

``torch.load(weights_only=True)`` unpickles with an allow-list, but it builds each tensor
as the file declares it: a weight of shape 30000 x 30000 over a storage of one element
(stride 0) is 4 bytes on disk and 3.6 GB once copied; a sparse tensor declares its size
freely. :func:`read_torch_file` decodes ``data.pkl``'s opcodes (``pickletools``, which runs
nothing) on a small stack machine that knows only what a state dict is made of: dicts,
lists, tuples, strings, numbers, ``collections.OrderedDict`` and
``torch._utils._rebuild_tensor_v2`` over a typed storage. Anything else (another global, an
opcode a state dict never holds) is refused. Each tensor must be dense and contiguous, start
at its storage's first element and cover the storage exactly, and each storage's record must
hold exactly its declared bytes, uncompressed: a file then builds no more memory than it
holds. Standard library only; the error class is the caller's.
"""

from __future__ import annotations

import dataclasses
import io
import math
import pickletools
import zipfile
from typing import Any

#: The typed storages a tensor may be built over: their dtype and bytes per element.
STORAGES = {
    "FloatStorage": ("float32", 4),
    "DoubleStorage": ("float64", 8),
    "HalfStorage": ("float16", 2),
    "BFloat16Storage": ("bfloat16", 2),
    "LongStorage": ("int64", 8),
    "IntStorage": ("int32", 4),
    "ShortStorage": ("int16", 2),
    "CharStorage": ("int8", 1),
    "ByteStorage": ("uint8", 1),
    "BoolStorage": ("bool", 1),
}
#: Bounds on one torch file: its tensors, its ``data.pkl`` and the members of its zip.
MAX_TENSORS = 1024
MAX_PICKLE_BYTES = 1 << 20
MAX_MEMBERS = MAX_TENSORS + 16


@dataclasses.dataclass(frozen=True)
class TensorRecord:
    """A tensor as the file declares it (checked dense and contiguous): its storage's
    record name, dtype and shape."""

    key: str
    dtype: str
    shape: tuple[int, ...]

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


@dataclasses.dataclass(frozen=True)
class _Global:
    name: str


_ORDERED_DICT = _Global("collections.OrderedDict")
_REBUILD = _Global("torch._utils._rebuild_tensor_v2")
_MARK = object()


@dataclasses.dataclass(frozen=True)
class _Storage:
    key: str
    dtype: str
    itemsize: int
    numel: int


class _Refused(Exception):
    """Why the file is refused (worded for the caller's message)."""


def _contiguous(shape: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """Whether ``stride`` lays ``shape`` out densely, row-major (torch's ``is_contiguous``:
    the stride of a dimension of size 1 does not matter, nor any with no elements)."""
    if 0 in shape:
        return True
    expect = 1
    for size, step in zip(reversed(shape), reversed(stride)):
        if size != 1 and step != expect:
            return False
        expect *= size
    return True


def _ints(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, tuple) or not all(type(n) is int and n >= 0 for n in value):
        raise _Refused(f"a tensor's {what} {value!r} is not a tuple of sizes")
    return value


def _tensor(args: Any, storages: dict[str, _Storage], max_elements: int) -> TensorRecord:
    """``_rebuild_tensor_v2(storage, offset, shape, stride, requires_grad, hooks[, meta])``,
    checked: a dense, contiguous tensor covering its storage exactly."""
    if not isinstance(args, tuple) or len(args) not in (6, 7) or not isinstance(args[0], _Storage):
        raise _Refused("a tensor is not built over a storage as a state dict's are")
    storage, offset = args[0], args[1]
    shape, stride = _ints(args[2], "shape"), _ints(args[3], "stride")
    if len(shape) > 8 or len(stride) != len(shape):
        raise _Refused(f"a tensor of shape {shape} has strides {stride}")
    numel = math.prod(shape)
    if numel > max_elements:
        raise _Refused(f"a tensor of shape {list(shape)} has {numel} elements; at most "
                       f"{max_elements} are read")
    if offset != 0 or not _contiguous(shape, stride) or storage.numel != numel:
        raise _Refused(
            f"tensor {list(shape)} (strides {list(stride)}, offset {offset!r}) over a storage "
            f"of {storage.numel} elements is not dense: only contiguous tensors that cover "
            "their storage exactly are read"
        )
    if storage.key in storages and storages[storage.key] != storage:
        raise _Refused(f"storage {storage.key!r} is declared twice, differently")
    storages[storage.key] = storage
    return TensorRecord(storage.key, storage.dtype, shape)


def _storage(pid: Any, max_elements: int) -> _Storage:
    """A persistent id ``('storage', torch.XStorage, key, location, numel)``."""
    ok = isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"
    ok = ok and isinstance(pid[1], _Global) and pid[1].name.startswith("torch.")
    name = pid[1].name.removeprefix("torch.") if ok else ""
    if not ok or name not in STORAGES or not isinstance(pid[2], str) or type(pid[4]) is not int:
        raise _Refused(f"a persistent id {pid!r:.80} is not a storage of "
                       f"{', '.join(STORAGES)}")
    if not 0 <= pid[4] <= max_elements or not isinstance(pid[3], str) or len(pid[2]) > 64:
        raise _Refused(f"storage {pid[2]!r:.70} declares {pid[4]!r} elements; at most "
                       f"{max_elements}")
    dtype, itemsize = STORAGES[name]
    return _Storage(pid[2], dtype, itemsize, pid[4])


def _global(arg: str) -> _Global:
    module, _, name = arg.partition(" ")
    if (module, name) == ("collections", "OrderedDict"):
        return _ORDERED_DICT
    if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
        return _REBUILD
    if module == "torch" and name in STORAGES:
        return _Global(f"torch.{name}")
    raise _Refused(f"it names {module}.{name}, which a state dict of dense tensors never holds "
                   "(a sparse or quantized tensor, or an object of another kind)")


def _pop_mark(stack: list) -> list:
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is _MARK:
            items = stack[i + 1:]
            del stack[i:]
            return items
    raise _Refused("its pickle is malformed (no mark)")


_VALUES = {"NONE": None, "NEWTRUE": True, "NEWFALSE": False, "EMPTY_TUPLE": ()}
_SKIPPED = {"PROTO", "FRAME", "STOP"}
_PUTS = {"BINPUT", "LONG_BINPUT", "MEMOIZE", "PUT"}
_GETS = {"BINGET", "LONG_BINGET", "GET"}
_LITERALS = {"BININT", "BININT1", "BININT2", "LONG1", "INT", "LONG", "BINFLOAT", "FLOAT",
             "BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8", "UNICODE"}


def _op(name: str, arg: Any, stack: list, memo: dict, state: dict) -> None:
    """One opcode of the state dict's pickle, on the stack machine."""
    if name in _SKIPPED:
        return
    if name in _VALUES:
        stack.append(_VALUES[name])
    elif name in _LITERALS:
        stack.append(arg)
    elif name == "MARK":
        stack.append(_MARK)
    elif name in ("EMPTY_DICT", "EMPTY_LIST"):
        stack.append({} if name == "EMPTY_DICT" else [])
    elif name in _PUTS:
        memo[len(memo) if name == "MEMOIZE" else arg] = stack[-1]
    elif name in _GETS:
        if arg not in memo:
            raise _Refused("its pickle is malformed (a memo entry never stored)")
        stack.append(memo[arg])
    elif name == "GLOBAL":
        stack.append(_global(arg))
    elif name == "BINPERSID":
        stack.append(_storage(stack.pop(), state["max_elements"]))
    elif name == "REDUCE":
        args, func = stack.pop(), stack.pop()
        stack.append(_reduced(func, args, state))
    else:
        _container_op(name, stack)


def _container_op(name: str, stack: list) -> None:
    """The opcodes that build tuples, lists and dicts (and set a state dict's attributes)."""
    if name in ("TUPLE", "TUPLE1", "TUPLE2", "TUPLE3"):
        n = {"TUPLE1": 1, "TUPLE2": 2, "TUPLE3": 3}.get(name)
        items = _pop_mark(stack) if n is None else [stack.pop() for _ in range(n)][::-1]
        stack.append(tuple(items))
    elif name in ("APPEND", "APPENDS"):
        items = [stack.pop()] if name == "APPEND" else _pop_mark(stack)
        if not isinstance(stack[-1], list):
            raise _Refused("its pickle appends to what is not a list")
        stack[-1].extend(items)
    elif name in ("SETITEM", "SETITEMS"):
        if name == "SETITEM":
            items = stack[-2:]
            del stack[-2:]
        else:
            items = _pop_mark(stack)
        if not isinstance(stack[-1], dict) or len(items) % 2:
            raise _Refused("its pickle sets items of what is not a dict")
        for key, value in zip(items[::2], items[1::2]):
            if not isinstance(key, (str, int)):
                raise _Refused(f"its dict has a key {key!r:.40}, not a string or number")
            stack[-1][key] = value
    elif name == "BUILD":  # an OrderedDict's attributes (a state dict's _metadata)
        if not isinstance(stack.pop(), dict) or not isinstance(stack[-1], dict):
            raise _Refused("its pickle sets attributes of what is not a state dict")
    else:
        raise _Refused(f"its pickle has opcode {name}, which a state dict never holds")


def _reduced(func: Any, args: Any, state: dict) -> Any:
    """A call: an empty OrderedDict, or a tensor (checked, counted)."""
    if func is _ORDERED_DICT and args == ():
        return {}
    if func is not _REBUILD:
        raise _Refused(f"it calls {func!r:.60}, which a state dict never does")
    tensor = _tensor(args, state["storages"], state["max_elements"])
    state["tensors"].append(tensor)
    if len(state["tensors"]) > state["max_tensors"]:
        raise _Refused(f"it holds over {state['max_tensors']} tensors; at most "
                       f"{state['max_tensors']} are read")
    return tensor


def _unpickled(raw: bytes, max_tensors: int, max_elements: int) -> tuple[Any, dict, list]:
    stack: list = []
    memo: dict = {}
    state: dict = {"storages": {}, "tensors": [], "max_tensors": max_tensors,
                   "max_elements": max_elements}
    try:
        for op, arg, _pos in pickletools.genops(raw):
            _op(op.name, arg, stack, memo, state)
    except _Refused:
        raise
    except (ValueError, IndexError, TypeError, KeyError) as e:  # truncated or malformed
        raise _Refused(f"its pickle is malformed ({e})") from None
    if len(stack) != 1 or isinstance(stack[0], (_Global, _Storage)) or stack[0] is _MARK:
        raise _Refused("its pickle is malformed (it does not end with one value)")
    return stack[0], state["storages"], state["tensors"]


def _records(zf: zipfile.ZipFile) -> tuple[str, dict[str, zipfile.ZipInfo]]:
    """(the archive's folder, its members by name), each member checked: few, stored."""
    infos = zf.infolist()
    if len(infos) > MAX_MEMBERS:
        raise _Refused(f"it has {len(infos)} members; at most {MAX_MEMBERS}")
    pickles = [i.filename for i in infos if i.filename.endswith("data.pkl")]
    if len(pickles) != 1:
        raise _Refused("it is not a torch file (one data.pkl)")
    for info in infos:
        if info.compress_type != zipfile.ZIP_STORED or info.flag_bits & 0x1:
            raise _Refused(f"member {info.filename!r} is compressed or encrypted; torch "
                           "stores its records as they are")
    return pickles[0].removesuffix("data.pkl"), {i.filename: i for i in infos}


def read_torch_file(
    raw: bytes, where: str, error: type[Exception], max_elements: int,
    max_tensors: int = MAX_TENSORS,
) -> tuple[Any, list[TensorRecord]]:
    """(the file's value with each tensor as a :class:`TensorRecord`, its tensors) of the
    torch file in ``raw``, nothing built or unpickled. Refused with ``error`` (naming
    ``where``, what is wrong and what is read): anything but a torch zip; a pickle with
    another global or opcode than a state dict's, or of over :data:`MAX_PICKLE_BYTES`;
    over ``max_tensors`` tensors; a tensor or storage of over ``max_elements`` elements;
    a tensor that is not dense and contiguous over exactly its storage; a storage whose
    record does not hold exactly its bytes."""
    try:
        try:
            zf = zipfile.ZipFile(io.BytesIO(raw))
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as e:
            raise _Refused(f"it is not a torch file (a zip: {e})") from None
        with zf:
            prefix, members = _records(zf)
            pkl = members[prefix + "data.pkl"]
            if pkl.file_size > MAX_PICKLE_BYTES:
                raise _Refused(f"its data.pkl is {pkl.file_size} bytes; at most "
                               f"{MAX_PICKLE_BYTES}")
            order = members.get(prefix + "byteorder")
            if order is not None and zf.read(order) != b"little":
                raise _Refused("its byte order is not little-endian")
            value, storages, tensors = _unpickled(zf.read(pkl), max_tensors, max_elements)
            for key, storage in storages.items():
                info = members.get(f"{prefix}data/{key}")
                if info is None or info.file_size != storage.numel * storage.itemsize:
                    raise _Refused(
                        f"storage {key!r} declares {storage.numel * storage.itemsize} bytes "
                        f"and its record holds {None if info is None else info.file_size}"
                    )
    except _Refused as e:
        raise error(f"{where}: {e}") from None
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise error(f"{where}: it is not a readable torch file ({e})") from None
    return value, tensors
