"""The README's fast lane stays fast: no file of it takes more than a few seconds of CPU,
the whole of it stays within its CPU bound, and collecting it imports no torch, SB3 or Ray.

Collecting is paid once per xdist worker before any test runs, so a test module that
imports one of them at its top (for instance through ``pytest.importorskip``) costs the
whole lane a second or two. Run in a fresh interpreter, as a worker starts.

The lane's budget is 30 s of wall time on 2 quiet cores, about 55 s of CPU once xdist's
two collections and its traffic are paid. Its files and its total are measured in CPU seconds
(tests/_cpu_time.py, ``SIXTYSIX_CPU_TIMES=FILE``), which a loaded machine moves less than it
moves wall time (by up to a fifth on these 2 cores, where wall time doubled).

Where the lane's CPU goes (7 Dec 2026, the README's command, 2,053 tests): each worker's
collection ~5.5 s, of which ~2.6 s is pytest rewriting the test modules' asserts, redone at
every run because ``PYTHONDONTWRITEBYTECODE=1`` keeps pytest from caching them; xdist's
controller ~2 s; the tests ~40 s, ~8 s of it in the ~25 that start a Python subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from _cpu_time import CpuTimes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEAVY = ("torch", "stable_baselines3", "sb3_contrib", "ray")

SCRIPT = f"""
import sys
import pytest
code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider",
                    "-m", "not slow and not ecosystem", "tests"])
print("IMPORTED", [m for m in {HEAVY!r} if m in sys.modules])
sys.exit(int(code))
"""


@pytest.mark.slow
def test_collecting_the_fast_lane_imports_no_heavy_library():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], check=False, cwd=ROOT, capture_output=True, text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    line = [x for x in done.stdout.splitlines() if x.startswith("IMPORTED")][-1]
    assert line == "IMPORTED []", (
        f"collecting the fast lane imported {line[len('IMPORTED '):]}: import them inside "
        "the tests (or check with importlib.util.find_spec) instead of at a module's top"
    )


#: The most CPU seconds one fast-lane file may take (collection + its tests; torch's and SB3's
#: imports paid before, see tests/_cpu_time.py). A file is one of ~115 sharing the lane's ~50 s;
#: one at 4 s is 8% of it, a file that has doubled, with a test to mark slow (keeping a cheaper
#: one in the lane) or a fixture to share. The largest files took 2.3-2.4 s at a load of 4.4
#: on 2 cores (tests/rules/test_engine_properties.py, tests/project/test_architecture_layers.py);
#: they took ~3.8 s at a load of 10 before: load moves CPU figures too (by up to a fifth here,
#: the cores' shared caches and memory), though far less than it moves wall time.
FILE_BOUND_S = 4.0

#: The most CPU seconds the whole lane may take in one process (``total``: start-up, warm-up,
#: collection and every test). Measured on 2 cores, 7 Dec 2026: 47.1 s for 2,036 tests at a
#: load of 2, 50.9 s for 2,053 at a load of 4.4 (a training run beside it). Under -n 2 the
#: lane pays ~5 s more (the second worker's start-up and collection, xdist's controller), so
#: 60 s here is about 65 s of CPU for the README's command: 30 s of wall time on 2 quiet cores
#: only if the two workers stay balanced. A bound to catch a lane that grows by a fifth, with
#: room for load; the 30 s itself is a wall-time figure, measured on a quiet machine.
LANE_BOUND_S = 60.0


def _lane_env(cpu_file) -> dict[str, str]:
    """This environment for a fresh pytest run: no xdist worker's variables (a slow-lane
    run under -n would pass them on), bytecode not written as on these machines, and one
    OpenMP/BLAS thread by default, as the lane's workers have (tests/conftest.py): on a busy
    machine the threads of torch and BLAS spin while they wait for each other, and a test's
    CPU time then grew tenfold (0.35 s to 5 s) with nothing else changed."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT_TEST"))}
    env.update(SIXTYSIX_CPU_TIMES=str(cpu_file), PYTHONDONTWRITEBYTECODE="1", OMP_NUM_THREADS="1")
    return env


@pytest.fixture(scope="module")
def lane_cpu(tmp_path_factory) -> dict:
    """The fast lane run once in one process (the README's selection, without -n: the CPU is
    the same, shared out), its CPU seconds as tests/_cpu_time.py writes them."""
    cpu_file = tmp_path_factory.mktemp("lane") / "cpu.json"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "-m", "not slow and not ecosystem", "tests"],
        check=False, cwd=ROOT, env=_lane_env(cpu_file), capture_output=True, text=True,
        timeout=3600)
    # A failing test is its own test's news (exit 1); the timings are still whole.
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(cpu_file.read_text(encoding="utf-8"))


def _heaviest(times: dict, files=None, n: int = 10) -> str:
    """The ``n`` heaviest tests (of ``files`` only, if given), as ``nodeid 1.2 s``."""
    tests = [(t, s) for t, s in times["tests"].items() if files is None or t.split("::")[0] in files]
    return ", ".join(f"{t} {s:.1f} s" for t, s in tests[:n])


