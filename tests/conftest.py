"""Shared test set-up.

* The repository's root on the import path, for ``research/`` (experiments that
  are not installed with the package).
* ``two_blas_threads``: numpy's BLAS set to two threads for a test of
  :mod:`sixtysix_env.blas`, put back afterwards.
* The ``ecosystem`` marker: every ``tests/ecosystem/test_ecosystem_*.py`` test has it, and
  when the ``-m`` expression leaves those tests out (the fast lane, ``-m "not
  slow and not ecosystem"``), their files are not even imported, so collecting
  the suite imports no third-party RL library.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


ECOSYSTEM_FILES = "test_ecosystem_"


@pytest.fixture
def two_blas_threads():
    """numpy's BLAS libraries (threadpoolctl's controllers, torch's left out) set to two
    threads, as on a 2-core machine whatever this one has; their counts put back after.
    Skips where threadpoolctl is missing or finds no BLAS of numpy's."""
    pytest.importorskip("threadpoolctl", reason="threadpoolctl (the [eval] extra) is not installed")
    from threadpoolctl import threadpool_info

    from sixtysix_env.blas import _numpy_blas

    libs = _numpy_blas()
    if not libs:
        pytest.skip(f"threadpoolctl finds no BLAS of numpy's here: {threadpool_info()}")
    original = [lib.num_threads for lib in libs]
    for lib in libs:
        lib.set_num_threads(2)
    yield libs
    for lib, n in zip(libs, original):
        lib.set_num_threads(n)


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
