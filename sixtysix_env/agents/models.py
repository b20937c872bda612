"""Opponent models: any agent as the probability of each move, for :mod:`sixtysix_env.agents.beliefs`.

:func:`opponent_model` turns an agent, or the name of one that is cheap to ask
thousands of times (``random``, ``heuristic``, a shipped policy, a ``.npz``
file), into an object with ``probabilities(views)``:

* a network policy: its softmax over the legal moves, or with ``argmax`` the
  move it plays (softened as below), the views of a call in one forward pass
  (:class:`PolicyModel`);
* ``random``: every legal move alike (:class:`UniformModel`);
* any other agent object (``heuristic``, a search bot): the move it plays gets
  ``1 - softness`` and every legal move shares ``softness``
  (:class:`RuleModel`), so that a move the rule would not make lowers a
  world's weight without ruling it out.

The first three also answer for many games of the batched engine at once
(``lane_probabilities``), which :func:`sixtysix_env.agents.beliefs.infer` uses.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from ..game.actions import NUM_ACTIONS
from ..game.view import PlayerView
from ..util.checks import check_option
from .base import RandomAgent
from .heuristic import HeuristicAgent

__all__ = [
    "DEFAULT_SOFTNESS",
    "PolicyModel",
    "RuleModel",
    "UniformModel",
    "load_prior",
    "model_agent",
    "opponent_model",
]

#: The share of a rule-based model's probability spread over all legal moves.
DEFAULT_SOFTNESS = 0.1


_BITS = np.arange(NUM_ACTIONS, dtype=np.int64)


def _mask_rows(masks) -> np.ndarray:
    """Legal-action bit masks as rows of 0/1 floats."""
    return (np.asarray(masks, np.int64)[:, None] >> _BITS & 1).astype(np.float64)


def _legal_rows(views: Sequence[PlayerView]) -> np.ndarray:
    return _mask_rows([v.legal_mask for v in views]).reshape(len(views), NUM_ACTIONS)


def _uniform(legal: np.ndarray) -> np.ndarray:
    return legal / legal.sum(axis=1, keepdims=True)


class UniformModel:
    """Every legal move alike (the ``random`` agent)."""

    name = "random"

    def probabilities(self, views: Sequence[PlayerView]) -> np.ndarray:
        return _uniform(_legal_rows(views))

    def lane_probabilities(self, hands, lanes, seats) -> np.ndarray:
        """The same for the seats to move in lanes of a batched engine."""
        return _uniform(_mask_rows(hands.legal_masks(lanes)))


class RuleModel:
    """A deterministic agent's move with ``1 - softness``, ``softness`` spread evenly
    over the legal moves (its own included)."""

    def __init__(self, agent, softness: float = DEFAULT_SOFTNESS, name: str | None = None):
        self.agent = agent
        self.softness = check_option("softness", softness, 0.0, 1.0)
        self.name = name or getattr(agent, "name", type(agent).__name__)
        if type(agent) is HeuristicAgent:
            # The compiled heuristic plays the same moves in many lanes at once.
            self.lane_probabilities = self._heuristic_lanes

    def probabilities(self, views: Sequence[PlayerView]) -> np.ndarray:
        rng = random.Random(0)  # a deterministic agent draws nothing from it
        return self._mixed(_legal_rows(views), [self.agent.act(v, rng) for v in views])

    def _mixed(self, legal: np.ndarray, moves) -> np.ndarray:
        out = self.softness * _uniform(legal)
        out[np.arange(len(out)), moves] += 1.0 - self.softness
        return out

    def _heuristic_lanes(self, hands, lanes, seats) -> np.ndarray:
        moves = hands.heuristic_actions(lanes, seats, int(self.agent.likely_points_per_trick))
        return self._mixed(_mask_rows(hands.legal_masks(lanes)), moves)


class PolicyModel:
    """A network policy's probabilities, the views of a call in one forward pass: its
    softmax (``softness`` None), or the move it plays as an argmax agent with
    ``1 - softness`` (the rest spread over the legal moves, as :class:`RuleModel`)."""

    def __init__(self, agent, name: str | None = None, softness: float | None = None) -> None:
        self.agent = agent
        self.name = name or agent.name
        self.softness = None if softness is None else check_option("softness", softness, 0, 1)

    def probabilities(self, views: Sequence[PlayerView]) -> np.ndarray:
        from ..policy.observation import encode_with_mask  # numpy and the policy's encoding

        if not views:
            return np.zeros((0, NUM_ACTIONS))
        pairs = [encode_with_mask(v) for v in views]
        obs = np.stack([o for o, _ in pairs])
        masks = np.stack([m for _, m in pairs])
        return self._of(obs, masks)

    def lane_probabilities(self, hands, lanes, seats) -> np.ndarray:
        """The same for ``seats`` in lanes of a batched engine (its observations)."""
        obs, masks = hands.observe(lanes, seats)
        return self._of(obs, masks)

    def _of(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        net = self.agent.network
        if self.softness is None:
            return net.probabilities(obs, masks)
        from ..policy.network import SYMMETRY_TIE

        legal = masks.astype(bool)
        z = np.where(legal, net.logits(obs, masks if net.reads_mask else None), -np.inf)
        if net.symmetry is None:
            moves = np.argmax(z, axis=1)  # the first of equal best logits, as the agent
        else:
            moves = np.argmax(z >= z.max(axis=1, keepdims=True) - SYMMETRY_TIE, axis=1)
        out = self.softness * _uniform(legal.astype(np.float64))
        out[np.arange(len(out)), moves] += 1.0 - self.softness
        return out


def model_agent(spec):
    """The agent an opponent model reads, from its name: ``random``, ``heuristic``, a
    shipped policy's name or a policy file (``.npz``); an agent object as it is."""
    if not isinstance(spec, str):
        if not callable(getattr(spec, "act", None)):
            raise TypeError(
                f"an opponent model is an agent's name, an agent or an object with "
                f"probabilities(views), got {spec!r}"
            )
        return spec
    if spec == "random":
        return RandomAgent()
    if spec == "heuristic":
        return HeuristicAgent()
    try:
        return load_prior(spec)
    except TypeError:
        raise ValueError(
            f"an opponent model is random, heuristic, a shipped policy's name or a policy file "
            f"ending in .npz (a search bot is too slow to weigh thousands of deals), got {spec!r}"
        ) from None


