"""What the two kinds of training games share (SB3's ``VecEnv`` side).

:class:`~sixtysix_training.sb3.vec_env.SelfPlayVecEnv` (single environments) and
:class:`~sixtysix_training.sb3.batched_vec_env.BatchedSelfPlayVecEnv` (the batched
engine) both derive from :class:`LearnerGames`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.policy.observation import OBS_SIZE

from ..common.learning import PRIV_SIZE, SuitRenamer


class LearnerGames(VecEnv):
    """What the training games of both kinds share (:class:`~sixtysix_training.sb3.vec_env.SelfPlayVecEnv`,
    and :class:`~sixtysix_training.sb3.batched_vec_env.BatchedSelfPlayVecEnv`): the spaces and
    buffers (:meth:`__init__`), SB3's seeding, which also seeds the suit renamings
    (``self.renamer``), the actions kept for ``step_wait``, and the learner's masks from
    ``self.buf_masks``."""

    renamer: SuitRenamer
    buf_masks: np.ndarray

    def __init__(self, n_envs: int, suit_augment: bool, privileged_critic: bool,
                 seed: int) -> None:
        """The learner's spaces (the observation with the critic's hidden cards after it
        under ``privileged_critic``), the buffers SB3 reads, each game's suit renaming, labels
        and episode figures, and the suit renamer. What SB3's ``VecEnv.__init__`` reads
        (``render_mode``, through ``get_attr``) is set before."""
        self.privileged = bool(privileged_critic)
        self.renamer = SuitRenamer(suit_augment, seed)
        size = OBS_SIZE + (PRIV_SIZE if self.privileged else 0)
        super().__init__(n_envs, spaces.Box(0.0, 1.0, (size,), np.float32),
                         spaces.Discrete(NUM_ACTIONS))
        self.buf_obs = np.zeros((n_envs, size), np.float32)
        self.buf_masks = np.zeros((n_envs, NUM_ACTIONS), bool)
        self.renaming = np.zeros(n_envs, np.int64)
        self.labels = [("", "")] * n_envs
        self.ep_return = np.zeros(n_envs, np.float64)
        self.ep_len = np.zeros(n_envs, np.int64)
        self._actions: np.ndarray | None = None
        self._t0 = time.time()

    def seed(self, seed: int | None = None):
        """Seed the next deals (SB3's way) and, from the same seed, the suit renamings."""
        seeds = super().seed(seed)
        self.renamer.reseed(seeds[0])
        return seeds

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def action_masks(self) -> np.ndarray:
        return self.buf_masks.copy()

    def env_is_wrapped(self, wrapper_class, indices=None) -> Sequence[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self):
        return [None for _ in range(self.num_envs)]
