"""docs/onnx.md's Python code runs as written: the model its first command writes
(``python -m sixtysix_env.policy.onnx sixtysix-ppo-v4 -o v4.onnx``, run here in a fresh
folder), then each ``python`` block of the page, in order, in one namespace.

onnx and onnxruntime (the [onnx] extra) are imported inside the test: collecting this file
imports neither."""

from __future__ import annotations

import random
import re
import shlex
from pathlib import Path

import pytest

from sixtysix_env.agents import make_agent

PAGE = Path(__file__).resolve().parents[2] / "docs" / "onnx.md"


def test_the_pages_python_runs_as_written_on_the_model_its_command_writes(tmp_path, monkeypatch):
    pytest.importorskip("onnx", reason='needs onnx: the [onnx] extra (pip install -e ".[onnx]")')
    pytest.importorskip("onnxruntime", reason='needs onnxruntime: the [onnx] extra')
    from sixtysix_env.policy import onnx as ox

    text = PAGE.read_text(encoding="utf-8")
    convert = next(
        line.split("#")[0] for line in re.findall(r"```bash\n(.*?)```", text, re.DOTALL)[0].splitlines()
        if line.startswith("python -m sixtysix_env.policy.onnx sixtysix-ppo-v4")
    )
    argv = shlex.split(convert)
    assert argv[:3] == ["python", "-m", "sixtysix_env.policy.onnx"] and "v4.onnx" in argv
    monkeypatch.chdir(tmp_path)  # the user's folder, where the command writes v4.onnx
    assert ox.main(argv[3:]) == 0

    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert blocks  # the page's Python: "Load it", Python (onnxruntime)
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, f"{PAGE.name} (python block)", "exec"), namespace)  # noqa: S102
    view, move = namespace["view"], namespace["move"]
    assert view.legal_mask >> move & 1
    # The model's move is the numpy policy's (sixtysix-ppo-v4 has no tie in this position).
    assert move == make_agent("sixtysix-ppo-v4").act(view, random.Random(0))
