"""Agents that move in many games with one call: ``act_batch(hands, lanes, seats, rngs)``.

* :class:`BatchedRandom`: uniform over the legal actions. With ``rngs`` (one
  ``random.Random`` per lane, as the evaluation gives) it draws exactly as
  :class:`~sixtysix_env.agents.base.RandomAgent` does; without, each lane's own
  compiled generator draws (the vector environment's way).
* :class:`BatchedPolicy`: a numpy policy file's network, one matrix product for
  every game, with :class:`~sixtysix_env.policy.agent.PolicyAgent`'s argmax and
  tie rule (or its sampling, with ``rngs``).
* :class:`BatchedHeuristic`: ``heuristic`` compiled, the same moves.
* :class:`PerGame`: any other agent, asked game by game from the reference
  engine's states that the caller keeps beside the lanes (:attr:`needs_states`).

:func:`batched` picks the right one for an agent object or name.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..batched.engine import BatchedHands
from ..game.actions import NUM_ACTIONS
from ..game.cards import bits_of
from ..game.view import player_view
from ..policy.agent import PolicyAgent
from ..policy.network import SYMMETRY_TIE
from ..policy.observation import OBS_SIZE
from .base import Agent, RandomAgent
from .heuristic import HeuristicAgent
from .registry import make_agent


class BatchedRandom:
    """Uniform over the legal actions, in every lane at once."""

    needs_states = False

    def __init__(self, agent: Agent | None = None) -> None:
        self.agent = agent or RandomAgent()
        self.name = getattr(self.agent, "name", "random")
        self.lane_rng: np.ndarray | None = None  # one xorshift state per lane

    def seed_lanes(self, n: int, rng: np.random.Generator) -> None:
        self.lane_rng = rng.integers(1, 2**63, n, dtype=np.int64).astype(np.uint64)

    def act_batch(self, hands: BatchedHands, lanes: np.ndarray, seats: np.ndarray,
                  rngs: Sequence[random.Random] | None = None, states=None) -> np.ndarray:
        if rngs is None:
            if self.lane_rng is None or len(self.lane_rng) < hands.n:
                raise ValueError("BatchedRandom: call seed_lanes(n, rng) first, or give rngs")
            return hands.random_actions(self.lane_rng, lanes)
        out = np.empty(len(lanes), np.int64)
        masks = hands.legal_masks(lanes)
        for j, (i, m) in enumerate(zip(lanes.tolist(), masks.tolist())):
            legal = bits_of(m)
            out[j] = legal[rngs[i].randrange(len(legal))]  # RandomAgent.act's draw
        return out


def _lowest_bit(masks: np.ndarray) -> np.ndarray:
    """The lowest set bit's index of each (non-zero) mask."""
    low = masks & -masks
    return np.log2(low.astype(np.float64)).astype(np.int64)


