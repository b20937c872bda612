"""The speed scripts (speed/) pin numpy's BLAS to one thread before numpy is imported, and
say how long they take (issue 70: bench_vector's per-row figure fell from 23,582 to 1,522
steps/s under load with BLAS threads fighting; nothing said it would run 3 minutes)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "speed").glob("*.py"))
#: Imports that load numpy (and so its BLAS) or torch.
HEAVY = re.compile(r"^(import|from) (numpy|gymnasium|pettingzoo|torch|ray|stable_baselines3|"
                   r"sb3_contrib|sixtysix_env|sixtysix_training)\b", re.MULTILINE)


def test_there_are_speed_scripts():
    assert len(SCRIPTS) >= 12  # the experiments are in research/ (issue 68, goal 4)


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_a_speed_script_pins_blas_before_numpy_and_says_how_long_it_took(path):
    text = path.read_text(encoding="utf-8")
    pin = text.find('"OPENBLAS_NUM_THREADS"')
    heavy = HEAVY.search(text)
    assert pin > 0, f"{path.name} does not set OPENBLAS_NUM_THREADS"
    assert heavy is None or pin < heavy.start(), f"{path.name}: {heavy.group(0)} comes first"
    doc = ast.get_docstring(ast.parse(text)) or ""
    assert "how long" in doc and "one thread" in doc, f"{path.name}'s docstring"
    assert re.search(r'print\(f"[^"]*took ', text), f"{path.name} does not print how long it took"


@pytest.mark.slow  # a fresh interpreter with numpy, gymnasium and the package (seconds)
def test_the_pin_holds_in_the_script_s_process():
    """bench_vector's imports (gymnasium, numpy, the package) run, then numpy's BLAS has
    one thread."""
    pytest.importorskip("threadpoolctl", reason="the eval extra")
    code = ("import runpy, sys\n"
            "sys.argv = ['bench_vector.py']\n"
            "runpy.run_path('speed/bench_vector.py', run_name='imported')\n"
            "from threadpoolctl import threadpool_info\n"
            "print(sorted({p['num_threads'] for p in threadpool_info()"
            " if p['user_api'] == 'blas'}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120, check=False,
                         env={k: v for k, v in os.environ.items()
                              if not k.endswith("_NUM_THREADS")})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[1]"


@pytest.mark.slow  # runs a script
def test_a_script_says_how_long_it_took_as_it_ends():
    out = subprocess.run(
        [sys.executable, "speed/bench_engine.py", "--hands", "20", "--no-peer", "--no-pin"],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )
    assert out.returncode == 0, out.stderr
    assert re.search(r"^bench_engine\.py took \d+ s$", out.stderr, flags=re.MULTILINE), out.stderr
