"""List the functions longer than a limit (default 60 lines), longest first.

    python tools/long_functions.py                  # sixtysix_env/ and training/
    python tools/long_functions.py --limit 40 sixtysix_env/play

A function's length runs from its ``def`` line (decorators not counted) to
its last line, docstring and comments included; a nested function counts in
its parent and on its own line too.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PATHS = ("sixtysix_env", "training")


def long_functions(paths: list[Path], limit: int) -> list[tuple[int, str, str]]:
    """(lines, file:line, qualified name) of every function over ``limit`` lines."""
    found = []
    for path in paths:
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in files:
            tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
            found += _walk(tree, file, "", limit)
    return sorted(found, key=lambda t: (-t[0], t[1]))


def _walk(node: ast.AST, file: Path, prefix: str, limit: int) -> list[tuple[int, str, str]]:
    out = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = f"{prefix}{child.name}"
            if not isinstance(child, ast.ClassDef):
                n = child.end_lineno - child.lineno + 1
                if n > limit:
                    out.append((n, f"{_rel(file)}:{child.lineno}", name))
            out += _walk(child, file, name + ".", limit)
        else:
            out += _walk(child, file, prefix, limit)
    return out


def _rel(file: Path) -> str:
    try:
        return str(file.resolve().relative_to(ROOT))
    except ValueError:
        return str(file)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="files or folders (default: sixtysix_env training)")
    parser.add_argument("--limit", type=int, default=60, help="lines allowed (default 60)")
    args = parser.parse_args(argv)
    paths = [Path(p) for p in args.paths] or [ROOT / p for p in DEFAULT_PATHS]
    rows = long_functions(paths, args.limit)
    for n, where, name in rows:
        print(f"{n:5d}  {name:<40s} {where}")
    print(f"{len(rows)} function(s) over {args.limit} lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
