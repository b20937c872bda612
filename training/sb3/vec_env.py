"""The training games: many single-agent environments stepped as one VecEnv.

Each game is a :class:`sixtysix_env.env.single_agent.SixtySixEnv` (one hand
per episode, the learner's seat drawn per hand) whose opponent is drawn from
the :class:`~sixtysix_training.common.pool.OpponentPool` at every reset. The learner sees the
flat observation vector only (the ``observation`` entry of the environment's
``Dict`` observation), so the network an export turns into numpy is a plain
MLP; the masks are served to ``MaskablePPO`` through ``env_method
("action_masks")`` from a buffer filled at each step.

With ``suit_augment`` each episode is seen under one of the 24 renamings of
the suits, and with ``privileged_critic`` the observation vector carries the
hidden cards after the information set (``OBS_SIZE + PRIV_SIZE`` entries; the
actor reads the first ``OBS_SIZE``): see :mod:`sixtysix_training.common.learning`.

This is a lean ``DummyVecEnv``: the same loop, minus the deep copy of every
step's infos and the per-key copying of ``Dict`` observations, which took a
fifth of the rollout time here.

With ``rollout_workers`` above 1, :class:`WorkerSelfPlayVecEnv` splits the games
into that many shares of ``n_envs / rollout_workers``, each a
:class:`SelfPlayVecEnv` with its own copy of the pool, stepped in a worker
process of its own by Gymnasium's :class:`~gymnasium.vector.AsyncVectorEnv`
(each share one of its environments), so the games' moves, the opponents'
above all (a search bot takes milliseconds a move), run on several cores at
once. The training process's pool stays the
one the run's lifecycle changes (snapshots, ``final_baseline_weights``) and
saves; before each step the shares are handed what changed. Each share draws
its opponents with a generator seeded from the pool's own at each reset, so a
run repeats with the same seed and number of shares.
"""

from __future__ import annotations

import multiprocessing as mp
import random
import signal
import time
import traceback
from collections.abc import Sequence
from functools import partial
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AsyncVectorEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from sixtysix_env.env.single_agent import SixtySixEnv
from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.policy.observation import OBS_SIZE

from ..common.learning import PRIV_SIZE, privileged_features
from ..common.pool import OpponentPool, Snapshot
from .learner_games import LearnerGames


class SelfPlayVecEnv(LearnerGames):
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
        super().__init__(n_envs, suit_augment, privileged_critic, seed)

    @classmethod
    def from_config(cls, cfg, pool: OpponentPool) -> VecEnv:
        """The games a training config asks for (``TrainConfig``), learning options included:
        in this process, in ``rollout_workers`` processes (:class:`WorkerSelfPlayVecEnv`), or
        with ``batched_games`` on the batched engine (:mod:`.batched_vec_env`)."""
        if cfg.sb3.batched_games:
            from .batched_vec_env import BatchedSelfPlayVecEnv

            return BatchedSelfPlayVecEnv.from_config(cfg, pool)
        if cfg.sb3.rollout_workers > 1:
            return WorkerSelfPlayVecEnv(cfg, pool)
        s = cfg.shared
        return cls(cfg.sb3.n_envs, pool, s.rules, s.suit_augment, s.privileged_critic, s.seed)

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



# -- the games in worker processes (rollout_workers) ------------------------------------


def _policy_agent(network, label: str, deterministic: bool):
    from sixtysix_env.policy import PolicyAgent

    return PolicyAgent(network, {"name": label}, deterministic=deterministic, name=label)


