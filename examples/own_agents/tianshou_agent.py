"""A Tianshou DQN policy as an agent (docs/own-agent.md).

    sixtysix eval examples.own_agents.tianshou_agent:TianshouAgent:path=dqn.pt heuristic --deals 100

``path`` is the file ``torch.save(learner.policy.state_dict(), "dqn.pt")``
writes after docs/ecosystem.md's Tianshou recipe: the state dict of a
``DiscreteQLearningPolicy`` whose model is Tianshou's ``Net`` (an MLP; its
hidden sizes are read from the weights), or the ``Net``'s own state dict. The agent reads the observation
the environments give (:func:`~sixtysix_env.policy.observation.observe_view`:
the 349 features and the action mask), asks the network for its Q-values
and plays the best legal action: the policy's own greedy action
(``policy(batch).act`` with the mask in ``batch.obs.mask``), as
tests/ecosystem/test_own_agent_libraries.py checks.

``python -m examples.own_agents.tianshou_agent dqn.pt dqn.npz`` writes the same
network as a policy file (:mod:`sixtysix_env.policy`), which plays the same
moves with numpy alone: no torch, no Tianshou.
"""

from __future__ import annotations

import argparse
import random

import torch
from gymnasium.spaces import Discrete
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.utils.net.common import Net

from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.game.view import PlayerView
from sixtysix_env.policy.observation import OBS_SIZE, observe_view

from ._torch_state import linear_layers, load_state, write_policy_file


def _load_state(path: str) -> dict[str, torch.Tensor]:
    return load_state(path, "the policy", "learner.policy")


def load_policy(path: str) -> DiscreteQLearningPolicy:
    """The ``DiscreteQLearningPolicy`` saved at ``path`` (its state dict, or its ``Net``'s),
    in eval mode."""
    state = _load_state(path)
    hidden = [int(w.shape[0]) for w, _ in linear_layers(state)[:-1]]
    net = Net(state_shape=OBS_SIZE, action_shape=NUM_ACTIONS, hidden_sizes=hidden)
    policy = DiscreteQLearningPolicy(model=net, action_space=Discrete(NUM_ACTIONS))
    try:  # strict: a file of another shape is refused here
        (policy if next(iter(state), "").startswith("model.model.model.") else net
         ).load_state_dict(state)
    except (RuntimeError, StopIteration) as e:
        raise ValueError(
            f"{path!r} is not the state dict of a DiscreteQLearningPolicy over an MLP Net "
            f"from {OBS_SIZE} observation values to {NUM_ACTIONS} actions ({e})"
        ) from None
    return policy.eval()


class TianshouAgent:
    """Plays the legal action with the highest Q-value of a saved Tianshou DQN policy."""

    def __init__(self, path: str, name: str = "tianshou-dqn") -> None:
        self.policy = load_policy(path)
        self.name = name

    @torch.no_grad()
    def act(self, view: PlayerView, rng: random.Random) -> int:
        obs = observe_view(view)  # what SixtySix-v0 and sixtysix_v0 would give this seat
        q, _ = self.policy.model(torch.from_numpy(obs["observation"])[None])
        q = q[0].masked_fill(torch.from_numpy(obs["action_mask"] == 0), -torch.inf)
        return int(q.argmax())  # the first of equal best, as Tianshou's argmax


def to_policy_file(path: str, out: str) -> None:
    """Write the network saved at ``path`` as a numpy policy file ``out`` (``.npz``)."""
    # Tianshou's Net is an MLP of ReLUs.
    write_policy_file(_load_state(path), out, "relu", "tianshou-dqn", "Tianshou DQN")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=to_policy_file.__doc__)
    parser.add_argument("path", help="the policy's state dict (torch.save)")
    parser.add_argument("out", help="the policy file to write (.npz)")
    args = parser.parse_args()
    to_policy_file(args.path, args.out)
    print(f"wrote {args.out}; check it: sixtysix eval {args.out} heuristic --deals 100")