class BatchedPolicy:
    """A :class:`PolicyAgent` playing every lane with one forward pass.

    ``exact=True`` (the default) makes every move the agent's own, the one its logits for
    that observation alone give. A plain network's argmax is one matrix product for the
    batch, with each row whose two best legal moves are nearly tied computed again alone
    (:meth:`~sixtysix_env.policy.network.PolicyNetwork.argmax_alone`): the batch's float32
    sums run in another order than one observation's, which can turn a near tie (17 of
    1,000 paired deals of ``sixtysix-ppo-v4`` against ``sixtysix-ppo-v3`` came out otherwise
    with the product alone). A sampling agent (``deterministic=False``) and a network
    averaged over the suits compute each row alone, the product a single observation gets,
    which is the same in any batch, at any place, with any number of BLAS threads
    (``tests/policy/test_batch_invariance.py``). ``exact=False`` uses the one product
    throughout (training's pool, where the same games do not matter). A sampling agent
    draws from each game's own generator, ``rngs[lane]``.
    """

    needs_states = False

    def __init__(self, agent: PolicyAgent, exact: bool = True) -> None:
        if not isinstance(agent, PolicyAgent):
            raise TypeError(f"BatchedPolicy plays a PolicyAgent, got {agent!r}")
        self.agent = agent
        self.exact = bool(exact)
        self.name = agent.name
        self._obs = np.empty((0, OBS_SIZE), np.float32)
        self._masks = np.empty((0, NUM_ACTIONS), np.int8)

    def act(self, view, rng: random.Random) -> int:
        """The agent's own move for one view (so that this is an agent too)."""
        return self.agent.act(view, rng)

    def observe(self, hands: BatchedHands, lanes: np.ndarray, seats: np.ndarray):
        """The seats' observations (a buffer reused by the next call) and boolean masks."""
        k = len(lanes)
        if len(self._obs) < k:
            self._obs = np.empty((k, OBS_SIZE), np.float32)
            self._masks = np.empty((k, NUM_ACTIONS), np.int8)
        obs, masks = hands.observe(lanes, seats, self._obs[:k], self._masks[:k])
        return obs, masks.astype(bool)

    def logits_and_masks(self, hands: BatchedHands, lanes: np.ndarray, seats: np.ndarray):
        obs, legal = self.observe(hands, lanes, seats)
        return self.logits(obs, legal), legal

    def logits(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The network's logits for a batch of observations (float32 ``(k, OBS_SIZE)``, a
        buffer reused by the next call) and their legal moves."""
        net = self.agent.network
        read = legal if net.reads_mask else None
        if self.exact and net.symmetry is None:
            # Each row as a matrix of its own: the product a single observation gets.
            return net.layer_logits(net.features(obs, read)[:, None, :])[:, 0, :]
        # A symmetric network already multiplies each renaming of each row on its own.
        return net.logits(obs, read)

    def act_batch(self, hands: BatchedHands, lanes: np.ndarray, seats: np.ndarray,
                  rngs: Sequence[random.Random] | None = None, states=None) -> np.ndarray:
        masks = hands.legal_masks(lanes)
        forced = (masks & (masks - 1)) == 0
        if forced.all():  # PolicyAgent.act answers a forced move without the network
            return _lowest_bit(masks)
        if forced.any():
            think = ~forced
            out = _lowest_bit(masks)
            out[think] = self.act_batch(hands, lanes[think], seats[think], rngs, states)
            return out
        net = self.agent.network
        if self.exact and self.agent.deterministic and net.symmetry is None:
            obs, legal = self.observe(hands, lanes, seats)
            return net.argmax_alone(obs, legal)
        logits, legal = self.logits_and_masks(hands, lanes, seats)
        if self.agent.deterministic:
            z = np.where(legal, logits, -np.inf)
            if self.agent.network.symmetry is None:
                return np.argmax(z, axis=1)
            return np.argmax(z >= z.max(axis=1, keepdims=True) - SYMMETRY_TIE, axis=1)
        # Sampling, as PolicyAgent.act draws it (float64 softmax, one uniform per decision).
        if rngs is None:
            raise ValueError(f"{self.name}: a sampling policy draws from each game's own "
                             "generator; give rngs (one random.Random per lane)")
        out = np.empty(len(lanes), np.int64)
        z = np.where(legal, logits.astype(np.float64), -np.inf)
        z -= z.max(axis=1, keepdims=True)
        cum = np.cumsum(np.exp(z), axis=1)
        for j, i in enumerate(lanes.tolist()):
            u = rngs[i].random() * cum[j, -1]
            a = min(int(np.searchsorted(cum[j], u, side="right")), NUM_ACTIONS - 1)
            while not legal[j, a]:
                a -= 1
            out[j] = a
        return out


class BatchedHeuristic:
    """:class:`HeuristicAgent` compiled (:mod:`.heuristic`): the same moves, every lane at once."""

    needs_states = False

    def __init__(self, agent: HeuristicAgent | None = None) -> None:
        self.agent = agent or HeuristicAgent()
        self.name = self.agent.name
        self.per_trick = int(self.agent.likely_points_per_trick)

    def act_batch(self, hands: BatchedHands, lanes: np.ndarray, seats: np.ndarray,
                  rngs: Sequence[random.Random] | None = None, states=None) -> np.ndarray:
        return hands.heuristic_actions(lanes, seats, self.per_trick)


class PerGame:
    """Any agent, game by game, from the reference states the caller keeps (``states[lane]``)."""

    needs_states = True

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = getattr(agent, "name", type(agent).__name__)

    def act_batch(self, hands: BatchedHands, lanes: np.ndarray, seats: np.ndarray,
                  rngs: Sequence[random.Random] | None = None, states=None) -> np.ndarray:
        if states is None:
            raise ValueError(f"{self.name}: a per-game agent needs the games' states")
        out = np.empty(len(lanes), np.int64)
        for j, (i, s) in enumerate(zip(lanes.tolist(), seats.tolist())):
            out[j] = self.agent.act(player_view(states[i], s), rngs[i])
        return out


def batched(agent: Any) -> BatchedRandom | BatchedPolicy | PerGame:
    """The batched form of an agent (an object, or a name for ``make_agent``)."""
    if isinstance(agent, (BatchedRandom, BatchedPolicy, BatchedHeuristic, PerGame)):
        return agent
    if isinstance(agent, str):
        agent = make_agent(agent)
    if type(agent) is RandomAgent:
        return BatchedRandom(agent)
    if isinstance(agent, PolicyAgent):
        return BatchedPolicy(agent)
    if type(agent) is HeuristicAgent:
        return BatchedHeuristic(agent)
    return PerGame(agent)


def can_batch(agent: Any) -> bool:
    """Whether :func:`batched` plays ``agent`` without the per-game fallback."""
    return not batched(agent).needs_states


__all__ = ["BatchedHeuristic", "BatchedPolicy", "BatchedRandom", "PerGame", "batched", "can_batch"]
