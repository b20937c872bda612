"""The repository's Python modules parsed once a process, for the tests that read source
instead of importing it (tests/project/: the layers, the engine's state layout and raw
arrays, the moved paths).

Parsing the package's ~130 modules takes ~0.35 s of CPU; four tests and one file's
collection each parsed them again. The trees are shared: a caller reads them
(``ast.walk``), never changes them.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path


@cache
def parsed(path: Path) -> ast.Module:
    """The module at ``path`` parsed (UTF-8), once for the process."""
    return ast.parse(Path(path).read_text(encoding="utf-8"))
