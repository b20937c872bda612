"""The opponent league of the RLlib backend, expressed through RLlib's policy mapping.

Module ids of the multi-agent setup:

* ``learner``: the one trained policy (RLlib's ``ActionMaskingTorchRLModule``),
  shared by both seats;
* ``random``, ``heuristic``: the baselines, as non-trained RLModules
  (:class:`OpponentModule`);
* ``snap0`` ... ``snap{max_snapshots-1}``: slots for frozen snapshots of the
  learner (also :class:`OpponentModule`, playing a numpy copy of the
  learner's actor, the same file the SB3 path's pool keeps).

Per episode (one hand), :func:`league_mapping` draws the learner's seat (0 or
1, fair) and its opponent with the weights of the SB3 path's
:class:`sixtysix_training.common.pool.OpponentPool` (each baseline its weight, the recent
snapshots sharing ``recent_weight``, the older ones ``older_weight``),
plus ``self_weight`` for a mirror game with the learner on both seats. The
other seat maps to the opponent's module id. ``policies_to_train`` is
``["learner"]``, so only the learner's moves are learned from.

The driver keeps the pool (:class:`~sixtysix_training.common.pool.OpponentPool`, for its
weights, its saving and resuming) and pushes the table and the snapshot
networks to every env runner with :func:`push` (``foreach_env_runner``);
each runner keeps them in this module's process-wide ``_LEAGUE``. A runner
that Ray restarts plays the baselines alone (the table the mapping function
was built with) until the next push.

The heuristic needs the engine's player view, not the observation vector,
so the training environment (:func:`make_env`) adds the heuristic's move
for the seat to act as one more observation key, ``heuristic``
(a one-hot of 34); the learner's module reads only ``observations`` and
``action_mask``.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

from sixtysix_env.env.rllib import MASK_KEY, OBS_KEY, RLlibObservationWrapper
from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.game.view import player_view
from sixtysix_env.policy import PolicyNetwork

from ..common.learning import PRIV_SIZE, SuitRenamer, privileged_features

LEARNER = "learner"
HINT_KEY = "heuristic"

#: Process-wide league state of an env runner (and of the driver in local mode).
_LEAGUE: dict[str, Any] = {
    "table": None,  # [(cumulative weight, module id)]
    "networks": {},  # slot module id -> PolicyNetwork
    "deterministic": False,
    "rng": None,
    "picks": OrderedDict(),  # episode id -> (learner seat, opponent module id)
    "version": -1,
}


def slot_ids(max_snapshots: int) -> list[str]:
    return [f"snap{i}" for i in range(max_snapshots)]


# -- the mapping ---------------------------------------------------------------------


def cumulative(table: list[tuple[float, str]]) -> list[tuple[float, str]]:
    out, cum = [], 0.0
    for w, mid in table:
        if w > 0:
            cum += w
            out.append((cum, mid))
    return out


def league_mapping(agent_id: str, episode: Any, default_table=None, seed: int = 0, **kw) -> str:
    """The module playing ``agent_id`` in ``episode`` (RLlib's ``policy_mapping_fn``).

    The first call of an episode draws its match-up; the other seat's call
    finds it cached, so both seats agree.
    """
    st = _LEAGUE
    key = episode.id_
    pick = st["picks"].get(key)
    if pick is None:
        if st["rng"] is None:
            st["rng"] = random.Random(f"sixtysix-league:{seed}")
        table = st["table"] or default_table
        rng = st["rng"]
        learner_seat = rng.randrange(2)
        u = rng.random() * table[-1][0]
        opp = next((mid for cum, mid in table if u < cum), table[-1][1])
        pick = st["picks"][key] = (learner_seat, opp)
        while len(st["picks"]) > 4096:  # episodes long finished
            st["picks"].popitem(last=False)
    learner_seat, opp = pick
    seat = int(str(agent_id).rsplit("_", 1)[-1])
    return LEARNER if seat == learner_seat else opp


def push_state(
    table: list[tuple[float, str]],
    networks: dict[str, dict],
    deterministic: bool,
    version: int,
    seed: int,
):
    """What :func:`push` sends: a function that installs the league in one env runner."""

    def install(env_runner) -> int:
        st = _LEAGUE
        if st["rng"] is None:
            index = getattr(env_runner, "worker_index", 0)
            st["rng"] = random.Random(f"sixtysix-league:{seed}:{index}")
        st["table"] = cumulative(table)
        st["networks"] = {
            mid: PolicyNetwork(n["weights"], n["biases"], n["activation"])
            for mid, n in networks.items()
        }
        st["deterministic"] = deterministic
        st["version"] = version
        return version

    return install


def push(algo, pool, slots: dict[str, str], self_weight: float, version: int, seed: int) -> None:
    """Send the pool's current table and snapshot networks to every env runner."""
    table = league_table(pool, slots, self_weight)
    networks = {}
    for snap in pool.snapshots:
        net = snap.agent.network
        networks[slots[snap.label]] = {
            "weights": list(net.weights),
            "biases": list(net.biases),
            "activation": net.activation,
        }
    fn = push_state(table, networks, pool.snapshot_deterministic, version, seed)
    algo.env_runner_group.foreach_env_runner(fn, local_env_runner=True)


def league_table(pool, slots: dict[str, str], self_weight: float) -> list[tuple[float, str]]:
    """(weight, module id) of every opponent: the pool's weights, snapshots by their slots."""
    out = []
    for p, label, _group in pool.weights():
        out.append((p, slots.get(label, label)))
    if self_weight > 0:
        # The pool's weights sum to 1; the mirror game's weight is relative to the same scale.
        total = sum(w for w, _ in out)
        out.append((self_weight * total, LEARNER))
    return out


# -- the environment ---------------------------------------------------------------------


class _DictSpacesWrapper(BaseWrapper):
    """A wrapper whose observations are the inner ``Dict`` with keys added or widened:
    ``changed(inner)`` gives those keys' boxes, for each agent's inner space."""

    def __init__(self, env, changed: Callable[[spaces.Dict], dict[str, spaces.Box]]) -> None:
        super().__init__(env)
        self._spaces = {}
        for a in env.possible_agents:
            inner = env.observation_space(a)
            self._spaces[a] = spaces.Dict({**inner.spaces, **changed(inner)})

    def observation_space(self, agent: str):
        return self._spaces[agent]


class HeuristicHintWrapper(_DictSpacesWrapper):
    """Adds the heuristic's move for the seat to act (one-hot) to every observation."""

    def __init__(self, env) -> None:
        super().__init__(
            env, lambda inner: {HINT_KEY: spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32)}
        )
        from sixtysix_env.agents import make_agent

        self._agent = make_agent("heuristic")
        self._rng = random.Random(0)  # the heuristic draws nothing; act() takes one

    def observe(self, agent: str):
        obs = super().observe(agent)
        hint = np.zeros(NUM_ACTIONS, np.float32)
        raw = self.env.unwrapped
        state = raw.game_state
        seat = raw.possible_agents.index(agent)
        if not state.is_terminal() and state.current_player() == seat:
            hint[self._agent.act(player_view(state, seat), self._rng)] = 1.0
        obs[HINT_KEY] = hint
        return obs


