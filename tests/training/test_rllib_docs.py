"""docs/rllib.md's Python blocks run as written (issue 70), each in a fresh interpreter
started from an empty folder, as a user pastes it: RLlib's env runners are other
processes (PPO starts two), so a block that registers its environment in the driver only
fails there (``NameNotFound: Environment SixtySix doesn't exist``, seen as
``IndexError: list index out of range``).

Needs Ray RLlib (the ``[rllib]`` extra; CI runs it in its own virtual environment,
``.ci/run``) and is skipped without it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "rllib.md"


def _blocks() -> list[tuple[str, str]]:
    """(the section's heading, the block) for each Python block of the page."""
    out, heading = [], ""
    for part in re.split(r"(^## [^\n]*$|^```python\n.*?^```$)", PAGE.read_text(encoding="utf-8"),
                         flags=re.MULTILINE | re.DOTALL):
        if part.startswith("## "):
            heading = part[3:].strip()
        elif part.startswith("```python\n"):
            out.append((heading, part[len("```python\n"):-3]))
    return out


BLOCKS = _blocks()


def test_the_page_has_its_two_blocks():
    headings = [h for h, _ in BLOCKS]
    assert headings == ["Using RLlib's masking module on the environment yourself",
                        "The vector environment on RLlib's single-agent path"]
    vector = BLOCKS[1][1]
    # The id names its module, so that each env runner registers SixtySix-v0.
    assert '"sixtysix_env:SixtySix-v0"' in vector and "num_env_runners=0" not in vector


@pytest.mark.slow  # starts Ray with two env runners and trains one short iteration
@pytest.mark.parametrize("heading, block", BLOCKS, ids=["masking-module", "vector-env"])
def test_a_block_runs_as_written(heading, block, tmp_path):
    pytest.importorskip("ray.rllib")
    out = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True,
                         cwd=tmp_path, timeout=900, check=False)
    assert out.returncode == 0, f"{heading}:\n{out.stderr[-4000:]}"
    lines = out.stdout.split("\n")
    steps = float([line for line in lines if line.strip()][-1])
    assert steps >= 512  # one iteration's batch, sampled by the env runners
    if "vector" in heading:
        assert "['SixtySixVectorEnv', 'SixtySixVectorEnv']" in lines
