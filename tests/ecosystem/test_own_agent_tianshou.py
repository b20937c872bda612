"""docs/own-agent.md's Tianshou section, run as written: its code trains and saves a DQN
policy, its commands evaluate it and export it; the agent then plays the policy's own moves.

Nothing heavy is imported at the top (the fast lane collects this file): Tianshou and
torch are imported by the fixture, which skips without them (and fails in CI, where
``.ci/run`` installed them: ``_ecosystem.require``).
"""

from __future__ import annotations

import os
import random
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from _ecosystem import one_torch_thread, require

pytestmark = pytest.mark.ecosystem

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "own-agent.md"
SPEC = "examples.own_agents.tianshou_agent:TianshouAgent:path={path}"


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


@pytest.fixture(scope="module")
def page(request, tmp_path_factory):
    """The section's code run in a fresh folder: its namespace (the trained objects), the
    folder (the saved file) and the section's commands."""
    request.getfixturevalue(one_torch_thread.__name__)  # the page sets one thread: put back
    # Tianshou's n-step returns are numba functions, whose compiling takes longer than this
    # training: plain Python here, where numba is not imported yet (numba's own switch).
    if "numba" not in sys.modules:
        os.environ.setdefault("NUMBA_DISABLE_JIT", "1")
    require("tianshou", "tianshou")
    code, commands = page_section("Tianshou")
    folder = tmp_path_factory.mktemp("tianshou")
    here = os.getcwd()
    os.chdir(folder)
    try:
        namespace: dict = {"__name__": "own_agent_page"}
        exec(compile(code, f"{PAGE} (Tianshou)", "exec"), namespace)
    finally:
        os.chdir(here)
    return namespace, folder, commands


def test_the_page_trains_saves_evaluates_and_exports(page):
    _, folder, commands = page
    assert (folder / "dqn.pt").is_file()
    assert [c.split()[:2] for c in commands] == [["sixtysix", "eval"], ["python", "-m"],
                                                 ["sixtysix", "eval"]]
    for line in commands:
        out = run_command(line, folder)
        if "eval" in line:
            assert re.search(r"heuristic\s.*\s4\s", out), out  # 2 paired deals: 4 hands
    assert (folder / "dqn.npz").is_file()


def test_the_agent_plays_the_policys_own_moves(page, tmp_path):
    import numpy as np
    import torch
    from tianshou.data import Batch

    from examples.own_agents.tianshou_agent import to_policy_file
    from sixtysix_env.agents import make_agent
    from sixtysix_env.evaluation import evaluate

    namespace, folder, _ = page
    agent = Recorder(make_agent(SPEC.format(path=folder / "dqn.pt")))
    result = evaluate([agent, "heuristic"], deals=4, seed=3)
    assert result.complete and len(agent.seen) > 30

    policy = namespace["learner"].policy.eval()  # the trained policy, still in memory
    to_policy_file(str(folder / "dqn.pt"), str(tmp_path / "exported.npz"))
    exported = make_agent(str(tmp_path / "exported.npz"))
    rng = random.Random(0)
    not_first = 0
    for obs, view, action in agent.seen:
        mask = obs["action_mask"]
        assert mask[action] == 1, (action, view.legal_actions())
        batch = Batch(obs=Batch(obs=obs["observation"][None], mask=mask[None].astype(bool)),
                      info=Batch())
        with torch.no_grad():
            own = int(np.asarray(policy(batch).act)[0])
        assert action == own
        assert exported.act(view, rng) == action
        not_first += action != view.legal_actions()[0]
    assert not_first > 0  # the network chose, not the order of the legal actions


def test_a_wrong_option_or_a_missing_file_is_refused_with_what_to_do(page):
    from sixtysix_env.agents import AgentSpecError, make_agent

    _, folder, _ = page
    with pytest.raises(AgentSpecError, match="no option 'hidden'"):
        make_agent(SPEC.format(path=folder / "dqn.pt") + ",hidden=64")
    with pytest.raises(AgentSpecError, match="no file .*missing.pt.*torch.save"):
        make_agent(SPEC.format(path=folder / "missing.pt"))