class PrivilegedObservationWrapper(_DictSpacesWrapper):
    """Appends the hidden cards to each ``observations`` vector (``privileged_critic``).

    The learner's module (:class:`.modules.PrivilegedLearnerModule`) feeds the
    first ``OBS_SIZE`` entries to its actor and all of them to its critic;
    snapshot opponents read the first ``OBS_SIZE`` only.
    """

    def __init__(self, env) -> None:
        super().__init__(env, lambda inner: {OBS_KEY: spaces.Box(
            0.0, 1.0, (inner[OBS_KEY].shape[0] + PRIV_SIZE,), np.float32)})

    def observe(self, agent: str):
        obs = super().observe(agent)
        if obs is None:
            return None
        raw = self.env.unwrapped
        seat = raw.possible_agents.index(agent)
        obs[OBS_KEY] = np.concatenate(
            [obs[OBS_KEY], privileged_features(raw.game_state, seat)]
        ).astype(np.float32)
        return obs


class SuitRenamingWrapper(BaseWrapper):
    """Shows each hand under one of the 24 renamings of the suits (``suit_augment``).

    Every seat's observation, mask and heuristic hint are renamed alike, and a
    chosen action is mapped back before the game applies it, so the league's
    opponents (the heuristic through its renamed hint, the snapshots on the
    renamed observation) play the same renamed game as the learner.
    """

    def __init__(self, env, seed: int = 0) -> None:
        super().__init__(env)
        self.renamer = SuitRenamer(True, seed)
        self.k = 0

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.renamer.reseed(seed)
        self.k = self.renamer.draw()
        super().reset(seed=seed, options=options)

    def observe(self, agent: str):
        obs = super().observe(agent)
        if obs is None or self.k == 0:
            return obs
        out = dict(obs)
        out[OBS_KEY] = self.renamer.obs(obs[OBS_KEY], self.k)
        out[MASK_KEY] = self.renamer.mask(obs[MASK_KEY], self.k)
        if HINT_KEY in obs:
            out[HINT_KEY] = self.renamer.mask(obs[HINT_KEY], self.k)
        return out

    def step(self, action) -> None:
        if action is not None:
            action = self.renamer.original_action(action, self.k)
        super().step(action)


def training_aec_env(env_config: dict):
    """The AEC game the learner trains on, with the wrappers its options ask for."""
    from sixtysix_env.env.sixtysix_v0 import raw_env

    env = RLlibObservationWrapper(raw_env(rules=env_config.get("rules", "altmisalti")))
    if env_config.get("privileged_critic"):
        env = PrivilegedObservationWrapper(env)
    if env_config.get("heuristic_hint"):
        env = HeuristicHintWrapper(env)
    if env_config.get("suit_augment"):
        # one stream of renamings per game: the run's seed, the runner and the game's index
        worker = getattr(env_config, "worker_index", 0)
        game = getattr(env_config, "vector_index", 0)
        seed = int(env_config.get("seed", 0)) * 1_000_003 + worker * 1009 + game
        env = SuitRenamingWrapper(env, seed=seed)
    return env


def make_env(env_config: dict):
    """The training environment: RLlib's ``PettingZooEnv`` over the strict ``raw_env``.

    ``raw_env`` raises on an illegal move instead of ending the hand, so a
    masking bug stops training instead of hiding in the rewards. The options
    ``privileged_critic`` and ``suit_augment`` add their wrappers
    (:mod:`sixtysix_training.common.learning`). Ray calls it in each env runner's
    process, whose numpy BLAS it keeps on one thread: the snapshots' numpy passes
    beside torch's threads (:mod:`sixtysix_env.evaluation.blas`).
    """
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from sixtysix_env.evaluation.blas import limit_blas_threads

    limit_blas_threads()
    return PettingZooEnv(training_aec_env(env_config))