def opponent_model(spec, softness: float = DEFAULT_SOFTNESS, argmax: bool = False):
    """The model of ``spec``: a name :func:`model_agent` reads, an agent, or a model
    (anything with ``probabilities``), returned as it is. A network policy is its
    softmax, or with ``argmax`` the move it plays as an argmax agent (softened by
    ``softness``); any other deterministic agent a :class:`RuleModel`."""
    if callable(getattr(spec, "probabilities", None)) and not hasattr(spec, "act"):
        return spec
    agent = model_agent(spec)
    name = spec if isinstance(spec, str) else None
    if isinstance(agent, RandomAgent):
        return UniformModel()
    network = getattr(agent, "network", None)
    if network is not None and callable(getattr(agent, "action_probabilities", None)):
        return PolicyModel(agent, name, softness if argmax else None)
    return RuleModel(agent, softness, name)


def load_prior(prior):
    """The policy agent named by ``prior``: a shipped policy's name, a policy file, or an agent."""
    if isinstance(prior, str):
        from ..policy import load_policy  # numpy: only when a prior is asked for
        from ..policy.shipped import shipped_policies

        shipped = shipped_policies().get(prior)
        if shipped is None and not prior.endswith(".npz"):
            names = ", ".join(map(repr, shipped_policies())) or "none installed"
            raise TypeError(
                f"prior must be a policy: a policy file ending in .npz or a shipped policy's "
                f"name ({names}), got {prior!r}"
            )
        return load_policy(shipped.path if shipped else prior, name=prior)
    if not callable(getattr(prior, "action_probabilities", None)):
        raise TypeError(
            f"prior must be a policy (a policy file, a shipped policy's name or a policy "
            f"agent with action_probabilities), got {prior!r}"
        )
    if getattr(prior, "deterministic", True) is False:
        # The rollouts play the prior's argmax: a sampling agent gets its argmax twin.
        prior = type(prior)(prior.network, prior.metadata, deterministic=True, name=prior.name)
    return prior
