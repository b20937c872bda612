"""docs/agents.md's section on the schnapsen platform: its python block runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("schnapsen.game", reason="the [schnapsen] extra is not installed")

PAGE = Path(__file__).resolve().parents[2] / "docs" / "agents.md"


@pytest.mark.slow  # the package's bots import scikit-learn and Flask (2 s)
def test_the_bridge_block_runs(capsys):
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## The schnapsen platform", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```python\n(.*?)^```", section, flags=re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1
    scope: dict = {}
    exec(compile(blocks[0], f"{PAGE.name} (python block)", "exec"), scope)  # noqa: S102
    assert scope["game_points"] in (1, 2, 3)
    assert scope["rdeep"].name == "schnapsen:rdeep"
