"""Adapters for libraries that need another observation shape.

:class:`FlatObservation` turns the AEC environment's ``Dict`` observation into
one ``Box``: SuperSuit's observation wrappers (``flatten_v0``, ``dtype_v0``,
``normalize_obs_v0``, ``frame_stack_v1``, ...) accept only ``Box`` spaces.
``sixtysix_v0.env(observation_format="flat")`` applies it.

:class:`MaskInInfo` gives the single-agent environment's mask in ``info``
and the features as a ``Box`` observation, for libraries that read masks
from infos (AgileRL).
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from ..game.actions import NUM_ACTIONS
from ..policy.observation import OBS_SIZE

#: Length of the flat observation: the 349 features, then the 34-entry mask.
FLAT_SIZE = OBS_SIZE + NUM_ACTIONS


class FlatObservation(BaseWrapper):
    """The observation as one float32 vector: ``observation`` then ``action_mask``.

    ``Box(0, 1, (383,), float32)``: entries 0-348 are the features of
    :mod:`sixtysix_env.env.sixtysix_v0`, entries 349-382 the action mask
    (1.0 = legal). The mask stays the last 34 entries through SuperSuit's
    ``flatten_v0``, ``dtype_v0``, ``normalize_obs_v0`` (the bounds are
    already 0 and 1) and ``frame_stack_v1`` (the newest frame is last), so a
    policy reads it as ``obs[-34:]``; :meth:`action_mask` also gives it.

    Wrap the standard ``env()`` (its ``TerminateIllegalWrapper`` reads the
    ``Dict`` observation, so this wrapper goes outside it).
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        box = spaces.Box(0.0, 1.0, (FLAT_SIZE,), np.float32)
        self.observation_spaces = {a: box for a in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Box:
        return self.observation_spaces[agent]

    def observe(self, agent: str) -> np.ndarray:
        obs = self.env.observe(agent)
        flat = np.empty(FLAT_SIZE, np.float32)
        flat[:OBS_SIZE] = obs["observation"]
        flat[OBS_SIZE:] = obs["action_mask"]
        return flat

    def action_mask(self, agent: str) -> np.ndarray:
        """The agent's legal actions now, as int8 (1 = legal)."""
        return self.env.observe(agent)["action_mask"]

    def __str__(self) -> str:
        return f"FlatObservation<{self.env}>"


class MaskInInfo(gymnasium.Wrapper):
    """The single-agent environment with the mask in ``info`` (AgileRL's convention).

    The observation is the ``Box`` of 349 features (the ``Dict``'s
    ``observation``); ``info["action_mask"]`` (int8, 1 = legal) holds the
    mask, on ``reset`` and every ``step``, next to the plain infos. AgileRL's
    single-agent training loops (``train_off_policy`` for DQN) read the mask
    there. At the end of an episode the mask is all zeros: Gymnasium's vector
    environments then reset on the next step and ignore its action.
    """

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self.observation_space = spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        info["action_mask"] = obs["action_mask"]
        return obs["observation"], info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        info["action_mask"] = obs["action_mask"]
        return obs["observation"], reward, terminated, truncated, info
