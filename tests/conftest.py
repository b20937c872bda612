"""Shared test set-up.

* The repository's root on the import path, for ``examples/`` (code a user copies,
  not installed with the package).
* ``two_blas_threads``: numpy's BLAS set to two threads for a test of
  :mod:`sixtysix_env.evaluation.blas`, put back afterwards.
* Under xdist, one OpenMP/BLAS thread per worker unless ``OMP_NUM_THREADS`` says otherwise.
* ``SIXTYSIX_CPU_TIMES=FILE``: each test file's CPU time written to FILE as JSON
  (tests/_cpu_time.py); unset, nothing is registered.
* The ``ecosystem`` marker: every ``tests/ecosystem/test_ecosystem_*.py`` file sets it
  (``pytestmark``), and when the ``-m`` expression leaves those tests out (the fast lane, ``-m "not
  slow and not ecosystem"``), their files are not even imported, so collecting
  the suite imports no third-party RL library.
* A test that leaves Ctrl-C or SIGTERM ignored fails, naming itself, and the handler is
  put back: the tests after it in the same process (the save signals' tests) would
  otherwise fail instead, far from the cause. (A handler a library installs, as
  ``ray.init`` does for SIGTERM, is left alone.)
"""

from __future__ import annotations

import os
import re
import signal
import sys
from pathlib import Path

import pytest
from _cpu_time import register as _register_cpu_times

# Under xdist the workers fill the cores already (-n 2 on 2 cores): one OpenMP/BLAS thread
# each by default, where torch and numpy's BLAS would start a thread a core in every worker,
# threads that spin while they wait for each other and took a third of the fast lane's CPU.
# A test that asks for more threads gets them (two_blas_threads, torch.set_num_threads).
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


ECOSYSTEM_FILES = "test_ecosystem_"


def pytest_configure(config):
    _register_cpu_times(config)


_HELD = (signal.SIGINT, signal.SIGTERM)


@pytest.fixture(autouse=True)
def _signal_handlers_put_back():
    before = {s: signal.getsignal(s) for s in _HELD}
    yield
    ignored = [s for s in _HELD
               if signal.getsignal(s) == signal.SIG_IGN and before[s] != signal.SIG_IGN]
    for s in ignored:
        signal.signal(s, before[s])
    assert not ignored, (
        "this test left " + " and ".join(signal.Signals(s).name for s in ignored)
        + " ignored (the handler was put back): restore it where it is changed"
    )


@pytest.fixture
def two_blas_threads():
    """numpy's BLAS libraries (threadpoolctl's controllers, torch's left out) set to two
    threads, as on a 2-core machine whatever this one has; their counts put back after.
    Skips where threadpoolctl is missing or finds no BLAS of numpy's."""
    pytest.importorskip("threadpoolctl", reason="threadpoolctl (the [eval] extra) is not installed")
    from threadpoolctl import threadpool_info

    from sixtysix_env.evaluation.blas import numpy_blas

    libs = numpy_blas()
    if not libs:
        pytest.skip(f"threadpoolctl finds no BLAS of numpy's here: {threadpool_info()}")
    original = [lib.num_threads for lib in libs]
    for lib in libs:
        lib.set_num_threads(2)
    yield libs
    for lib, n in zip(libs, original):
        lib.set_num_threads(n)


_MARK_TOKEN = re.compile(r"\s*(\(|\)|[A-Za-z_][A-Za-z0-9_]*)")


def _selects(markexpr: str, marks: set[str]) -> bool | None:
    """Whether the ``-m`` expression selects a test carrying ``marks``, for the simple
    expressions of names, ``not``, ``and``, ``or`` and parentheses; None for any other
    (the caller then collects, and pytest's own ``-m`` decides)."""
    words = []
    pos = 0
    while pos < len(markexpr):
        m = _MARK_TOKEN.match(markexpr, pos)
        if not m:
            if markexpr[pos:].strip():
                return None  # a character outside the simple grammar
            break
        token = m.group(1)
        if token in ("(", ")", "not", "and", "or"):
            words.append(token)
        else:
            words.append("True" if token in marks else "False")
        pos = m.end()
    try:
        return bool(eval(" ".join(words), {"__builtins__": {}}, {}))  # only the words above
    except SyntaxError:
        return None


def _leaves_out_ecosystem(config) -> bool:
    """Whether the ``-m`` expression deselects a test marked ``ecosystem`` (and ``slow``
    too, as some of them are)."""
    expr = config.getoption("markexpr")
    if not expr:
        return False
    return _selects(expr, {"ecosystem"}) is False and _selects(expr, {"ecosystem", "slow"}) is False


def pytest_ignore_collect(collection_path, config):
    if collection_path.name.startswith(ECOSYSTEM_FILES) and _leaves_out_ecosystem(config):
        return True
    return None
