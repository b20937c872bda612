"""PettingZoo's own tests, SuperSuit's observation wrappers on the flat variant, and
``turn_based_aec_to_parallel``."""

from __future__ import annotations

import json
from functools import partial

import numpy as np
import pytest
from _ecosystem import require
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from sixtysix_env import sixtysix_v0
from sixtysix_env.env.core import INFO_KEYS
from sixtysix_env.env.wrappers import FLAT_SIZE, FlatObservation
from sixtysix_env.game.view import player_view
from sixtysix_env.policy.observation import OBS_SIZE, encode_view

pytestmark = pytest.mark.ecosystem


@pytest.mark.parametrize("fmt", ["dict", "flat"])
def test_pettingzoo_tests(fmt):
    api_test(sixtysix_v0.env(observation_format=fmt), num_cycles=300)
    seed_test(partial(sixtysix_v0.env, observation_format=fmt), num_cycles=300)
    render_test(partial(sixtysix_v0.env, observation_format=fmt))


def test_infos_same_keys_every_step_and_json():
    env = sixtysix_v0.env(mode="match")
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    seen_hand_over = 0
    for agent in env.agent_iter():
        obs, _r, term, trunc, info = env.last()
        assert tuple(info) == INFO_KEYS
        json.dumps(info)
        seen_hand_over += info["hand_over"]
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert seen_hand_over >= 2
    assert env.unwrapped.last_hand_result is env.unwrapped.match.results[-1]


def test_flat_observation_is_the_dict_one_then_the_mask():
    env = sixtysix_v0.env(observation_format="flat")
    assert isinstance(env, FlatObservation)
    space = env.observation_space("player_0")
    assert space.shape == (FLAT_SIZE,) and space.dtype == np.float32
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for agent in env.agent_iter():
        obs, _r, term, trunc, _info = env.last()
        assert obs in space
        seat = int(agent[-1])
        view = player_view(env.unwrapped.game_state, seat)
        assert obs[:OBS_SIZE].tobytes() == encode_view(view).tobytes()
        assert np.array_equal(obs[OBS_SIZE:], env.action_mask(agent))
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs[-34:]))))
    with pytest.raises(ValueError, match=r"observation_format 'box'; allowed: 'dict', 'flat'"):
        sixtysix_v0.env(observation_format="box")


def test_supersuit_observation_wrappers_on_the_flat_variant():
    ss = require("supersuit", "supersuit")
    env = sixtysix_v0.env(observation_format="flat")
    env = ss.flatten_v0(env)
    env = ss.dtype_v0(env, np.float32)
    env = ss.normalize_obs_v0(env, env_min=0.0, env_max=1.0)
    env = ss.frame_stack_v1(env, 3)
    assert env.observation_space("player_0").shape == (3 * FLAT_SIZE,)
    api_test(env, num_cycles=300)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    steps = 0
    for agent in env.agent_iter(max_iter=400):
        obs, _r, term, trunc, _info = env.last()
        # The newest frame comes last, its mask last of all.
        np.testing.assert_array_equal(obs[-34:], env.unwrapped.observe(agent)["action_mask"])
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs[-34:]))))
        steps += 1
        if not env.agents:
            env.reset()
    assert steps == 400


def test_turn_based_aec_to_parallel():
    par = turn_based_aec_to_parallel(sixtysix_v0.env())
    parallel_api_test(par, num_cycles=300)
    obs, _infos = par.reset(seed=3)
    rng = np.random.default_rng(3)
    rewards = {a: 0.0 for a in par.possible_agents}
    while par.agents:
        actions = {}
        for agent in par.agents:
            legal = np.flatnonzero(obs[agent]["action_mask"])
            # The idle seat's mask is all zeros; its action is ignored: any id does.
            actions[agent] = int(rng.choice(legal)) if len(legal) else 0
        obs, rew, _term, _trunc, _infos = par.step(actions)
        for a, r in rew.items():
            rewards[a] += r
    result = par.aec_env.unwrapped.last_hand_result
    assert result is not None
    assert (rewards["player_0"], rewards["player_1"]) == tuple(map(float, result.returns()))
