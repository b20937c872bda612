"""Adapter for Ray RLlib: the observation keys its action-masking RLModule expects.

RLlib's new API stack masks actions with
``ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule``,
which wants each observation to be a dict with the keys ``"observations"``
(the network's input) and ``"action_mask"`` (floats, 1 = legal: the module
adds ``log(mask)`` to the logits). The PettingZoo environment names its
input ``"observation"`` and gives an int8 mask, so:

    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.tune.registry import register_env
    from sixtysix_env import sixtysix_v0
    from sixtysix_env.env.rllib import RLlibObservationWrapper, rllib_env

    register_env("sixtysix", lambda cfg: rllib_env(**cfg))   # the same as:
    register_env("sixtysix", lambda cfg: PettingZooEnv(RLlibObservationWrapper(sixtysix_v0.env(**cfg))))

and PPO with ``RLModuleSpec(module_class=ActionMaskingTorchRLModule)``
trains on it (``docs/rllib.md``; ``sixtysix train --backend rllib`` does
the rest: self-play, opponent league, evaluation, export).

The wrapper changes nothing else: same agents, actions, rewards, turn order
and seeding. Only :func:`rllib_env` imports ray, so this module is
importable with the core package alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

__all__ = ["MASK_KEY", "OBS_KEY", "RLlibObservationWrapper", "rllib_env"]

#: The keys RLlib's ActionMaskingRLModule reads.
OBS_KEY = "observations"
MASK_KEY = "action_mask"


class RLlibObservationWrapper(BaseWrapper):
    """An AEC env whose observations are ``{"observations": float32[n], "action_mask": float32[34]}``.

    Wraps :func:`sixtysix_env.env.sixtysix_v0.env` or ``raw_env`` (or any AEC env
    with the ``"observation"`` / ``"action_mask"`` dict observation).
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._spaces: dict[str, spaces.Dict] = {}
        for agent in env.possible_agents:
            space = env.observation_space(agent)
            if not (
                isinstance(space, spaces.Dict)
                and set(space.spaces) == {"observation", "action_mask"}
            ):
                raise ValueError(
                    "RLlibObservationWrapper needs an environment whose observation is a dict "
                    f"with the keys 'observation' and 'action_mask'; agent {agent!r} has {space}"
                )
            n = space["action_mask"].shape[0]
            self._spaces[agent] = spaces.Dict(
                {
                    OBS_KEY: space["observation"],
                    MASK_KEY: spaces.Box(0.0, 1.0, (n,), np.float32),
                }
            )

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        obs = super().observe(agent)
        if obs is None:
            return None
        return {OBS_KEY: obs["observation"], MASK_KEY: obs["action_mask"].astype(np.float32)}

    def __str__(self) -> str:
        return f"RLlibObservationWrapper<{self.env}>"


def rllib_env(**kwargs: Any):
    """``PettingZooEnv(RLlibObservationWrapper(sixtysix_v0.env(**kwargs)))``: an RLlib ``MultiAgentEnv``.

    Takes the options of :func:`sixtysix_env.env.sixtysix_v0.env` (``rules``,
    ``mode``, ...). Needs ``ray[rllib]`` (the ``[rllib]`` extra).
    """
    try:
        from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ImportError(
            f"rllib_env needs Ray RLlib ({e}); install the extra: pip install 'sixtysix[rllib]'"
        ) from None
    from .sixtysix_v0 import env

    return PettingZooEnv(RLlibObservationWrapper(env(**kwargs)))