class _Share(gymnasium.Env):
    """One share of the games (a :class:`SelfPlayVecEnv` with its own copy of the pool) as one
    environment of Gymnasium's :class:`~gymnasium.vector.AsyncVectorEnv`: its observation is
    the share's (``n_games`` rows), its action one per game; a step's rewards, dones, infos
    and masks come in its info (it never ends: its games deal anew by themselves)."""

    def __init__(self, cfg, index: int, n_games: int) -> None:
        # Ctrl-C reaches the whole process group: the training process saves and closes us.
        # Only in a worker: a share built in the training process itself (a test's, or
        # AsyncVectorEnv's dummy) must not leave Ctrl-C ignored there, nor in what it starts.
        if mp.parent_process() is not None:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        from sixtysix_env.evaluation.blas import one_blas_thread

        # One process per core: numpy's BLAS threads would only wait (for the process's life).
        self._one_thread = one_blas_thread()
        self._one_thread.__enter__()
        self.cfg = cfg
        self.index = index
        self.n_games = n_games
        s = cfg.shared
        self.pool = OpponentPool.from_config(s)
        self.games = SelfPlayVecEnv(
            n_games, self.pool, s.rules, s.suit_augment, s.privileged_critic,
            s.seed + index * n_games,
        )
        size = self.games.observation_space.shape[0]
        self.observation_space = spaces.Box(0.0, 1.0, (n_games, size), np.float32)
        self.action_space = spaces.MultiDiscrete([NUM_ACTIONS] * n_games)

    def _failed(self, what: str) -> RuntimeError:
        return RuntimeError(f"share {self.index} of the games, {what}:\n{traceback.format_exc()}")

    def reset(self, *, seed=None, options=None):
        try:
            return self.games.reset(), {"masks": self.games.buf_masks.copy()}
        except Exception:  # noqa: BLE001 - raised in the training process, naming the share
            raise self._failed("reset") from None

    def step(self, action):
        try:
            obs, rewards, dones, infos = self.games.step(np.asarray(action))
        except Exception:  # noqa: BLE001 - raised in the training process, naming the share
            raise self._failed("step") from None
        info = {"rewards": rewards, "dones": dones, "infos": infos,
                "masks": self.games.buf_masks.copy()}
        return obs, 0.0, False, False, info

    # What WorkerSelfPlayVecEnv sets or calls in every share (a setter: a value per share).

    @property
    def games_seed(self) -> int | None:
        return None

    @games_seed.setter
    def games_seed(self, seed: int | None) -> None:
        self.games.seed(seed)

    @property
    def pool_update(self) -> tuple | None:
        return None

    @pool_update.setter
    def pool_update(self, args: tuple) -> None:
        _update_pool(self.pool, self.cfg, *args)

    def local(self, indices) -> list[int]:
        """This share's games among the global ``indices``, as its own indices."""
        lo = self.index * self.n_games
        return [i - lo for i in indices if lo <= i < lo + self.n_games]

    def games_has_attr(self, name: str) -> bool:
        return self.games.has_attr(name)

    def games_get_attr(self, name: str, indices) -> list[Any]:
        local = self.local(indices)
        return self.games.get_attr(name, local) if local else []

    def games_set_attr(self, name: str, value: Any, indices) -> None:
        local = self.local(indices)
        if local:
            self.games.set_attr(name, value, local)

    def games_env_method(self, name: str, args, kwargs, indices) -> list[Any]:
        local = self.local(indices)
        return self.games.env_method(name, *args, indices=local, **kwargs) if local else []

    def close(self) -> None:
        self.games.close()


def _update_pool(pool: OpponentPool, cfg, snapshots, networks, baselines, rng_seed) -> None:
    """A worker's pool brought level with the training process's (``snapshots``: (label,
    path, steps) oldest first; ``networks``: the ones this worker has not had yet)."""
    have = {s.label: s for s in pool.snapshots}
    pool.replace_snapshots(
        [
            have[label]
            if label in have
            else Snapshot(
                label, path, steps,
                _policy_agent(networks[label], label, cfg.shared.snapshot_deterministic),
            )
            for label, path, steps in snapshots
        ]
    )
    if baselines is not None and pool.baseline_weights != baselines:
        pool.set_baselines(baselines)
    if rng_seed is not None:
        pool.rng = random.Random(f"sixtysix-pool:{cfg.shared.seed}:worker:{rng_seed}")


