"""Files written whole or not at all (standard library only)."""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def replaced(path: str | os.PathLike, suffix: str = ".tmp") -> Iterator[str]:
    """A temporary path beside ``path`` to write to: when the block ends without an
    error it replaces ``path`` in one rename; otherwise it is removed and ``path`` is
    left as it was (an interrupted save never leaves a truncated file)."""
    path = os.fspath(path)
    tmp = path + suffix
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def check_regular_file(
    path: str | os.PathLike, where: str, max_bytes: int, limit: str, error: type[Exception]
) -> os.stat_result:
    """``path``'s stat, after refusing with ``error`` what a reader must not open: a path
    that is not there or cannot be read, anything but a regular file (a FIFO would hang
    the reader, ``/dev/zero`` never end) and a file over ``max_bytes`` (``limit`` says
    what that bound is, e.g. "a policy file is at most")."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise error(f"{where} does not exist") from None
    except (OSError, ValueError) as e:
        raise error(f"{where} cannot be read ({e})") from None
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{where} is not a regular file (a folder, FIFO or device)")
    if st.st_size > max_bytes:
        raise error(f"{where} is {st.st_size} bytes; {limit} {max_bytes}")
    return st


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all (:func:`replaced`)."""
    with replaced(path) as tmp, open(tmp, "w", encoding="utf-8") as f:
        f.write(text)


def write_json(path: str | os.PathLike, data: Any, indent: int = 2,
               sort_keys: bool = False) -> None:
    """Write ``data`` as JSON and a newline to ``path``, whole or not at all."""
    write_text(path, json.dumps(data, indent=indent, sort_keys=sort_keys) + "\n")
