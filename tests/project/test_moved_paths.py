"""Every import path the docs ever named keeps working (issue 70).

The modules that moved when the folders became the layers (0.2.0) keep their old paths
as aliases (``sixtysix_env/util/moved.py``): the old path gives the module at its new
path, with one ``DeprecationWarning`` naming it. ``from sixtysix_env import sixtysix_v0``,
the documented form, gives no warning. Every dotted path that README.md, docs/ or
examples/ named since 0.1.0 resolves, and every name the docs' code blocks import from
the package exists.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from _source import parsed

from sixtysix_env.util.moved import MOVED

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "sixtysix_env"

#: The dotted paths named in README.md, docs/ and examples/ in the project's history
#: (``git log --all -p -- README.md docs examples``, every ``sixtysix_env.*`` and
#: ``sixtysix_training.*``), and the two the issue names. Left out:
#: ``sixtysix_training.distill`` and ``.distill_soft`` (experiments, moved to research/,
#: which is not installed) and ``python -m sixtysix_training.plot_curve`` (a command
#: removed before 0.1.0's layers; the module is ``sixtysix_training.common.plot_curve``).
DOCUMENTED = """
sixtysix_env.actions sixtysix_env.agents sixtysix_env.agents.beliefs
sixtysix_env.agents.beliefs.infer sixtysix_env.agents.check sixtysix_env.agents.models
sixtysix_env.batched.check sixtysix_env.beliefs sixtysix_env.beliefs.infer
sixtysix_env.cards sixtysix_env.checkpoints sixtysix_env.cli sixtysix_env.engine
sixtysix_env.env.observation sixtysix_env.env.observation.FIELDS
sixtysix_env.env.observation.observe_view sixtysix_env.env.openspiel sixtysix_env.env.rllib
sixtysix_env.env.rllib.rllib_env sixtysix_env.env.sixtysix_v0
sixtysix_env.env.vector.SixtySixSelfPlayVectorEnv sixtysix_env.env.wrappers
sixtysix_env.evaluation sixtysix_env.game.actions sixtysix_env.game.cards
sixtysix_env.game.engine sixtysix_env.game.view sixtysix_env.leaderboard
sixtysix_env.openspiel_game sixtysix_env.policy sixtysix_env.policy.observation
sixtysix_env.policy.observation.FIELDS sixtysix_env.policy.observation.observe_view
sixtysix_env.policy.onnx sixtysix_env.policy.onnx.convert sixtysix_env.policy.shipped
sixtysix_env.policy.standings sixtysix_env.shipped sixtysix_env.sixtysix_v0
sixtysix_env.standings sixtysix_env.view sixtysix_training.rllib
sixtysix_env.rules sixtysix_env.wrappers
""".split()  # noqa: SIM905 (a list of 40 paths, one a word)

DOC_FILES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"),
                    *(ROOT / "examples").rglob("*.md"), *(ROOT / "examples").rglob("*.py")])


def _optional_missing(error: ModuleNotFoundError) -> bool:
    """An optional third-party library (pyspiel, ray, ...) that is not installed here."""
    return bool(error.name) and not error.name.startswith(("sixtysix_env", "sixtysix_training"))


def _resolve(path: str) -> object:
    """The object a dotted path names: the longest prefix that imports, then attributes."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                obj = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError as e:
            if _optional_missing(e):
                pytest.skip(f"{path} needs {e.name}, not installed here")
            if e.name != ".".join(parts[:i]):
                raise
            continue
        for name in parts[i:]:
            obj = getattr(obj, name)
        return obj
    raise AssertionError(f"{path}: no part of it imports")


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def test_every_alias_module_is_listed_and_every_move_has_one():
    aliases = {_module_name(p) for p in PACKAGE.rglob("*.py")
               if "from sixtysix_env.util.moved import alias" in p.read_text(encoding="utf-8")}
    assert aliases == set(MOVED)
    # The new paths exist and are not aliases themselves.
    assert not set(MOVED.values()) & set(MOVED)
    assert all(importlib.util.find_spec(new) for new in MOVED.values())


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_is_the_new_module_with_one_warning(old):
    new = MOVED[old]
    parent, _, leaf = old.rpartition(".")
    before = sys.modules[parent].__dict__.get(leaf, None) if parent in sys.modules else None
    sys.modules.pop(old, None)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                __import__(old)
            except ModuleNotFoundError as e:
                if not _optional_missing(e):
                    raise
                # The old path resolves; the library the new module needs is missing.
                assert importlib.util.find_spec(e.name) is None
                imported = None
            else:
                imported = sys.modules[old]
                __import__(old)  # again: no second warning
        said = [w for w in caught if issubclass(w.category, DeprecationWarning)]
        assert len(said) == 1, [str(w.message) for w in said]
        assert f"{old} moved to {new}" in str(said[0].message)
        assert said[0].filename == __file__  # the line that imported it
        if imported is not None:
            assert imported is importlib.import_module(new)
            assert getattr(sys.modules[parent], leaf) is imported
    finally:
        sys.modules.pop(old, None)
        if before is not None:
            setattr(sys.modules[parent], leaf, before)


