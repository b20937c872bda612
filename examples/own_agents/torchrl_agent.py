"""A TorchRL actor's network as an agent (docs/own-agent.md).

    sixtysix eval examples.own_agents.torchrl_agent:TorchRLAgent:path=ppo.pt heuristic --deals 100

``path`` is the file ``torch.save(policy_net.state_dict(), "ppo.pt")`` writes
after docs/ecosystem.md's TorchRL PPO recipe: the state dict of the
``torchrl.modules.MLP`` that gives the actor its logits (its hidden sizes
are read from the weights; ``activation`` names its activation, ``tanh``,
MLP's default, or ``relu``). The agent reads the observation the
environments give (:func:`~sixtysix_env.policy.observation.observe_view`: the
349 features and the action mask) and plays the legal action with the
highest logit: the recipe's ``ProbabilisticActor`` with ``MaskedCategorical``
under ``ExplorationType.DETERMINISTIC``, as
tests/ecosystem/test_own_agent_libraries.py checks.

``python -m examples.own_agents.torchrl_agent ppo.pt ppo.npz`` writes the same
network as a policy file (:mod:`sixtysix_env.policy`), which plays the same
moves with numpy alone: no torch, no TorchRL.
"""

from __future__ import annotations

import argparse
import random

import torch
from torch import nn
from torchrl.modules import MLP

from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.game.view import PlayerView
from sixtysix_env.policy.observation import OBS_SIZE, observe_view

from ._torch_state import linear_layers, load_state, write_policy_file

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}


def _load_state(path: str) -> dict[str, torch.Tensor]:
    return load_state(path, "the actor's network", "policy_net")


def load_module(path: str, activation: str = "tanh") -> MLP:
    """The ``MLP`` (observation -> 34 logits) saved at ``path`` (its state dict)."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, not {activation!r}")
    state = _load_state(path)
    hidden = [int(w.shape[0]) for w, _ in linear_layers(state)[:-1]]
    net = MLP(in_features=OBS_SIZE, out_features=NUM_ACTIONS, num_cells=hidden,
              activation_class=ACTIVATIONS[activation])
    try:
        net.load_state_dict(state)  # strict: a file of another shape is refused here
    except RuntimeError as e:
        raise ValueError(
            f"{path!r} is not the state dict of an MLP from {OBS_SIZE} observation values "
            f"to {NUM_ACTIONS} logits ({e})"
        ) from None
    return net.eval()


class TorchRLAgent:
    """Plays the legal action with the highest logit of a saved TorchRL actor network."""

    def __init__(self, path: str, activation: str = "tanh", name: str = "torchrl-ppo") -> None:
        self.net = load_module(path, activation)
        self.activation = activation
        self.name = name

    @torch.no_grad()
    def act(self, view: PlayerView, rng: random.Random) -> int:
        obs = observe_view(view)  # what SixtySix-v0 and sixtysix_v0 would give this seat
        logits = self.net(torch.from_numpy(obs["observation"]))
        logits = logits.masked_fill(torch.from_numpy(obs["action_mask"] == 0), -torch.inf)
        return int(logits.argmax())  # the first of equal best, as the distribution's mode


def to_policy_file(path: str, out: str, activation: str = "tanh") -> None:
    """Write the network saved at ``path`` as a numpy policy file ``out`` (``.npz``)."""
    write_policy_file(_load_state(path), out, activation, "torchrl-ppo", "TorchRL PPO")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=to_policy_file.__doc__)
    parser.add_argument("path", help="the MLP's state dict (torch.save)")
    parser.add_argument("out", help="the policy file to write (.npz)")
    parser.add_argument("--activation", choices=sorted(ACTIVATIONS), default="tanh")
    args = parser.parse_args()
    to_policy_file(args.path, args.out, args.activation)
    print(f"wrote {args.out}; check it: sixtysix eval {args.out} heuristic --deals 100")
