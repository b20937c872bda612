"""docs/own-agent.md read by its tests: each section's code and commands, run as a user runs
them, and an agent wrapper that records what it saw (the Tianshou, TorchRL and RLlib
tests, and the interface's)."""

from __future__ import annotations

import os
import random
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "own-agent.md"


def page_section(title: str) -> tuple[str, list[str]]:
    """The python code and the shell commands of the page's section ``## title``."""
    text = PAGE.read_text(encoding="utf-8")
    body = text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
    code = "\n".join(re.findall(r"```python\n(.*?)```", body, re.S))
    blocks = re.findall(r"```bash\n(.*?)```", body, re.S)
    return code, [line for block in blocks for line in block.splitlines() if line.strip()]


def run_command(line: str, cwd: Path) -> str:
    """One of the page's commands as a user runs it from the repository's root (here the
    files it names are in ``cwd``, the repository on the path), with 2 deals, not 100."""
    argv = shlex.split(line.replace("--deals 100", "--deals 2"))
    program = {"sixtysix": [sys.executable, "-m", "sixtysix_env"], "python": [sys.executable]}
    paths = [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    done = subprocess.run(
        program[argv[0]] + argv[1:], cwd=cwd, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
    )
    assert done.returncode == 0, f"{line}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


class Recorder:
    """An agent that keeps every observation it was given, with its answer."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.seen: list = []

    def act(self, view, rng: random.Random) -> int:
        from sixtysix_env.env.observation import observe_view

        action = self.agent.act(view, rng)
        self.seen.append((observe_view(view), view, action))
        return action