def test_the_documented_form_gives_no_warning_and_an_old_path_one_python_shows():
    code = (
        "import warnings\n"
        "warnings.simplefilter('error')\n"
        "import sixtysix_env\n"
        "from sixtysix_env import sixtysix_v0\n"
        "print(sixtysix_v0.__name__, sixtysix_env.sixtysix_v0 is sixtysix_v0)\n"
        "warnings.resetwarnings()\n"
        "import sixtysix_env.sixtysix_v0 as old\n"
        "print(old is sixtysix_v0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["sixtysix_env.env.sixtysix_v0", "True", "True"]
    # Python's default filters show it (it is attributed to __main__'s import line).
    assert out.stderr.count("DeprecationWarning") == 1
    assert "sixtysix_env.sixtysix_v0 moved to sixtysix_env.env.sixtysix_v0" in out.stderr


@pytest.mark.parametrize("old", ["sixtysix_env.policy.standings",  # an interpreter each: one in the fast lane
                                 pytest.param("sixtysix_env.standings", marks=pytest.mark.slow)])
def test_python_m_on_an_old_path_runs_the_new_module(old):
    """Both paths the docs gave for writing the standings tables (0.1.0's, and the one of
    the folders until the reader got a room of its own)."""
    out = subprocess.run([sys.executable, "-m", old], check=False,
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("| rank | agent | Elo |")
    assert f"{old} moved to sixtysix_env.ranking.standings" in out.stderr


def _named_paths() -> set[str]:
    found = set()
    for f in DOC_FILES:
        found |= set(re.findall(r"sixtysix_(?:env|training)(?:\.[A-Za-z_]\w*)+",
                                f.read_text(encoding="utf-8")))
    return found


#: Libraries a module that imports them at its top costs the fast lane seconds to resolve
#: (torch with SB3 ~5 s of CPU); such a path is checked in the slow lane.
HEAVY = ("torch", "stable_baselines3", "sb3_contrib", "ray")
FOLDERS = {"sixtysix_env": PACKAGE, "sixtysix_training": ROOT / "training"}


def _top_imports(tree: ast.Module) -> set[str]:
    """The top-level packages a module imports when it is imported (its body, and the
    ``try``/``if`` blocks in it; not inside functions)."""
    found, nodes = set(), list(tree.body)
    while nodes:
        node = nodes.pop()
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level:
            found.add((node.module or "").split(".")[0])
        elif isinstance(node, (ast.Try, ast.If)):
            nodes += [*node.body, *node.orelse, *getattr(node, "finalbody", [])]
            nodes += [x for h in getattr(node, "handlers", []) for x in h.body]
    return found


def _imports_heavy(path: str) -> bool:
    """Whether the module a dotted path names (its longest prefix that is a file here) imports
    one of HEAVY at its top, read from its source without importing it."""
    parts = path.split(".")
    folder = FOLDERS.get(parts[0])
    for i in range(len(parts), 1, -1):
        base = folder.joinpath(*parts[1:i]) if folder else None
        for f in (base.with_suffix(".py"), base / "__init__.py") if base else ():
            if f.is_file():
                return bool(_top_imports(parsed(f)) & set(HEAVY))
    return False


def _lane(values, path_of=lambda v: v):
    """``values`` as parameters, those whose path imports a heavy library marked slow."""
    return [pytest.param(*v if isinstance(v, tuple) else (v,), marks=pytest.mark.slow)
            if _imports_heavy(path_of(v)) else v for v in values]


def test_a_module_importing_a_heavy_library_is_checked_in_the_slow_lane():
    assert _imports_heavy("sixtysix_env.env.sb3.SB3VecEnv")  # SB3 in a try at its top
    assert not _imports_heavy("sixtysix_env.env.rllib")  # Ray inside its functions only
    assert not _imports_heavy("sixtysix_env.game.cards")
    heavy = [p for p in _lane(sorted(set(DOCUMENTED) | _named_paths())) if not isinstance(p, str)]
    assert ("sixtysix_env.env.sb3",) in [p.values for p in heavy]


@pytest.mark.parametrize("path", _lane(sorted(set(DOCUMENTED) | _named_paths())))
def test_every_documented_path_resolves(path):
    """Those of the list, and those the docs name today."""
    assert _resolve(path) is not None


def _code_block_imports() -> list[tuple[str, str, str]]:
    """(file, module, name) for every ``from sixtysix_... import name`` in the docs'
    Python blocks and examples' files."""
    out = []
    for f in DOC_FILES:
        text = f.read_text(encoding="utf-8")
        blocks = [text] if f.suffix == ".py" else re.findall(
            r"```python\n(.*?)```", text, flags=re.DOTALL)
        for block in blocks:
            try:
                tree = ast.parse(block)
            except SyntaxError:
                continue  # not a whole program (a fragment with "..."): not checked here
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                        ("sixtysix_env", "sixtysix_training")):
                    out += [(f.name, node.module, a.name) for a in node.names]
                elif isinstance(node, ast.Import):
                    out += [(f.name, a.name, "") for a in node.names
                            if a.name.startswith(("sixtysix_env", "sixtysix_training"))]
    return sorted(set(out))


def test_the_docs_code_blocks_import_from_the_package():
    assert len(_code_block_imports()) >= 20


@pytest.mark.parametrize("where, module, name",
                         _lane(_code_block_imports(), lambda v: f"{v[1]}.{v[2]}"))
def test_every_name_the_docs_code_blocks_import_exists(where, module, name):
    assert _resolve(f"{module}.{name}" if name else module) is not None, where
