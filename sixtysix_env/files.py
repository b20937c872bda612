"""Files written whole or not at all (standard library only)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator


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
