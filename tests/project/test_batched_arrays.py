"""The batched engine's arrays and kernels are its own (issue 68): outside ``sixtysix_env/batched/``
nothing reads a lane's raw fields (``hands.S``, ``hands.K``, ``hands.R``) or imports the kernels;
the lanes are read through ``BatchedHands``'s named methods. The import contract in
pyproject.toml forbids the kernels' modules; this test finds the attribute reads it cannot see."""

from __future__ import annotations

import ast
from pathlib import Path

from _source import parsed

ROOT = Path(__file__).resolve().parents[2]
#: The engine's raw arrays: the lanes' fields, their stocks, the rule vector.
RAW = {"S", "K", "R"}
KERNELS = ("sixtysix_env.batched.kernels", "sixtysix_env.batched.heuristic")


def _outside_batched() -> list[Path]:
    files = [p for p in (ROOT / "sixtysix_env").rglob("*.py") if "batched" not in p.parent.parts]
    return files + sorted((ROOT / "training").rglob("*.py"))


def raw_uses(source: str | ast.Module, module: str = "") -> list[str]:
    """Reads of the engine's raw arrays and imports of its kernels in ``source`` (its text,
    or its tree)."""
    found = []
    tree = ast.parse(source) if isinstance(source, str) else source
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr in RAW
                and not (isinstance(node.value, ast.Name) and node.value.id == "re")):
            found.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, ast.ImportFrom):
            target = node.module or ""
            if node.level and module:  # a relative import, resolved from the module's package
                base = module.split(".")[: -node.level]
                target = ".".join(base + ([target] if target else []))
            names = [target] + [f"{target}.{a.name}" for a in node.names]
            found += [f"line {node.lineno}: imports {n}" for n in names if n in KERNELS][:1]
        elif isinstance(node, ast.Import):
            found += [f"line {node.lineno}: imports {a.name}" for a in node.names
                      if a.name in KERNELS]
    return found


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[0] == "training":
        parts[0] = "sixtysix_training"
    return ".".join(parts)


def test_nothing_outside_batched_reads_the_engines_arrays_or_kernels():
    bad = {}
    for path in _outside_batched():
        uses = raw_uses(parsed(path), _module(path))
        if uses:
            bad[str(path.relative_to(ROOT))] = uses
    assert not bad, f"use BatchedHands's named methods instead: {bad}"


def test_the_check_finds_a_raw_read_and_a_kernel_import():
    # The check itself can fail: a planted read and imports are found, a regex flag is not.
    src = ("import re\nfrom ..batched import kernels as kn\nfrom ..batched.heuristic import x\n"
           "w = hands.S[lanes, kn.WINNER]\nf = re.S\n")
    assert raw_uses(src, "sixtysix_env.env.vector") == [
        "line 2: imports sixtysix_env.batched.kernels", "line 3: imports sixtysix_env.batched.heuristic",
        "line 4: .S"]
