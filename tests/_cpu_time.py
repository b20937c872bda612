"""The CPU time each test file costs, for the fast lane's budget (tests/project/test_fast_lane.py).

Turned on by the environment variable ``SIXTYSIX_CPU_TIMES`` (a JSON file to write); unset,
the conftest registers nothing and a run pays nothing. CPU time (user + system of this
process and of the subprocesses it waited for) rather than wall time, so that a loaded
machine gives about the same figures as a quiet one.

A file's figure is the CPU of importing and collecting it plus that of its tests' setup,
call and teardown (a module- or session-scoped fixture is paid by the first test that asks
for it). Under xdist each worker writes its own file, the worker's id appended to the name.

What the lane pays once, whichever test comes first, importing torch, SB3 and sb3-contrib and
torch's first optimiser step (~3 s), is paid before the first file (``warm_up`` in the JSON),
so that it does not land on the file that happens to come first.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

ENV = "SIXTYSIX_CPU_TIMES"


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its waited-for children."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def file_of(nodeid: str) -> str:
    """The file part of a pytest node id (``tests/a/test_b.py::test_c[1]`` -> ``tests/a/test_b.py``)."""
    return nodeid.split("::", 1)[0]


def warm_up() -> None:
    """Imports torch, SB3 and sb3-contrib (those installed) and takes one optimiser step
    (which imports the parts of torch an optimiser needs, sympy among them)."""
    for name in ("torch", "stable_baselines3", "sb3_contrib"):
        if importlib.util.find_spec(name) is not None:
            __import__(name)
    if importlib.util.find_spec("torch") is not None:
        import torch

        layer = torch.nn.Linear(4, 2)
        optimiser = torch.optim.Adam(layer.parameters())
        layer(torch.ones(3, 4)).sum().backward()
        optimiser.step()


class CpuTimes:
    """Sums CPU seconds per test file and per test, written as JSON at the session's end."""

    def __init__(self, path: str | os.PathLike, clock=cpu_seconds, warm=warm_up):
        self.path = Path(path)
        self.clock = clock
        self.collect: dict[str, float] = defaultdict(float)
        self.tests: dict[str, float] = defaultdict(float)
        self.start = clock()
        warm()
        self.warm_up = clock() - self.start

    @pytest.hookimpl(hookwrapper=True)
    def pytest_make_collect_report(self, collector):
        start = self.clock()
        yield
        if isinstance(collector, pytest.Module):
            self.collect[file_of(collector.nodeid)] += self.clock() - start

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        start = self.clock()
        yield
        self.tests[item.nodeid] += self.clock() - start

    def summary(self) -> dict:
        """``total`` (the process's CPU so far), ``session`` (since configure, ``warm_up``
        included), ``files`` (collection + tests, largest first),
        ``collect`` and ``tests`` (each test's setup + call + teardown)."""
        files: dict[str, float] = defaultdict(float)
        for name, seconds in self.collect.items():
            files[name] += seconds
        for nodeid, seconds in self.tests.items():
            files[file_of(nodeid)] += seconds
        ranked = dict(sorted(files.items(), key=lambda kv: -kv[1]))
        return {
            "total": self.clock(),  # since the interpreter started, imports included
            "session": self.clock() - self.start,
            "warm_up": round(self.warm_up, 3),
            "n_tests": len(self.tests),
            "files": {k: round(v, 3) for k, v in ranked.items()},
            "collect": {k: round(v, 3) for k, v in sorted(self.collect.items())},
            "tests": {k: round(v, 3) for k, v in sorted(self.tests.items(), key=lambda kv: -kv[1])},
        }

    def pytest_sessionfinish(self, session):
        path = self.path
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        if worker:
            path = path.with_name(f"{path.name}.{worker}")
        path.write_text(json.dumps(self.summary(), indent=1) + "\n", encoding="utf-8")


def register(config, warm=warm_up) -> None:
    """Registers :class:`CpuTimes` when ``SIXTYSIX_CPU_TIMES`` names a file; nothing otherwise.
    ``warm``: its warm-up (a test passes a stand-in: the real one imports torch and SB3)."""
    path = os.environ.get(ENV)
    if path:
        config.pluginmanager.register(CpuTimes(path, warm=warm), "sixtysix-cpu-times")