@pytest.mark.slow
def test_no_fast_lane_file_takes_over_a_few_seconds_of_cpu(lane_cpu):
    """Names every file over FILE_BOUND_S."""
    over = {f: s for f, s in lane_cpu["files"].items() if s > FILE_BOUND_S}
    assert not over, (
        f"fast-lane files over {FILE_BOUND_S} s of CPU (the lane: {lane_cpu['total']:.1f} s "
        f"for {lane_cpu['n_tests']} tests): "
        + ", ".join(f"{f} {s:.1f} s" for f, s in over.items())
        + "; their heaviest tests: " + _heaviest(lane_cpu, over)
        + ". Mark a test @pytest.mark.slow where a cheaper one keeps the case in the lane, "
        "or share an expensive fixture (module or session scope)"
    )


@pytest.mark.slow
def test_the_fast_lane_fits_its_cpu_budget(lane_cpu):
    """The whole lane in one process, start-up, warm-up and collection included, within
    LANE_BOUND_S: files each under their bound can still add up past the budget."""
    assert lane_cpu["total"] <= LANE_BOUND_S, (
        f"the fast lane took {lane_cpu['total']:.1f} s of CPU in one process for "
        f"{lane_cpu['n_tests']} tests (bound {LANE_BOUND_S} s); its heaviest files: "
        + ", ".join(f"{f} {s:.1f} s" for f, s in list(lane_cpu["files"].items())[:8])
        + "; its heaviest tests: " + _heaviest(lane_cpu)
        + ". Keep a cheap case of a sweep in the lane and mark the rest @pytest.mark.slow, "
        "share an expensive fixture, or import a heavy library inside the test that needs it"
    )


class _Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def _through(hook, clock, spent, **kwargs):
    """Runs one of the plugin's hook wrappers around ``spent`` seconds of the fake clock."""
    wrapper = hook(**kwargs)
    next(wrapper)
    clock.now += spent
    with pytest.raises(StopIteration):
        next(wrapper)


class _Module(pytest.Module):
    nodeid = "tests/a/test_one.py"


class _Item:
    def __init__(self, nodeid):
        self.nodeid = nodeid


def test_cpu_times_sums_each_file_its_collection_and_its_tests(tmp_path, monkeypatch):
    clock = _Clock()
    clock.now = 1.5  # the interpreter's start-up, before the plugin


    def warm():
        clock.now += 0.75

    plugin = CpuTimes(tmp_path / "cpu.json", clock=clock, warm=warm)
    module = object.__new__(_Module)  # not built: isinstance and nodeid are all it reads
    _through(plugin.pytest_make_collect_report, clock, 0.5, collector=module)
    _through(plugin.pytest_make_collect_report, clock, 9.0, collector=object())  # not a file
    for nodeid, spent in [("tests/a/test_one.py::test_x", 1.0),
                          ("tests/a/test_one.py::K::test_y[2-b]", 2.0),
                          ("tests/b/test_two.py::test_z", 0.25)]:
        _through(plugin.pytest_runtest_protocol, clock, spent, item=_Item(nodeid), nextitem=None)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    plugin.pytest_sessionfinish(session=None)
    written = json.loads((tmp_path / "cpu.json").read_text(encoding="utf-8"))
    assert written["files"] == {"tests/a/test_one.py": 3.5, "tests/b/test_two.py": 0.25}
    assert list(written["files"]) == ["tests/a/test_one.py", "tests/b/test_two.py"]
    assert written["collect"] == {"tests/a/test_one.py": 0.5}
    assert written["tests"]["tests/a/test_one.py::K::test_y[2-b]"] == 2.0
    assert written["n_tests"] == 3
    assert (written["total"], written["session"], written["warm_up"]) == (15.0, 13.5, 0.75)
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")  # each worker its own file
    plugin.pytest_sessionfinish(session=None)
    assert json.loads((tmp_path / "cpu.json.gw1").read_text(encoding="utf-8")) == written


def test_cpu_times_is_registered_only_when_asked(monkeypatch):
    """Registered with a stand-in warm-up: the real one (torch, SB3 and an optimiser step,
    3.4 s of CPU in one process) was paid by the worker this test ran in, which imports SB3
    otherwise only if it also runs the training tests."""
    from _cpu_time import register

    class Manager:
        def __init__(self):
            self.plugins = []

        def register(self, plugin, name):
            self.plugins.append((name, plugin))

    class Config:
        pluginmanager = Manager()

    warmed = []
    monkeypatch.delenv("SIXTYSIX_CPU_TIMES", raising=False)
    register(Config, warm=lambda: warmed.append(1))
    assert Config.pluginmanager.plugins == [] and warmed == []
    monkeypatch.setenv("SIXTYSIX_CPU_TIMES", "x.json")
    register(Config, warm=lambda: warmed.append(1))
    assert [(n, type(p), str(p.path)) for n, p in Config.pluginmanager.plugins] == [
        ("sixtysix-cpu-times", CpuTimes, "x.json")]
    assert warmed == [1]


def test_an_xdist_worker_starts_one_openmp_thread_by_default():
    """The fast lane's two workers fill two cores: threads of torch's and BLAS's of their own
    would only wait for each other (tests/conftest.py)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("not an xdist worker (the fast lane runs with -n 2)")
    assert os.environ.get("OMP_NUM_THREADS"), "tests/conftest.py sets it to 1 in a worker"
