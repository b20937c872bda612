"""docs/own-agent.md's Tianshou and TorchRL sections, run as written: each section's code
trains and saves a network (a Tianshou DQN policy, the TorchRL PPO actor's MLP), its
commands evaluate it and export it; the agent then plays the library's own moves (the
policy's greedy action, the actor's deterministic one). The RLlib section has its own test,
tests/training/test_own_agent_rllib.py (Ray runs in its own virtual environment).

Nothing heavy is imported at the top (the fast lane collects this file): the library and
torch are imported by the fixture, which skips without them (and fails in CI, where
``.ci/run`` installed them: ``_ecosystem.require``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

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


def _require_tianshou() -> None:
    # Tianshou's n-step returns are numba functions, whose compiling takes longer than this
    # training: plain Python here, where numba is not imported yet (numba's own switch).
    if "numba" not in sys.modules:
        os.environ.setdefault("NUMBA_DISABLE_JIT", "1")
    require("tianshou", "tianshou")


def _tianshou_moves(namespace: dict) -> Callable:
    """The trained policy's own action on an observation: ``policy(batch).act``."""
    import numpy as np
    import torch
    from tianshou.data import Batch

    policy = namespace["learner"].policy.eval()  # the trained policy, still in memory

    def own(obs):
        batch = Batch(obs=Batch(obs=obs["observation"][None],
                                mask=obs["action_mask"][None].astype(bool)), info=Batch())
        with torch.no_grad():
            return int(np.asarray(policy(batch).act)[0])

    return own


def _torchrl_moves(namespace: dict) -> Callable:
    """The trained actor's own (deterministic) action on an observation."""
    import torch
    from tensordict import TensorDict
    from torchrl.envs.utils import ExplorationType, set_exploration_type

    actor = namespace["actor"]()  # the recipe's actor over one row, the trained network

    def own(obs):
        row = TensorDict({"observation": {"observation": torch.from_numpy(obs["observation"])},
                          "action_mask": torch.from_numpy(obs["action_mask"]).bool()})
        with torch.no_grad(), set_exploration_type(ExplorationType.DETERMINISTIC):
            return int(actor(row)["action"])

    return own


@dataclass(frozen=True)
class Library:
    """A section of the page and what its test needs to know of it."""

    section: str  # the page's section title
    module: str  # the example's module in examples/own_agents/
    agent: str  # its agent class
    saved: str  # the file the section's code saves (then exports to its .npz)
    require: Callable[[], None]  # imports the library or skips
    moves: Callable[[dict], Callable]  # the library's own move, from the section's namespace
    library_call: str  # that call, as speed/own_agents.py names its row
    bad_option: str  # an option the agent refuses
    refusal: str  # what the refusal says

    def spec(self, path) -> str:
        return f"examples.own_agents.{self.module}:{self.agent}:path={path}"


LIBRARIES = {
    "Tianshou": Library("Tianshou", "tianshou_agent", "TianshouAgent", "dqn.pt",
                        _require_tianshou, _tianshou_moves, "policy(Batch(obs, mask)).act",
                        "hidden=64", "no option 'hidden'"),
    "TorchRL": Library("TorchRL", "torchrl_agent", "TorchRLAgent", "ppo.pt",
                       lambda: require("torchrl", "torchrl"), _torchrl_moves,
                       "ProbabilisticActor (deterministic)", "activation=sigmoid",
                       "activation must be one of tanh, relu"),
}


@pytest.fixture(scope="module", params=list(LIBRARIES))
def page(request, tmp_path_factory):
    """A library's section run in a fresh folder: the library, the namespace its code
    leaves (the trained objects), the folder (the saved file) and the section's commands."""
    request.getfixturevalue(one_torch_thread.__name__)  # the page sets one thread: put back
    library = LIBRARIES[request.param]
    library.require()
    folder = tmp_path_factory.mktemp(library.section.lower())
    namespace, commands = run_section(library.section, folder)
    return library, namespace, folder, commands


def test_the_page_trains_saves_evaluates_and_exports(page):
    library, _, folder, commands = page
    assert (folder / library.saved).is_file()
    check_commands(commands, folder, library.saved.replace(".pt", ".npz"))


def test_the_agent_plays_the_librarys_own_moves(page, tmp_path):
    from importlib import import_module

    from sixtysix_env.agents import make_agent

    library, namespace, folder, _ = page
    agent = recorded_play(library.spec(folder / library.saved))
    to_policy_file = import_module(f"examples.own_agents.{library.module}").to_policy_file
    to_policy_file(str(folder / library.saved), str(tmp_path / "exported.npz"))
    check_own_moves(agent, library.moves(namespace), make_agent(str(tmp_path / "exported.npz")))


def test_a_wrong_option_or_a_missing_file_is_refused_with_what_to_do(page):
    from sixtysix_env.agents import AgentSpecError, make_agent

    library, _, folder, _ = page
    with pytest.raises(AgentSpecError, match=library.refusal):
        make_agent(library.spec(folder / library.saved) + "," + library.bad_option)
    with pytest.raises(AgentSpecError, match="no file .*missing.pt.*torch.save"):
        make_agent(library.spec(folder / "missing.pt"))


def test_the_cost_script_runs_on_the_pages_network(page):
    """A smoke run of speed/own_agents.py (the page's costs); it times, nothing here does."""
    library, _, folder, _ = page
    name = library.section
    check_cost_script(f"--{name.lower()}", folder / library.saved,
                      (f"{name}: {library.agent}.act", f"{name}: {library.library_call}",
                       f"{name}: exported .npz"))
