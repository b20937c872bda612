"""Files written whole or not at all (standard library only)."""

from __future__ import annotations

import contextlib
import json
import os
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


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all (:func:`replaced`)."""
    with replaced(path) as tmp, open(tmp, "w", encoding="utf-8") as f:
        f.write(text)


def write_json(path: str | os.PathLike, data: Any, indent: int = 2,
               sort_keys: bool = False) -> None:
    """Write ``data`` as JSON and a newline to ``path``, whole or not at all."""
    write_text(path, json.dumps(data, indent=indent, sort_keys=sort_keys) + "\n")
