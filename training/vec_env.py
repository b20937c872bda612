"""The training games: many single-agent environments stepped as one VecEnv.

Each game is a :class:`sixtysix_env.env.single_agent.SixtySixEnv` (one hand
per episode, the learner's seat drawn per hand) whose opponent is drawn from
the :class:`~sixtysix_training.pool.OpponentPool` at every reset. The learner sees the
flat observation vector only (the ``observation`` entry of the environment's
``Dict`` observation), so the network an export turns into numpy is a plain
MLP; the masks are served to ``MaskablePPO`` through ``env_method
("action_masks")`` from a buffer filled at each step.

With ``suit_augment`` each episode is seen under one of the 24 renamings of
the suits, and with ``privileged_critic`` the observation vector carries the
hidden cards after the information set (``OBS_SIZE + PRIV_SIZE`` entries; the
actor reads the first ``OBS_SIZE``): see :mod:`sixtysix_training.learning`.

This is a lean ``DummyVecEnv``: the same loop, minus the deep copy of every
step's infos and the per-key copying of ``Dict`` observations, which took a
fifth of the rollout time here.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from sixtysix_env.actions import NUM_ACTIONS
from sixtysix_env.env.observation import OBS_SIZE
from sixtysix_env.env.single_agent import SixtySixEnv

from .learning import PRIV_SIZE, SuitRenamer, privileged_features
from .pool import OpponentPool


class SelfPlayVecEnv(VecEnv):
    """``n_envs`` games of Sixty-Six against opponents drawn from ``pool``."""

    def __init__(
        self,
        n_envs: int,
        pool: OpponentPool,
        rules: str = "altmisalti",
        suit_augment: bool = False,
        privileged_critic: bool = False,
        seed: int = 0,
    ) -> None:
        self.pool = pool
        # Strict: a masked learner never plays an illegal action, so one is a bug.
        self.envs = [
            SixtySixEnv(opponent="random", rules=rules, illegal_action="raise")
            for _ in range(n_envs)
        ]
        self.privileged = bool(privileged_critic)
        self.renamer = SuitRenamer(suit_augment, seed)
        size = OBS_SIZE + (PRIV_SIZE if self.privileged else 0)
        obs_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        super().__init__(n_envs, obs_space, spaces.Discrete(NUM_ACTIONS))
        self.buf_obs = np.zeros((n_envs, size), np.float32)
        self.buf_masks = np.zeros((n_envs, NUM_ACTIONS), bool)
        self.renaming = np.zeros(n_envs, np.int64)
        self.labels = [("", "")] * n_envs
        self.ep_return = np.zeros(n_envs, np.float64)
        self.ep_len = np.zeros(n_envs, np.int64)
        self._actions: np.ndarray | None = None
        self._t0 = time.time()

    @classmethod
    def from_config(cls, cfg, pool: OpponentPool) -> SelfPlayVecEnv:
        """The games a training config asks for (``TrainConfig``), learning options included."""
        return cls(cfg.n_envs, pool, cfg.rules, cfg.suit_augment, cfg.privileged_critic, cfg.seed)

    def _learner_obs(self, i: int, obs: dict) -> np.ndarray:
        """Game ``i``'s observation as the learner sees it (renamed; hidden cards appended)."""
        x = obs["observation"]
        if self.privileged:
            env = self.envs[i]
            x = np.concatenate([x, privileged_features(env.state, env.seat)])
        return self.renamer.obs(x, self.renaming[i])

    def _store(self, i: int, obs: dict) -> None:
        self.buf_obs[i] = self._learner_obs(i, obs)
        self.buf_masks[i] = self.renamer.mask(obs["action_mask"], self.renaming[i])

    def _reset_one(self, i: int, seed: int | None = None) -> None:
        label, group, agent = self.pool.sample()
        env = self.envs[i]
        env.opponent = agent
        self.renaming[i] = self.renamer.draw()
        obs, _ = env.reset(seed=seed)
        self.labels[i] = (label, group)
        self._store(i, obs)
        self.ep_return[i] = 0.0
        self.ep_len[i] = 0

    def reset(self) -> np.ndarray:
        for i in range(self.num_envs):
            self._reset_one(i, self._seeds[i])
        self._reset_seeds()
        self._reset_options()
        return self.buf_obs.copy()

    def seed(self, seed: int | None = None):
        """Seed the next deals (SB3's way) and, from the same seed, the suit renamings."""
        seeds = super().seed(seed)
        self.renamer.reseed(seeds[0])
        return seeds

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        actions = self._actions
        n = self.num_envs
        rewards = np.zeros(n, np.float32)
        dones = np.zeros(n, bool)
        infos: list[dict[str, Any]] = []
        for i, env in enumerate(self.envs):
            obs, r, term, trunc, _ = env.step(
                self.renamer.original_action(actions[i], self.renaming[i])
            )
            rewards[i] = r
            self.ep_return[i] += r
            self.ep_len[i] += 1
            if term or trunc:
                dones[i] = True
                label, group = self.labels[i]
                infos.append(
                    {
                        "terminal_observation": self._learner_obs(i, obs),
                        "episode": {
                            "r": float(self.ep_return[i]),
                            "l": int(self.ep_len[i]),
                            "t": round(time.time() - self._t0, 6),
                        },
                        "opponent": label,
                        "opponent_group": group,
                        "TimeLimit.truncated": bool(trunc and not term),
                    }
                )
                self._reset_one(i)
            else:
                self._store(i, obs)
                infos.append({})
        return self.buf_obs.copy(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        return self.buf_masks.copy()

    def close(self) -> None:
        for env in self.envs:
            env.close()

    # -- the VecEnv plumbing ------------------------------------------------------

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self.envs[i], attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        for i in self._get_indices(indices):
            setattr(self.envs[i], attr_name, value)

    def env_method(
        self, method_name: str, *method_args, indices=None, **method_kwargs
    ) -> list[Any]:
        idx = list(self._get_indices(indices))
        if method_name == "action_masks" and not method_args and not method_kwargs:
            return [self.buf_masks[i].copy() for i in idx]
        return [getattr(self.envs[i], method_name)(*method_args, **method_kwargs) for i in idx]

    def env_is_wrapped(self, wrapper_class, indices=None) -> Sequence[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self):
        return [None for _ in self.envs]
