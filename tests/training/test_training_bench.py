"""Smoke run of the training throughput benchmark."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import pytest

# A subprocess training run: the full lane only. Skipped without the [train] extra
# (found, not imported: collecting the tests imports no torch).
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("sb3_contrib") is None,
                       reason="the [train] extra is not installed"),
]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_bench_training_smoke():
    r = subprocess.run(
        [
            sys.executable,
            os.path.join(ROOT, "speed", "bench_training.py"),
            "--config",
            os.path.join(ROOT, "configs", "tiny.yaml"),
            "--steps",
            "256",
            "--default-steps",
            "64",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"configured \(tiny\.yaml.*: [\d,]+ steps/s, [\d.]+ min per million", r.stdout)
    assert re.search(r"default \(1 game.*: [\d,]+ steps/s", r.stdout)
    assert re.search(r"ratio configured / default: [\d.]+x", r.stdout)
