"""Print the import graph of the ``sixtysix_env`` package, module by module.

    python tools/import_graph.py [--package sixtysix_env]

Each line is a module followed by the package modules it imports. An import
written inside a function is marked ``(in function)``; one under ``if
TYPE_CHECKING:`` is left out (it never runs). The last lines list the import
cycles (strongly connected modules), if any. The graph comes from ``grimp``,
the library ``import-linter`` checks the layers with (``lint-imports``).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import sys
from pathlib import Path

import grimp


def function_level_lines(path: Path) -> set[int]:
    """Line numbers of the import statements inside a function body."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for sub in ast.walk(node):
                if isinstance(sub, (ast.Import, ast.ImportFrom)):
                    out.add(sub.lineno)
    return out


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--package", default="sixtysix_env")
    args = ap.parse_args(argv)
    graph = grimp.build_graph(args.package, exclude_type_checking_imports=True, cache_dir=None)
    edges: dict[str, set[str]] = {}
    for module in sorted(graph.modules):
        spec = importlib.util.find_spec(module)
        origin = Path(spec.origin) if spec and spec.origin else None
        in_function = function_level_lines(origin) if origin and origin.suffix == ".py" else set()
        parts = []
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            details = graph.get_import_details(importer=module, imported=imported)
            lines = {d["line_number"] for d in details}
            edges.setdefault(module, set()).add(imported)
            mark = " (in function)" if lines and lines <= in_function else ""
            parts.append(imported.removeprefix(args.package + ".") + mark)
        short = module.removeprefix(args.package + ".") if module != args.package else module
        print(f"{short}: {', '.join(parts) if parts else '-'}")
    found = cycles(edges)
    print()
    if not found:
        print("cycles: none")
    for comp in found:
        print("cycle: " + " <-> ".join(m.removeprefix(args.package + ".") for m in comp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
