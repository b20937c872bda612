"""The training games on the batched engine: ``n_envs`` hands in lock-step, one SB3 VecEnv.

A thin adapter over the vector environment's lock-step driver
(:class:`sixtysix_env.env.vector.LockStepGames`, which deals, steps the learner and
moves every game's opponent): what is the training's own here is the pool's draw
per game, the suit renamings, the critic's hidden cards, the match play's scores
and rewards, and SB3's ``VecEnv`` plumbing.

:class:`BatchedSelfPlayVecEnv` plays what :class:`~sixtysix_training.sb3.vec_env.SelfPlayVecEnv`
plays (one hand per episode, the learner's seat drawn per hand, the opponent
drawn from the :class:`~sixtysix_training.common.pool.OpponentPool` at every reset,
the suit renamings and the privileged critic's hidden cards of
:mod:`sixtysix_training.common.learning`) on :mod:`sixtysix_env.batched` instead of
``n_envs`` single environments. The opponents of all games move with one call
per opponent and step: the pool's networks as one matrix product over their
games (:class:`TorchBatchedPolicy`, torch's products in the ``pool_precision``
number format: training needs no bit-for-bit replay of the single-game agent),
``random`` and ``heuristic`` compiled, any other agent (a search bot) game by
game from reference states kept beside the lanes.

The deals come from the batched engine's generator, not from
``SixtySixEnv``'s: a run on these games learns the same game but does not
repeat a run on :class:`SelfPlayVecEnv` move for move. The option
``batched_games`` of the training config chooses it.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
import torch as th
from torch import nn

from sixtysix_env.agents.batch import BatchedPolicy, BatchedRandom, batched
from sixtysix_env.env.vector import LockStepGames
from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.game.rules import make_rules
from sixtysix_env.policy.agent import PolicyAgent
from sixtysix_env.policy.observation import OBS_SIZE

from ..common.match_equity import MatchEquity
from ..common.pool import OpponentPool
from .learner_games import LearnerGames
from .policy import resolve_precision


class TorchBatchedPolicy(BatchedPolicy):
    """A plain network of the pool (no symmetry, not reading the mask) moving in all its games
    with torch's products in ``dtype``, on the training process's threads, between the
    learner's own passes. The same moves as ``BatchedPolicy(agent, exact=False)`` but for
    near ties in float32 (another order of sums); in bfloat16, logits within about 1% of
    those. Pool networks play a few games each per step, so a product reads the whole
    network for a few rows: torch on two threads took 221 us for 14 rows of [768, 768] in
    float32, 113 us in bfloat16, numpy on one BLAS thread 342 us (AMD EPYC, 2 cores)."""

    def __init__(self, agent: PolicyAgent, dtype: th.dtype) -> None:
        super().__init__(agent, exact=False)
        net = agent.network
        if net.symmetry is not None or net.reads_mask:
            raise ValueError(f"{agent.name}: a network with a symmetry or a mask input plays "
                             "through BatchedPolicy")
        self.dtype = dtype
        self._layers = [(th.tensor(w.T, dtype=dtype), th.tensor(b, dtype=dtype))
                        for w, b in zip(net.weights, net.biases)]
        self._hidden = th.relu if net.activation == "relu" else th.tanh

    def logits(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        x = th.from_numpy(obs).to(self.dtype)
        with th.no_grad():
            for w, b in self._layers[:-1]:
                x = self._hidden(nn.functional.linear(x, w, b))
            x = nn.functional.linear(x, *self._layers[-1])
        return x.float().numpy()


def pool_network_form(agent: PolicyAgent, dtype: th.dtype) -> BatchedPolicy:
    """How a pool network plays the batched games: :class:`TorchBatchedPolicy` where it is
    plain, else ``BatchedPolicy(exact=False)`` (numpy, float32)."""
    if agent.network.symmetry is None and not agent.network.reads_mask:
        return TorchBatchedPolicy(agent, dtype)
    return BatchedPolicy(agent, exact=False)


#: Batched forms of opponents kept before those no game plays are dropped.
MAX_WRAPPERS = 64


class BatchedSelfPlayVecEnv(LearnerGames):
    """``n_envs`` games of Sixty-Six against opponents drawn from ``pool``, in lock-step."""

    def __init__(
        self,
        n_envs: int,
        pool: OpponentPool,
        rules: str = "altmisalti",
        suit_augment: bool = False,
        privileged_critic: bool = False,
        seed: int = 0,
        match_play: bool = False,
        match_scores: str = "reach",
        pool_precision: str = "float32",
        win_bonus: float = 0.0,
    ) -> None:
        self.pool = pool
        #: The number format of the pool's networks' products (option pool_precision).
        self.pool_dtype: th.dtype = getattr(th, resolve_precision(pool_precision))
        self.rules = make_rules(rules)
        #: With match play: the match equity that deals the scores and rewards the hands.
        self.match = MatchEquity(self.rules.match_target) if match_play else None
        #: With match play, whether only close scores are dealt (option match_scores).
        self.close_scores = match_scores == "close"
        #: Added to a won hand's reward, taken off a lost one's (option win_bonus).
        self.win_bonus = float(win_bonus)
        #: The lock-step driver: the lanes, each game's seat and opponent, reference states.
        self.games = LockStepGames(n_envs, self.rules)
        self.hands = self.games.hands
        self.seat = self.games.seat
        self.render_mode = None  # SB3's VecEnv asks; nothing is drawn
        super().__init__(n_envs, suit_augment, privileged_critic, seed)
        n = n_envs
        self.lanes = np.arange(n, dtype=np.int64)
        #: Each lane's match score, the learner's game points and the opponent's.
        self.mine = np.zeros(n, np.int64)
        self.theirs = np.zeros(n, np.int64)
        # Each game's opponent is an index into the driver's opponents (one batched form per
        # agent, found by the agent's id).
        self._index: dict[int, int] = {}
        self._seed_generators(seed)
        self._obs = np.zeros((n, OBS_SIZE), np.float32)
        self._mask = np.zeros((n, NUM_ACTIONS), np.int8)

    @classmethod
    def from_config(cls, cfg, pool: OpponentPool) -> BatchedSelfPlayVecEnv:
        s, o = cfg.shared, cfg.sb3
        return cls(o.n_envs, pool, s.rules, s.suit_augment, s.privileged_critic, s.seed,
                   match_play=o.match_play, match_scores=o.match_scores,
                   pool_precision=o.pool_precision, win_bonus=o.win_bonus)

    # -- the driver's parts, by the names the training has known them ---------------------

    @property
    def opponent(self) -> np.ndarray:
        """Each game's opponent, an index into :attr:`_wrappers`."""
        return self.games.opponent

    @property
    def _wrappers(self) -> list[Any]:
        return self.games.opponents

    @property
    def states(self) -> list | None:
        """Reference engine states beside the lanes dealt once a game-by-game opponent (a
        search bot) was first drawn; None before, and in the games dealt before."""
        return self.games.states

    @property
    def tracking(self) -> bool:
        """Whether reference states are kept (set it to keep them from the next deals on)."""
        return self.games.states is not None

    @tracking.setter
    def tracking(self, on: bool) -> None:
        if on and self.games.states is None:
            self.games.states = [None] * self.num_envs
        elif not on:
            self.games.states = None

    def _seed_generators(self, seed: int) -> None:
        self.np_rng = np.random.default_rng([int(seed) % 2**63, 0xBA7C])
        self.games.rngs = [random.Random(f"sixtysix-batched-games:{seed}:{i}")
                           for i in range(self.num_envs)]
        for w in self._wrappers:
            if isinstance(w, BatchedRandom):
                w.seed_lanes(self.num_envs, self.np_rng)

    # -- opponents -------------------------------------------------------------------

    def _wrapper_index(self, agent) -> int:
        k = self._index.get(id(agent))
        if k is None or self._wrappers[k].agent is not agent:
            if len(self._wrappers) >= MAX_WRAPPERS:
                self._forget_unused()
            if isinstance(agent, PolicyAgent):
                w = pool_network_form(agent, self.pool_dtype)
            else:
                w = batched(agent)
            if isinstance(w, BatchedRandom):
                w.seed_lanes(self.num_envs, self.np_rng)
            k = self.games.add_opponent(w)  # one that needs states starts them
            self._index[id(agent)] = k
        return k

    def _forget_unused(self) -> None:
        """Drop the batched forms of opponents no game plays now (snapshots the pool let go)."""
        used = sorted(set(self.opponent.tolist()))
        remap = np.zeros(len(self._wrappers), np.int64)
        remap[used] = np.arange(len(used))
        self.games.opponents = [self._wrappers[k] for k in used]
        self._index = {id(w.agent): j for j, w in enumerate(self._wrappers)}
        self.opponent[:] = remap[self.opponent]

    # -- episodes ----------------------------------------------------------------------

    def _new_episodes(self, lanes: np.ndarray) -> None:
        for i in lanes.tolist():
            label, group, agent = self.pool.sample()
            self.opponent[i] = self._wrapper_index(agent)
            self.labels[i] = (label, group)
            self.renaming[i] = self.renamer.draw()
        k = len(lanes)
        self.seat[lanes] = self.np_rng.integers(0, 2, k)
        decks = self.hands.random_decks(self.np_rng, k)
        dealers = self.np_rng.integers(0, 2, k)
        scores = np.zeros((k, 2), np.int64)
        if self.match is not None:
            drawn = self.match.draw_scores(self.np_rng, k, close=self.close_scores)
            self.mine[lanes], self.theirs[lanes] = drawn[:, 0], drawn[:, 1]
            rows = np.arange(k)
            scores[rows, self.seat[lanes]] = drawn[:, 0]
            scores[rows, 1 - self.seat[lanes]] = drawn[:, 1]
        self.games.deal(lanes, decks, dealers, scores)
        self.ep_return[lanes] = 0.0
        self.ep_len[lanes] = 0
        self.games.play_opponents(lanes)

    def _learner_obs(self, lanes: np.ndarray) -> np.ndarray:
        """The learner's observations of ``lanes`` (renamed; hidden cards appended)."""
        k = len(lanes)
        obs, masks = self.hands.observe(lanes, self.seat[lanes], self._obs[:k], self._mask[:k])
        x = obs
        if self.privileged:
            # learning.privileged_features of each lane, from its learner's side
            x = np.concatenate([obs, self.hands.hidden_cards(lanes, self.seat[lanes])], axis=1)
        maps = self.renamer.full_maps if self.privileged else self.renamer.obs_maps
        x = np.take_along_axis(x, maps[self.renaming[lanes]], axis=1)
        return x, masks

    def _store(self, lanes: np.ndarray) -> None:
        x, masks = self._learner_obs(lanes)
        self.buf_obs[lanes] = x
        self.buf_masks[lanes] = np.take_along_axis(
            masks, self.renamer.inverse[self.renaming[lanes]], axis=1).astype(bool)

    def reset(self) -> np.ndarray:
        if self._seeds[0] is not None:
            self._seed_generators(self._seeds[0])
        self._reset_seeds()
        self._reset_options()
        self._new_episodes(self.lanes)
        self._store(self.lanes)
        return self.buf_obs.copy()

    def step_wait(self):
        n = self.num_envs
        b = np.asarray(self._actions, dtype=np.int64).reshape(n)
        actions = self.renamer.inverse[self.renaming, b]  # the engine's actions
        # Strict: a masked learner never plays an illegal action, so one is a bug.
        self.games.apply(self.lanes, actions, who="the learner")
        self.ep_len += 1
        self.games.play_opponents(self.lanes)
        dones = self.hands.over()
        rewards = np.zeros(n, np.float32)
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        done = self.lanes[dones]
        if len(done):
            r = self.hands.returns(done, self.seat[done]).astype(np.float64)
            if self.match is not None:
                r = self.match.rewards(self.mine[done], self.theirs[done], r)
            elif self.win_bonus:
                r = r + self.win_bonus * np.sign(r)
            rewards[done] = r
            self.ep_return[done] += r
            final, _ = self._learner_obs(done)
            t = round(time.time() - self._t0, 6)
            for j, i in enumerate(done.tolist()):
                label, group = self.labels[i]
                infos[i] = {
                    "terminal_observation": final[j].copy(),
                    "episode": {"r": float(self.ep_return[i]), "l": int(self.ep_len[i]), "t": t},
                    "opponent": label,
                    "opponent_group": group,
                    "TimeLimit.truncated": False,
                }
            self._new_episodes(done)
        self._store(self.lanes)
        return self.buf_obs.copy(), rewards, dones, infos

    def close(self) -> None:
        pass

    # -- the VecEnv plumbing ---------------------------------------------------------

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise AttributeError(f"the batched training games have no per-game attribute to set "
                             f"({attr_name!r})")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        idx = list(self._get_indices(indices))
        if method_name == "action_masks" and not method_args and not method_kwargs:
            return [self.buf_masks[i].copy() for i in idx]
        raise AttributeError(f"the batched training games have no per-game method "
                             f"{method_name!r}")
