"""The package's layers hold (import-linter), nothing imports in a cycle, and
``import sixtysix_env`` stays light while ``gymnasium.make("SixtySix-v0")`` keeps working."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from _source import parsed

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_layer_contracts_hold():
    pytest.importorskip("importlinter", reason="import-linter is in the dev extra")
    # In a fresh interpreter: import-linter sets up logging, which would leak into other tests.
    out = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports; raise SystemExit("
         f"lint_imports(config_filename={str(ROOT / 'pyproject.toml')!r}, no_cache=True))"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    contracts = (ROOT / "pyproject.toml").read_text(encoding="utf-8").count(
        "\n[[tool.importlinter.contracts]]\n")
    assert contracts >= 7 and f"{contracts} kept, 0 broken" in out.stdout


def test_import_graph_has_no_cycle():
    pytest.importorskip("grimp", reason="grimp comes with import-linter (dev extra)")
    out = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "import_graph.py")],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "engine: " in out.stdout and "view: " in out.stdout
    assert out.stdout.rstrip().endswith("cycles: none"), out.stdout


def test_the_training_package_has_no_import_cycle():
    """train <-> rllib.train <-> export imported each other (inside functions)."""
    pytest.importorskip("grimp", reason="grimp comes with import-linter (dev extra)")
    pytest.importorskip("sixtysix_training.config.loader", reason="the training extra")
    out = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "import_graph.py"), "--package", "sixtysix_training"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "lifecycle: " in out.stdout and "rllib.train: " in out.stdout
    assert out.stdout.rstrip().endswith("cycles: none"), out.stdout


#: Three checks that need a fresh interpreter, run in one, in this order (each reads what the
#: ones before it left: the first imports nothing but the package, the second is the first
#: use of the AEC page, the third the first import of its old path). Separated by ``---``.
FRESH_CHECKS = {
    "light": (
        "import sys, sixtysix_env\n"
        "s = sixtysix_env.new_hand(0)\n"
        "print(sorted(m for m in ('numpy', 'gymnasium', 'pettingzoo') if m in sys.modules))\n"
    ),
    # The pages live in env/ (sixtysix_v0.py, openspiel.py) and are imported on first use.
    "pages": (
        "import sys, sixtysix_env\n"
        "from sixtysix_env import sixtysix_v0\n"
        "print(sixtysix_v0.__name__, sixtysix_env.sixtysix_v0 is sixtysix_v0,\n"
        "      'openspiel_game' in dir(sixtysix_env), 'sixtysix_env.env.openspiel' in sys.modules)\n"
        "try:\n"
        "    sixtysix_env.no_such_name\n"
        "except AttributeError as e:\n"
        "    print(e)\n"
    ),
    "aec": (
        "import warnings\n"
        "from sixtysix_env import sixtysix_v0\n"
        "print(sixtysix_v0.raw_env.__module__, sixtysix_v0.env.__module__)\n"
        "print(sixtysix_v0.__doc__.splitlines()[0])\n"
        "with warnings.catch_warnings(record=True) as said:\n"
        "    warnings.simplefilter('always')\n"
        "    from sixtysix_env.env import sixtysix\n"
        "print(sixtysix is sixtysix_v0, [str(w.message).split(':')[0] for w in said])\n"
    ),
}


@pytest.fixture(scope="module")
def fresh() -> dict[str, list[str]]:
    """Each of :data:`FRESH_CHECKS`' output lines, from one interpreter."""
    out = _run("print('---')\n".join(FRESH_CHECKS.values()))
    parts = out.split("---\n")
    assert len(parts) == len(FRESH_CHECKS), out
    return {name: part.splitlines() for name, part in zip(FRESH_CHECKS, parts)}


def test_importing_the_package_loads_no_numpy_or_gymnasium(fresh):
    assert fresh["light"] == ["[]"]


def test_the_environment_pages_keep_their_public_names(fresh):
    assert fresh["pages"] == [
        "sixtysix_env.env.sixtysix_v0 True True False",
        "module 'sixtysix_env' has no attribute 'no_such_name'",
    ]


@pytest.mark.parametrize(
    "imports", ["import gymnasium, sixtysix_env",  # one interpreter in the fast lane
                pytest.param("import sixtysix_env; import gymnasium", marks=pytest.mark.slow),
                pytest.param("import sixtysix_env; import gymnasium.spaces; import gymnasium",
                             marks=pytest.mark.slow)]
)
def test_gymnasium_make_works_after_import_in_any_order(imports):
    out = _run(
        f"{imports}\n"
        "env = gymnasium.make('SixtySix-v0', opponent='random')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(obs['observation'].shape, type(env.unwrapped).__name__)"
    )
    assert out.strip() == "(349,) SixtySixEnv"


#: The package's folders, lowest first, as the first contract of pyproject.toml orders
#: them (folders of one layer share a rank).
FOLDER_RANK = {"util": 0, "game": 1, "policy": 2, "batched": 3, "ranking": 3, "agents": 4, "env": 5,
               "evaluation": 6, "play": 6, "benchmark": 7}


def _imported_folders(path: Path) -> list[tuple[int, str]]:
    """(line, folder) of every ``sixtysix_env`` folder a module imports from, those it
    imports for annotations only (``if TYPE_CHECKING:``) included."""
    parts = path.relative_to(ROOT / "sixtysix_env").parts
    out = []
    for node in ast.walk(parsed(path)):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = list(parts[:-1])[: len(parts) - node.level]
            target = base + (node.module or "").split(".")
        elif (node.module or "").startswith("sixtysix_env."):
            target = node.module.split(".")[1:]
        else:
            continue
        out += [(node.lineno, target[0])] if target and target[0] else []
    return out


def test_no_folder_names_one_above_it_not_even_for_annotations():
    """import-linter leaves out the imports under ``if TYPE_CHECKING:``; this does not: the
    match's words (game/wording/play.py) named play/session.py from the rules tower."""
    upward = []
    for path in sorted((ROOT / "sixtysix_env").rglob("*.py")):
        mine = path.relative_to(ROOT / "sixtysix_env").parts[0]
        if mine not in FOLDER_RANK:
            continue
        upward += [f"{path.relative_to(ROOT)}:{line} imports from {folder}/"
                   for line, folder in _imported_folders(path)
                   if FOLDER_RANK.get(folder, -1) > FOLDER_RANK[mine]]
    assert not upward, upward


def test_the_aec_page_holds_its_class_as_pettingzoo_classic_does(fresh):
    """The page (the module's docstring), ``raw_env`` and ``env()`` are one module;
    ``sixtysix_env.env.sixtysix``, where the class was, is an alias of it."""
    assert fresh["aec"] == [
        "sixtysix_env.env.sixtysix_v0 sixtysix_env.env.sixtysix_v0",
        "Sixty-Six as a PettingZoo AEC environment: this docstring is its documentation page.",
        "True ['sixtysix_env.env.sixtysix moved to sixtysix_env.env.sixtysix_v0 in sixtysix 0.2.0']",
    ]
