"""Stable-Baselines3 on the vector environment: :class:`SB3VecEnv`, an SB3 ``VecEnv``.

SB3 takes its own ``VecEnv``, not a Gymnasium ``VectorEnv``; its ``make_vec_env``
steps N single environments one after the other. :class:`SB3VecEnv` hands SB3 the
N games of the vector entry point (:mod:`sixtysix_env.env.vector`, the batched
engine) as one ``VecEnv``:

    import gymnasium
    from sixtysix_env.env.sb3 import SB3VecEnv

    envs = gymnasium.make_vec("SixtySix-v0", num_envs=64, vectorization_mode="vector_entry_point",
                              autoreset_mode="SameStep")
    vec_env = SB3VecEnv(envs)            # MaskablePPO, PPO, A2C, DQN: "MultiInputPolicy"

What SB3 sees is what it sees through ``make_vec_env("SixtySix-v0")``:

* the observation: the ``Dict`` of ``observation`` and ``action_mask`` (for
  ``MultiInputPolicy``), or with ``observation_format="features"`` the ``Box``
  of the 349 features alone (for ``MlpPolicy``, as ``MaskInInfo``); a model
  trained on either is read by ``sixtysix eval``, ``export`` and ``benchmark``;
* a finished game dealt anew in the same step: its last observation in
  ``infos[i]["terminal_observation"]``, its last step's info in ``infos[i]``
  (the new deal's in ``reset_infos[i]``), ``infos[i]["TimeLimit.truncated"]`` in
  every info. This is Gymnasium's ``autoreset_mode="SameStep"``, which the
  vector environment must be made with (the default, ``"NextStep"``, would
  hand SB3 the finished game's observation as the next one to act on);
* :meth:`SB3VecEnv.action_masks`, and ``env_method("action_masks")`` (what
  sb3-contrib's ``MaskablePPO`` calls), each game's legal actions.

The N games are one environment: ``get_attr``, ``set_attr`` and ``env_method``
act on it once and give its answer for every index asked (``action_masks``
excepted: each game's own row); ``seed(s)`` makes the next ``reset`` deal as
``envs.reset(seed=s)`` does; ``set_options`` takes the vector environment's
one ``options`` dict. Any Gymnasium ``VectorEnv`` with the same-step
autoreset and a ``Dict`` observation holding ``"action_mask"`` will do (a
``sync`` one too), but only the vector entry point steps its games together.

Importing this module imports SB3 (``stable_baselines3``, the ``[train]``
extra); nothing else in :mod:`sixtysix_env` imports it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from ..batched import MissingExtraError

try:
    from stable_baselines3.common.vec_env import VecEnv
except ModuleNotFoundError as e:
    raise MissingExtraError(
        f"sixtysix_env.env.sb3 needs Stable-Baselines3, which is not installed ({e}): "
        'pip install "sixtysix[train]" (in a clone: pip install -e ".[train]")') from None

__all__ = ["OBSERVATION_FORMATS", "SB3VecEnv"]

#: What SB3's policies see: the ``Dict`` (``MultiInputPolicy``) or the features' ``Box``
#: (``MlpPolicy``).
OBSERVATION_FORMATS = ("dict", "features")

_MASK = "action_mask"
_FEATURES = "observation"
#: Keys of a same-step vector info that belong to no one game's info.
_FINAL_KEYS = ("final_obs", "final_info")


def _rows(info: dict[str, Any], n: int, lanes: np.ndarray | None = None) -> list[dict[str, Any]]:
    """The per-game infos of the games ``lanes`` (all ``n`` where None) from a vector info (a
    dict of arrays, each with Gymnasium's ``_key`` mask of the games that have it): numbers
    as Python numbers, arrays as each game's row."""
    keys: list[str] = []
    columns: list[Any] = []
    partial: list[tuple[str, Any, list[bool]]] = []
    for key, value in info.items():
        if key[0] == "_" or key in _FINAL_KEYS:
            continue
        if isinstance(value, dict):
            items: Any = _rows(value, n, lanes)
        else:
            value = np.asarray(value)
            if lanes is not None:
                value = value[lanes]
            items = value.tolist() if value.ndim == 1 and value.dtype != object else list(value)
        has = info.get("_" + key)
        flags = None if has is None else np.asarray(has)[
            slice(None) if lanes is None else lanes].tolist()
        if flags is None or all(flags):
            keys.append(key)
            columns.append(items)
        else:
            partial.append((key, items, flags))
    rows = [dict(zip(keys, values)) for values in zip(*columns)] if columns else [
        {} for _ in range(n if lanes is None else len(lanes))]
    for key, items, flags in partial:
        for row, item, here in zip(rows, items, flags):
            if here:
                row[key] = item
    return rows


def _check_vector_env(env: Any) -> spaces.Dict:
    """The single game's ``Dict`` observation space of ``env``, once ``env`` is checked."""
    if not isinstance(env, VectorEnv):
        raise TypeError(
            f"SB3VecEnv wraps a Gymnasium VectorEnv, got {type(env).__name__}: make it with "
            "gymnasium.make_vec('SixtySix-v0', num_envs=N, vectorization_mode="
            "'vector_entry_point', autoreset_mode='SameStep')")
    mode = env.metadata.get("autoreset_mode")
    if mode is not AutoresetMode.SAME_STEP:
        shown = getattr(mode, "value", mode)
        raise ValueError(
            f"SB3VecEnv needs a vector environment that deals a finished game anew in the same "
            f"step, as SB3 expects (autoreset_mode='SameStep'); this one has autoreset_mode="
            f"{shown!r}: pass autoreset_mode='SameStep' to gymnasium.make_vec")
    space = env.single_observation_space
    if not isinstance(space, spaces.Dict) or not {_FEATURES, _MASK} <= set(space.spaces):
        raise ValueError(
            f"SB3VecEnv needs an observation Dict with the keys {_FEATURES!r} and {_MASK!r}, "
            f"got {space}")
    if not isinstance(env.single_action_space, spaces.Discrete):
        raise TypeError(f"SB3VecEnv needs a Discrete action space, got {env.single_action_space}")
    if getattr(env, "copy", True) is False:
        raise ValueError(
            "SB3VecEnv needs fresh observation arrays at every step (SB3 keeps the last "
            "ones while it steps); make the vector environment with copy=True, the default")
    return space


class SB3VecEnv(VecEnv):
    """The games of a Gymnasium vector environment as one SB3 ``VecEnv`` (module docstring).

    ``env``: a ``VectorEnv`` made with ``autoreset_mode="SameStep"``, for instance
    ``gymnasium.make_vec("SixtySix-v0", num_envs=N, vectorization_mode="vector_entry_point",
    autoreset_mode="SameStep")``. ``observation_format``: ``"dict"`` (the default, for
    ``MultiInputPolicy``) or ``"features"`` (the 349 features' ``Box``, for ``MlpPolicy``).
    """

    def __init__(self, env: VectorEnv, observation_format: str = "dict") -> None:
        space = _check_vector_env(env)
        if observation_format not in OBSERVATION_FORMATS:
            raise ValueError(f"unknown observation_format {observation_format!r}; allowed: "
                             + ", ".join(map(repr, OBSERVATION_FORMATS)))
        #: The vector environment whose games these are.
        self.env = env
        self.observation_format = observation_format
        self._features = observation_format == "features"
        self._actions: np.ndarray | None = None
        self._mask: np.ndarray | None = None
        self._seed: int | None = None
        self._next_options: dict | None = None
        observation_space = space[_FEATURES] if self._features else space
        super().__init__(env.num_envs, observation_space, env.single_action_space)

    def _view(self, obs: dict[str, np.ndarray]) -> Any:
        """What SB3 sees of a (vector or one game's) observation."""
        return obs[_FEATURES] if self._features else obs

    # -- the VecEnv interface -----------------------------------------------------------------

    def reset(self):
        obs, info = self.env.reset(seed=self._seed, options=self._next_options)
        self._seed = None
        self._next_options = None
        self._reset_seeds()
        self._reset_options()
        self._mask = obs[_MASK]
        self.reset_infos = _rows(info, self.num_envs)
        return self._view(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("SB3VecEnv.step_wait() without step_async(actions) before it")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, info = self.env.step(actions)
        self._mask = obs[_MASK]
        terminated = np.asarray(terminated, dtype=bool)
        truncated = np.asarray(truncated, dtype=bool)
        dones = terminated | truncated
        infos = _rows(info, self.num_envs)
        if dones.any():
            self._finished(np.flatnonzero(dones), info, infos)
        for row, cut in zip(infos, (truncated & ~terminated).tolist()):
            row["TimeLimit.truncated"] = cut
        return self._view(obs), np.asarray(rewards, dtype=np.float32), dones, infos

    def _finished(self, done: np.ndarray, info: dict, infos: list[dict]) -> None:
        """The finished games' infos: their last step's, with the last observation; the new
        deal's kept as the reset info."""
        final_obs = info["final_obs"]
        finals = _rows(info.get("final_info", {}), self.num_envs, done)
        for i, row in zip(done.tolist(), finals):
            row["terminal_observation"] = self._view(final_obs[i])
            self.reset_infos[i] = infos[i]
            infos[i] = row

    def close(self) -> None:
        self.env.close()

    def seed(self, seed: int | None = None) -> list[int | None]:
        """The next ``reset`` deals as ``envs.reset(seed=seed)``: every game's deals and
        opponent draws come from that one seed (returned for each game)."""
        if seed is None:
            seed = int(np.random.randint(0, np.iinfo(np.uint32).max, dtype=np.uint32))
        self._seed = int(seed)
        self._seeds = [self._seed] * self.num_envs
        return list(self._seeds)

    def set_options(self, options: dict | None = None) -> None:
        """The ``options`` of the next ``reset``: the vector environment's one dict for all
        its games (in ``SixtySix-v0``'s, arrays of one entry per game)."""
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"SB3VecEnv.set_options takes the vector environment's one options "
                             f"dict (or None), got {type(options).__name__}")
        self._next_options = options or None

    def action_masks(self) -> np.ndarray:
        """Each game's legal actions now, ``(num_envs, n_actions)`` booleans (sb3-contrib)."""
        if self._mask is None:
            raise RuntimeError("SB3VecEnv.action_masks() before reset(): no game is dealt yet")
        return self._mask.astype(bool)

    def _indices(self, indices) -> list[int]:
        chosen = list(self._get_indices(indices))
        for i in chosen:
            if not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
                raise IndexError(f"game index {i!r} out of range; allowed: 0 to "
                                 f"{self.num_envs - 1}")
        return [int(i) for i in chosen]

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        """The vector environment's attribute, once for each index asked."""
        chosen = self._indices(indices)
        if attr_name == "action_masks":
            return [self.action_masks] * len(chosen)
        value = getattr(self.env, attr_name)
        return [value] * len(chosen)

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        """Sets the vector environment's attribute (one for all its games, whatever
        ``indices`` asks)."""
        self._indices(indices)
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None,
                   **method_kwargs) -> list[Any]:
        """``action_masks``: each asked game's row of :meth:`action_masks`; any other method:
        the vector environment's, called once, its answer given for each index asked."""
        chosen = self._indices(indices)
        if method_name == "action_masks":
            return list(self.action_masks()[chosen])
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(chosen)

    def env_is_wrapped(self, wrapper_class: type, indices=None) -> list[bool]:
        """False for every game of the vector entry point (its games are no Gymnasium
        environments); for a ``sync`` vector environment, each game's own answer."""
        chosen = self._indices(indices)
        games = getattr(self.env, "envs", None)
        if games is None:
            return [False] * len(chosen)
        from stable_baselines3.common.env_util import is_wrapped

        return [is_wrapped(games[i], wrapper_class) for i in chosen]
