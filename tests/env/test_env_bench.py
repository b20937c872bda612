"""Smoke run of the environment benchmark script."""

from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_bench(*extra: str) -> str:
    return subprocess.run(
        [
            sys.executable,
            os.path.join(ROOT, "speed", "bench_env.py"),
            "--seconds",
            "0.05",
            "--rounds",
            "1",
            "--no-pin",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout


def test_bench_env_smoke():
    out = run_bench()
    for name in ("sixtysix_v0.env()", "sixtysix_v0.raw_env()", "SixtySix-v0 (single-agent)"):
        assert name in out and "steps/s" in out
    # Leduc is measured side by side when rlcard is installed, else a note says why not.
    assert "ratio sixtysix_v0.env() / leduc_holdem_v4.env()" in out or "not measured" in out


def test_bench_env_without_the_peer():
    out = run_bench("--no-peer", "--mode", "match", "--rules", "santase")
    assert "sixtysix_v0.env()" in out and "not measured: skipped (--no-peer)" in out
