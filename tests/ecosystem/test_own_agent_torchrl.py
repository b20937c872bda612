"""docs/own-agent.md's TorchRL section, run as written: its code trains and saves the PPO
actor's MLP, its commands evaluate it and export it; the agent then plays the actor's own
(deterministic) moves.

Nothing heavy is imported at the top (the fast lane collects this file): TorchRL and
torch are imported by the fixture, which skips without them (and fails in CI, where
``.ci/run`` installed them: ``_ecosystem.require``).
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys

import pytest
from _ecosystem import one_torch_thread, require
from _own_agent_page import PAGE, ROOT, Recorder, page_section, run_command

pytestmark = pytest.mark.ecosystem

SPEC = "examples.own_agents.torchrl_agent:TorchRLAgent:path={path}"


@pytest.fixture(scope="module")
def page(request, tmp_path_factory):
    """The section's code run in a fresh folder: its namespace (the trained objects), the
    folder (the saved file) and the section's commands."""
    request.getfixturevalue(one_torch_thread.__name__)  # the page sets one thread: put back
    require("torchrl", "torchrl")
    code, commands = page_section("TorchRL")
    folder = tmp_path_factory.mktemp("torchrl")
    here = os.getcwd()
    os.chdir(folder)
    try:
        namespace: dict = {"__name__": "own_agent_page"}
        exec(compile(code, f"{PAGE} (TorchRL)", "exec"), namespace)
    finally:
        os.chdir(here)
    return namespace, folder, commands


def test_the_page_trains_saves_evaluates_and_exports(page):
    _, folder, commands = page
    assert (folder / "ppo.pt").is_file()
    assert [c.split()[:2] for c in commands] == [["sixtysix", "eval"], ["python", "-m"],
                                                 ["sixtysix", "eval"]]
    for line in commands:
        out = run_command(line, folder)
        if "eval" in line:
            assert re.search(r"heuristic\s.*\s4\s", out), out  # 2 paired deals: 4 hands
    assert (folder / "ppo.npz").is_file()


def test_the_agent_plays_the_actors_own_moves(page, tmp_path):
    import torch
    from tensordict import TensorDict
    from torchrl.envs.utils import ExplorationType, set_exploration_type

    from examples.own_agents.torchrl_agent import to_policy_file
    from sixtysix_env.agents import make_agent
    from sixtysix_env.evaluation import evaluate

    namespace, folder, _ = page
    agent = Recorder(make_agent(SPEC.format(path=folder / "ppo.pt")))
    result = evaluate([agent, "heuristic"], deals=4, seed=3)
    assert result.complete and len(agent.seen) > 30

    actor = namespace["actor"]()  # the recipe's actor over one row, the trained network
    to_policy_file(str(folder / "ppo.pt"), str(tmp_path / "exported.npz"))
    exported = make_agent(str(tmp_path / "exported.npz"))
    rng = random.Random(0)
    not_first = 0
    for obs, view, action in agent.seen:
        mask = obs["action_mask"]
        assert mask[action] == 1, (action, view.legal_actions())
        row = TensorDict({"observation": {"observation": torch.from_numpy(obs["observation"])},
                          "action_mask": torch.from_numpy(mask).bool()})
        with torch.no_grad(), set_exploration_type(ExplorationType.DETERMINISTIC):
            own = int(actor(row)["action"])
        assert action == own
        assert exported.act(view, rng) == action
        not_first += action != view.legal_actions()[0]
    assert not_first > 0  # the network chose, not the order of the legal actions


def test_a_wrong_option_or_a_missing_file_is_refused_with_what_to_do(page):
    from sixtysix_env.agents import AgentSpecError, make_agent

    _, folder, _ = page
    with pytest.raises(AgentSpecError, match="activation must be one of tanh, relu"):
        make_agent(SPEC.format(path=folder / "ppo.pt") + ",activation=sigmoid")
    with pytest.raises(AgentSpecError, match="no file .*missing.pt.*torch.save"):
        make_agent(SPEC.format(path=folder / "missing.pt"))


def test_the_cost_script_runs_on_the_pages_network(page):
    """A smoke run of speed/own_agents.py (the page's costs); it times, nothing here does."""
    _, folder, _ = page
    done = subprocess.run(
        [sys.executable, str(ROOT / "speed" / "own_agents.py"), "--hands", "3",
         "--torchrl", str(folder / "ppo.pt")],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    for label in ("TorchRL: TorchRLAgent.act", "TorchRL: ProbabilisticActor (deterministic)",
                  "TorchRL: exported .npz", "machine: "):
        assert label in done.stdout, done.stdout
