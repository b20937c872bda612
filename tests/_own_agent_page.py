"""docs/own-agent.md read by its tests: each section's code and commands, run as a user runs
them, and an agent wrapper that records what it saw (the Tianshou, TorchRL and RLlib
tests, and the interface's); with the checks the library sections share (their commands,
their agent's moves against the library's own, the cost script)."""

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
        from sixtysix_env.policy.observation import observe_view

        action = self.agent.act(view, rng)
        self.seen.append((observe_view(view), view, action))
        return action


def run_section(title: str, folder: Path) -> tuple[dict, list[str]]:
    """The section ``## title``'s code run in ``folder`` (where it saves its files): the
    namespace it leaves (the trained objects) and the section's commands."""
    code, commands = page_section(title)
    here = os.getcwd()
    os.chdir(folder)
    try:
        namespace: dict = {"__name__": "own_agent_page"}
        exec(compile(code, f"{PAGE} ({title})", "exec"), namespace)
    finally:
        os.chdir(here)
    return namespace, commands


def check_commands(commands: list[str], folder: Path, exported: str) -> None:
    """The section's commands, evaluate, export to ``exported`` and evaluate that, run in
    ``folder``; each evaluation plays 2 paired deals against the heuristic."""
    assert [c.split()[:2] for c in commands] == [["sixtysix", "eval"], ["python", "-m"],
                                                 ["sixtysix", "eval"]]
    for line in commands:
        out = run_command(line, folder)
        if "eval" in line:
            assert re.search(r"heuristic\s.*\s4\s", out), out  # 2 paired deals: 4 hands
    assert (folder / exported).is_file()


def recorded_play(spec: str) -> Recorder:
    """The agent ``spec`` names, recorded over 2 paired deals against the heuristic."""
    from sixtysix_env.agents import make_agent
    from sixtysix_env.evaluation import evaluate

    agent = Recorder(make_agent(spec))
    result = evaluate([agent, "heuristic"], deals=4, seed=3)
    assert result.complete and len(agent.seen) > 30
    return agent


def check_own_moves(agent: Recorder, own, exported) -> None:
    """Each of ``agent``'s recorded moves is legal, the library's own (``own(obs)``) and the
    exported policy file's (``exported``, an agent), and not always the first legal one."""
    rng = random.Random(0)
    not_first = 0
    for obs, view, action in agent.seen:
        assert obs["action_mask"][action] == 1, (action, view.legal_actions())
        assert action == own(obs)
        assert exported.act(view, rng) == action
        not_first += action != view.legal_actions()[0]
    assert not_first > 0  # the network chose, not the order of the legal actions


def check_cost_script(option: str, path: Path, labels: tuple[str, ...]) -> None:
    """A smoke run of speed/own_agents.py (the page's costs) on ``option path``: it prints
    each of ``labels``; it times, nothing here does."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "speed" / "own_agents.py"), "--hands", "3", option,
         str(path)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for label in (*labels, "machine: "):
        assert label in done.stdout, done.stdout