class WorkerSelfPlayVecEnv(VecEnv):
    """The ``n_envs`` games of a training config in ``rollout_workers`` shares, each in a
    worker process of its own: Gymnasium's :class:`~gymnasium.vector.AsyncVectorEnv` over
    the shares (:class:`_Share`, each a :class:`SelfPlayVecEnv`).

    Game ``i`` is game ``i % (n_envs / rollout_workers)`` of share ``i // (n_envs /
    rollout_workers)``, and the deals follow the seeds SB3 hands out (game ``i`` gets
    ``seed + i``, as in one process). ``pool`` is the training process's pool: its
    snapshots and baselines reach the workers before the next step, and each reset
    reseeds the workers' opponent draws from its generator.
    """

    def __init__(self, cfg, pool: OpponentPool) -> None:
        k = cfg.sb3.rollout_workers
        if k < 1 or cfg.sb3.n_envs % k:
            raise ValueError(
                f"rollout_workers ({k}) must be at least 1 and divide n_envs ({cfg.sb3.n_envs})"
            )
        self.pool = pool
        self.cfg = cfg
        self.per = cfg.sb3.n_envs // k
        self.buf_masks = np.zeros((cfg.sb3.n_envs, NUM_ACTIONS), bool)
        self.closed = False
        self._sent: tuple = ((), None)
        # SB3's choice for its SubprocVecEnv: no copy of this process's threads (torch's).
        methods = mp.get_all_start_methods()
        self.envs = AsyncVectorEnv(
            [partial(_Share, cfg, w, self.per) for w in range(k)],
            context="forkserver" if "forkserver" in methods else "spawn",
        )
        #: The worker processes (AsyncVectorEnv's), one per share.
        self.processes = self.envs.processes
        size = OBS_SIZE + (PRIV_SIZE if cfg.shared.privileged_critic else 0)
        obs_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        super().__init__(cfg.sb3.n_envs, obs_space, spaces.Discrete(NUM_ACTIONS))

    def _each(self, method: str, *args) -> list[Any]:
        """Each share's answer to ``method(*args)``, in order."""
        return list(self.envs.call(method, *args))

    def _sync_pool(self, reseed: bool) -> None:
        """Hand the workers the pool's snapshots and baselines where they changed, and with
        ``reseed`` a new seed each for their opponent draws (from the pool's generator)."""
        pool = self.pool
        snaps = tuple((s.label, s.path, s.steps) for s in pool.snapshots)
        baselines = dict(pool.baseline_weights)
        sent_snaps, sent_baselines = self._sent
        if not reseed and snaps == sent_snaps and baselines == sent_baselines:
            return
        had = {label for label, _, _ in sent_snaps}
        networks = {s.label: s.agent.network for s in pool.snapshots if s.label not in had}
        self.envs.set_attr("pool_update", [
            (snaps, networks, baselines, pool.rng.getrandbits(64) if reseed else None)
            for _ in range(self.envs.num_envs)
        ])
        self._sent = (snaps, baselines)

    # -- the VecEnv interface -------------------------------------------------------

    def seed(self, seed: int | None = None):
        """Seed the next deals (game ``i``: ``seed + i``) and each worker's suit renamings."""
        seeds = super().seed(seed)
        self.envs.set_attr("games_seed", [seeds[w * self.per] for w in range(self.envs.num_envs)])
        return seeds

    def reset(self) -> np.ndarray:
        self._sync_pool(reseed=True)
        obs, info = self.envs.reset()
        self._reset_seeds()
        self._reset_options()
        self.buf_masks = info["masks"].reshape(self.num_envs, NUM_ACTIONS)
        return obs.reshape(self.num_envs, -1)

    def step_async(self, actions: np.ndarray) -> None:
        self._sync_pool(reseed=False)
        self.envs.step_async(np.asarray(actions).reshape(self.envs.num_envs, self.per))

    def step_wait(self):
        obs, _, _, _, info = self.envs.step_wait()
        rewards = info["rewards"].reshape(self.num_envs)
        dones = info["dones"].reshape(self.num_envs)
        infos = [i for share in info["infos"] for i in share]
        self.buf_masks = info["masks"].reshape(self.num_envs, NUM_ACTIONS)
        return obs.reshape(self.num_envs, -1), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        return self.buf_masks.copy()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.envs.close(terminate=not all(self.envs.parent_pipes))

    def has_attr(self, attr_name: str) -> bool:
        # Asked (by MaskablePPO) without fetching the attribute: a bound method would
        # carry its whole environment through the pipe.
        return all(self._each("games_has_attr", attr_name))

    def _indices(self, indices) -> list[int]:
        return list(self._get_indices(indices))

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [x for share in self._each("games_get_attr", attr_name, self._indices(indices))
                for x in share]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        self._each("games_set_attr", attr_name, value, self._indices(indices))

    def env_method(
        self, method_name: str, *method_args, indices=None, **method_kwargs
    ) -> list[Any]:
        if method_name == "action_masks" and not method_args and not method_kwargs:
            return [self.buf_masks[i].copy() for i in self._get_indices(indices)]
        return [x for share in self._each("games_env_method", method_name, method_args,
                                          method_kwargs, self._indices(indices)) for x in share]

    def env_is_wrapped(self, wrapper_class, indices=None) -> Sequence[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self):
        return [None for _ in range(self.num_envs)]
