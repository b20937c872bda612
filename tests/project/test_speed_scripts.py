"""The speed scripts (speed/) pin numpy's BLAS to one thread before numpy is imported, and
say how long they take (issue 70: bench_vector's per-row figure fell from 23,582 to 1,522
steps/s under load with BLAS threads fighting; nothing said it would run 3 minutes), both
through one module, :mod:`sixtysix_env.util.scripts` (issue 68: the 18 lines that did it
were copied into 17 scripts)."""

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
#: The one import of the package that may come before the pin (it loads no numpy).
PIN_IMPORT = "from sixtysix_env.util.scripts import "


def test_there_are_speed_scripts():
    assert len(SCRIPTS) >= 12  # the experiments are in research/ (issue 68, goal 4)


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_a_speed_script_pins_blas_before_numpy_and_says_how_long_it_took(path):
    text = path.read_text(encoding="utf-8")
    pin = text.find("\none_blas_thread(")
    assert pin > 0, f"{path.name} does not call one_blas_thread() (sixtysix_env.util.scripts)"
    first = [m for m in HEAVY.finditer(text) if not text.startswith(PIN_IMPORT, m.start())]
    assert not first or pin < first[0].start(), f"{path.name}: {first[0].group(0)} comes first"
    assert '"OPENBLAS_NUM_THREADS"' not in text, f"{path.name} pins BLAS by hand"
    doc = ast.get_docstring(ast.parse(text)) or ""
    assert "how long" in doc and "one thread" in doc, f"{path.name}'s docstring"
    assert ("say_how_long_at_exit(__file__, _STARTED)" in text
            or re.search(r'print\(f"[^"]*took ', text)), f"{path.name} does not say how long it took"


def test_the_pin_says_when_it_came_after_numpy(monkeypatch):
    """Once numpy is imported (as it is here) the variables count no more: it says so."""
    import numpy  # noqa: F401

    from sixtysix_env.util.scripts import THREAD_VARIABLES, one_blas_thread

    for name in THREAD_VARIABLES:
        monkeypatch.setenv(name, "7")
    assert one_blas_thread() is False


@pytest.mark.parametrize("keep_torch_threads", [False, True])
def test_the_pin_sets_the_thread_variables(monkeypatch, keep_torch_threads):
    from sixtysix_env.util import scripts

    for name in scripts.THREAD_VARIABLES:
        monkeypatch.setenv(name, "7")
    monkeypatch.delitem(sys.modules, "numpy", raising=False)  # as a script's process is before its import
    assert scripts.one_blas_thread(keep_torch_threads=keep_torch_threads) is True
    got = {name: os.environ[name] for name in scripts.THREAD_VARIABLES}
    kept = {"OPENBLAS_NUM_THREADS"} if keep_torch_threads else set(scripts.THREAD_VARIABLES)
    assert got == {name: "1" if name in kept else "7" for name in scripts.THREAD_VARIABLES}


def test_the_scripts_module_imports_no_numpy():
    code = "import sys, sixtysix_env.util.scripts; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


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
