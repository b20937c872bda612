"""The README's fast lane collects without importing torch, SB3 or Ray.

Collecting is paid once per xdist worker before any test runs, so a test module that
imports one of them at its top (for instance through ``pytest.importorskip``) costs the
whole lane a second or two. Run in a fresh interpreter, as a worker starts.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

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
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    line = [x for x in done.stdout.splitlines() if x.startswith("IMPORTED")][-1]
    assert line == "IMPORTED []", (
        f"collecting the fast lane imported {line[len('IMPORTED '):]}: import them inside "
        "the tests (or check with importlib.util.find_spec) instead of at a module's top"
    )
