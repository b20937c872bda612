"""The fallbacks for a source checkout used without installing (issue 68, item 6).

Installed, the shipped policies, the leaderboard's files and the training configs are the
package data ``sixtysix_env.checkpoints``, ``sixtysix_env.leaderboard`` and
``sixtysix_training.configs``. In a checkout imported as plain folders those packages do
not exist (``importlib.resources.files`` raises ``ModuleNotFoundError``), and each reader
falls back to the repository's folder (``checkpoints/``, ``docs/benchmarks/``,
``configs/``). These tests take the installed lookup away and check that each fallback
finds the same folder the installation does.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

import pytest

from sixtysix_env.policy import shipped
from sixtysix_env.ranking import standings
from sixtysix_training.config import loader

ROOT = Path(__file__).resolve().parents[2]
UNINSTALLED = (shipped.CHECKPOINTS_PACKAGE, standings.LEADERBOARD_PACKAGE,
               loader.CONFIGS_PACKAGE)


@pytest.fixture
def uninstalled(monkeypatch):
    """``importlib.resources.files`` as a checkout without installing answers it: no
    package-data packages (the rest as installed)."""
    files = importlib.resources.files

    def no_package_data(package):
        if package in UNINSTALLED:
            raise ModuleNotFoundError(f"No module named {package!r}")
        return files(package)

    monkeypatch.setattr(importlib.resources, "files", no_package_data)


def test_the_installed_lookups_are_the_repositorys_folders():
    """What the fallbacks are compared with below (an editable install maps each package
    to its folder in the repository)."""
    assert Path(str(importlib.resources.files(shipped.CHECKPOINTS_PACKAGE))) == \
        ROOT / "checkpoints"
    assert Path(str(importlib.resources.files(standings.LEADERBOARD_PACKAGE))) == \
        ROOT / "docs" / "benchmarks"


def test_the_shipped_policies_are_found_in_a_checkout(uninstalled):
    assert shipped._checkpoints_dir() == ROOT / "checkpoints"
    assert sorted(p.stem for p in shipped._checkpoints_dir().glob("*.npz")) == \
        sorted(shipped.shipped_names())


def test_the_leaderboards_files_are_found_in_a_checkout(uninstalled):
    assert standings._folder() == ROOT / "docs" / "benchmarks"
    assert standings.ranked_protocols()[0] == standings.DEFAULT_PROTOCOL


def test_the_training_configs_are_found_in_a_checkout(uninstalled):
    found = loader.shipped_configs()
    assert found and set(found) == {p.stem for p in (ROOT / "configs").glob("*.yaml")}
    assert all(path.parent == ROOT / "configs" for path in found.values())
