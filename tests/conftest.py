"""Shared test set-up.

* The repository's root on the import path, for ``research/`` (experiments that
  are not installed with the package).
* The ``ecosystem`` marker: every ``tests/ecosystem/test_ecosystem_*.py`` test has it, and
  when the ``-m`` expression leaves those tests out (the fast lane, ``-m "not
  slow and not ecosystem"``), their files are not even imported, so collecting
  the suite imports no third-party RL library.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


ECOSYSTEM_FILES = "test_ecosystem_"


def _leaves_out_ecosystem(config) -> bool:
    """Whether the ``-m`` expression deselects a test marked ``ecosystem`` (and ``slow``
    too, as some of them are)."""
    from _pytest.mark.expression import Expression

    expr = config.getoption("markexpr")
    if not expr:
        return False
    compiled = Expression.compile(expr)

    def matcher(name: str, **kwargs) -> bool:
        return name == "ecosystem"

    def matcher_slow(name: str, **kwargs) -> bool:
        return name in ("ecosystem", "slow")

    return not compiled.evaluate(matcher) and not compiled.evaluate(matcher_slow)


def pytest_ignore_collect(collection_path, config):
    if collection_path.name.startswith(ECOSYSTEM_FILES) and _leaves_out_ecosystem(config):
        return True
    return None


def pytest_collection_modifyitems(config, items):
    import pytest

    for item in items:
        if item.path.name.startswith(ECOSYSTEM_FILES):
            item.add_marker(pytest.mark.ecosystem)
