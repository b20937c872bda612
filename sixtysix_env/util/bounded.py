"""Reading a file that someone else may have made, bounded (standard library only).

A reader of a run folder, a model or a record must not hang on a FIFO, read ``/dev/zero``
without end, or build more than a few megabytes from a small file. :func:`open_regular`
refuses anything but a regular file of at most a given size: the path is checked with
``os.stat`` before it is opened, then opened with ``O_NONBLOCK`` (a FIFO swapped in since
the check does not block the open) and checked again on the open file (``fstat``).
:func:`read_bounded` reads at most the bound plus one byte, and :func:`read_json` parses
what it read and refuses a value nested deeper than a bound. Every refusal is the caller's
error class, naming the file, what is wrong and what is allowed.
"""

from __future__ import annotations

import json
import os
import stat
from typing import Any, BinaryIO

from .files import check_regular_file

#: How deep a JSON record may nest (a run's records nest three or four levels).
MAX_JSON_DEPTH = 32


def open_regular(
    path: str | os.PathLike, where: str, max_bytes: int, limit: str, error: type[Exception]
) -> BinaryIO:
    """``path`` opened for reading in binary, after refusing (``error``) what
    :func:`~.files.check_regular_file` refuses: a path that is missing or cannot be read,
    anything but a regular file, a file over ``max_bytes`` (``limit`` words the bound, e.g.
    "a model file is read up to"). Checked before the open and again on the open file."""
    check_regular_file(path, where, max_bytes, limit, error)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise error(f"{where} cannot be read ({e.strerror or e})") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
        os.close(fd)
        raise error(f"{where} is not a regular file of at most {max_bytes} bytes (it was "
                    "replaced while it was opened)")
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_bounded(
    path: str | os.PathLike, where: str, max_bytes: int, limit: str, error: type[Exception]
) -> bytes:
    """The bytes of the regular file ``path`` (:func:`open_regular`), at most ``max_bytes``:
    at most ``max_bytes + 1`` are read, so a file that grows is refused, not read on."""
    with open_regular(path, where, max_bytes, limit, error) as f:
        raw = f.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise error(f"{where} is over {max_bytes} bytes; {limit} {max_bytes}")
    return raw


def json_depth(value: Any) -> int:
    """How deep ``value`` nests (a number or string 0, ``[]`` 1, ``[[1]]`` 2), iteratively."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            todo.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict)
                                                 else item))
    return deepest


def read_json(
    path: str | os.PathLike, where: str, max_bytes: int, error: type[Exception],
    max_depth: int = MAX_JSON_DEPTH,
) -> Any:
    """The JSON value in the regular file ``path`` (:func:`read_bounded`, at most
    ``max_bytes``), refused (``error``) where it is not UTF-8 JSON or nests deeper than
    ``max_depth``."""
    raw = read_bounded(path, where, max_bytes, "a record is read up to", error)
    try:
        value = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise error(f"{where} is not JSON (not UTF-8 text)") from None
    except RecursionError:
        raise error(f"{where} is not JSON this reads (nested too deeply; at most "
                    f"{max_depth} levels)") from None
    except ValueError as e:
        raise error(f"{where} is not JSON ({e})") from None
    if json_depth(value) > max_depth:
        raise error(f"{where} nests {json_depth(value)} levels deep; a record here nests at "
                    f"most {max_depth}")
    return value
