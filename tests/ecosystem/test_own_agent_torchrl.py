"""docs/own-agent.md's TorchRL section, run as written: its code trains and saves the PPO
actor's MLP, its commands evaluate it and export it; the agent then plays the actor's own
(deterministic) moves.

Nothing heavy is imported at the top (the fast lane collects this file): TorchRL and
torch are imported by the fixture, which skips without them (and fails in CI, where
``.ci/run`` installed them: ``_ecosystem.require``).
"""

from __future__ import annotations

import pytest
from _ecosystem import one_torch_thread, require
from _own_agent_page import (
    check_commands,
    check_cost_script,
    check_own_moves,
    recorded_play,
    run_section,
)

pytestmark = pytest.mark.ecosystem

SPEC = "examples.own_agents.torchrl_agent:TorchRLAgent:path={path}"


@pytest.fixture(scope="module")
def page(request, tmp_path_factory):
    """The section's code run in a fresh folder: its namespace (the trained objects), the
    folder (the saved file) and the section's commands."""
    request.getfixturevalue(one_torch_thread.__name__)  # the page sets one thread: put back
    require("torchrl", "torchrl")
    folder = tmp_path_factory.mktemp("torchrl")
    namespace, commands = run_section("TorchRL", folder)
    return namespace, folder, commands


def test_the_page_trains_saves_evaluates_and_exports(page):
    _, folder, commands = page
    assert (folder / "ppo.pt").is_file()
    check_commands(commands, folder, "ppo.npz")


def test_the_agent_plays_the_actors_own_moves(page, tmp_path):
    import torch
    from tensordict import TensorDict
    from torchrl.envs.utils import ExplorationType, set_exploration_type

    from examples.own_agents.torchrl_agent import to_policy_file
    from sixtysix_env.agents import make_agent

    namespace, folder, _ = page
    agent = recorded_play(SPEC.format(path=folder / "ppo.pt"))
    actor = namespace["actor"]()  # the recipe's actor over one row, the trained network
    to_policy_file(str(folder / "ppo.pt"), str(tmp_path / "exported.npz"))

    def own(obs):
        row = TensorDict({"observation": {"observation": torch.from_numpy(obs["observation"])},
                          "action_mask": torch.from_numpy(obs["action_mask"]).bool()})
        with torch.no_grad(), set_exploration_type(ExplorationType.DETERMINISTIC):
            return int(actor(row)["action"])

    check_own_moves(agent, own, make_agent(str(tmp_path / "exported.npz")))


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
    check_cost_script("--torchrl", folder / "ppo.pt",
                      ("TorchRL: TorchRLAgent.act", "TorchRL: ProbabilisticActor (deterministic)",
                       "TorchRL: exported .npz"))
