"""docs/own-agent.md's Tianshou section, run as written: its code trains and saves a DQN
policy, its commands evaluate it and export it; the agent then plays the policy's own moves.

Nothing heavy is imported at the top (the fast lane collects this file): Tianshou and
torch are imported by the fixture, which skips without them (and fails in CI, where
``.ci/run`` installed them: ``_ecosystem.require``).
"""

from __future__ import annotations

import os
import sys

import pytest
from _ecosystem import one_torch_thread, require
from _own_agent_page import check_commands, check_own_moves, recorded_play, run_section

pytestmark = pytest.mark.ecosystem

SPEC = "examples.own_agents.tianshou_agent:TianshouAgent:path={path}"


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
    folder = tmp_path_factory.mktemp("tianshou")
    namespace, commands = run_section("Tianshou", folder)
    return namespace, folder, commands


def test_the_page_trains_saves_evaluates_and_exports(page):
    _, folder, commands = page
    assert (folder / "dqn.pt").is_file()
    check_commands(commands, folder, "dqn.npz")


def test_the_agent_plays_the_policys_own_moves(page, tmp_path):
    import numpy as np
    import torch
    from tianshou.data import Batch

    from examples.own_agents.tianshou_agent import to_policy_file
    from sixtysix_env.agents import make_agent

    namespace, folder, _ = page
    agent = recorded_play(SPEC.format(path=folder / "dqn.pt"))
    policy = namespace["learner"].policy.eval()  # the trained policy, still in memory
    to_policy_file(str(folder / "dqn.pt"), str(tmp_path / "exported.npz"))

    def own(obs):
        batch = Batch(obs=Batch(obs=obs["observation"][None],
                                mask=obs["action_mask"][None].astype(bool)), info=Batch())
        with torch.no_grad():
            return int(np.asarray(policy(batch).act)[0])

    check_own_moves(agent, own, make_agent(str(tmp_path / "exported.npz")))


def test_a_wrong_option_or_a_missing_file_is_refused_with_what_to_do(page):
    from sixtysix_env.agents import AgentSpecError, make_agent

    _, folder, _ = page
    with pytest.raises(AgentSpecError, match="no option 'hidden'"):
        make_agent(SPEC.format(path=folder / "dqn.pt") + ",hidden=64")
    with pytest.raises(AgentSpecError, match="no file .*missing.pt.*torch.save"):
        make_agent(SPEC.format(path=folder / "missing.pt"))