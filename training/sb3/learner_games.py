"""What the two kinds of training games share (SB3's ``VecEnv`` side).

:class:`~sixtysix_training.sb3.vec_env.SelfPlayVecEnv` (single environments) and
:class:`~sixtysix_training.sb3.batched_vec_env.BatchedSelfPlayVecEnv` (the batched
engine) both derive from :class:`LearnerGames`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from ..common.learning import SuitRenamer


class LearnerGames(VecEnv):
    """What the training games of both kinds share (:class:`~sixtysix_training.sb3.vec_env.SelfPlayVecEnv`,
    and :class:`~sixtysix_training.sb3.batched_vec_env.BatchedSelfPlayVecEnv`): SB3's seeding, which
    also seeds the suit renamings (``self.renamer``), the actions kept for ``step_wait``, and
    the learner's masks from ``self.buf_masks``."""

    renamer: SuitRenamer
    buf_masks: np.ndarray

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
