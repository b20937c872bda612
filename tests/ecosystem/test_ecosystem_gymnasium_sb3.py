"""Gymnasium and Stable-Baselines3 / sb3-contrib, each with its standard calls on the defaults."""

from __future__ import annotations

import json
import warnings

import gymnasium
import numpy as np
import pytest
from _ecosystem import one_torch_thread, require
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

import sixtysix_env
from sixtysix_env.env.core import INFO_KEYS
from sixtysix_env.env.wrappers import MaskInInfo
from sixtysix_env.policy.observation import OBS_SIZE

pytestmark = pytest.mark.ecosystem

sb3 = require("stable_baselines3", "train")
require("sb3_contrib", "train")

from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_checker import check_env as sb3_check_env
from stable_baselines3.common.env_util import make_vec_env


def test_gymnasium_check_env_on_the_defaults():
    env = gymnasium.make("SixtySix-v0")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any checker warning fails the test
        gymnasium_check_env(env.unwrapped)


def test_sb3_check_env_on_the_defaults():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(gymnasium.make("SixtySix-v0").unwrapped)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_make_vec(mode):
    envs = gymnasium.make_vec("SixtySix-v0", num_envs=2, vectorization_mode=mode)
    try:
        obs, infos = envs.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(60):
            # Gymnasium's default next-step autoreset: after an episode ends (its
            # mask all zeros) the next action only resets, any id will do.
            actions = [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in obs["action_mask"]]
            obs, _rewards, _term, _trunc, infos = envs.step(np.array(actions))
        # Vector infos stack key by key: every key is there for every env, as numbers.
        assert set(INFO_KEYS) <= set(infos)
        assert all(np.asarray(infos[k]).dtype.kind in "biu" for k in INFO_KEYS)
    finally:
        envs.close()


@pytest.mark.usefixtures(one_torch_thread.__name__)
def test_make_vec_env_then_maskable_ppo():
    # make_vec_env asks each environment for render_mode="rgb_array" by default:
    # kept with a warning, as Gymnasium does, so training runs.
    with pytest.warns(UserWarning, match="rgb_array"):
        vec_env = make_vec_env("SixtySix-v0", n_envs=4, seed=0)
    model = MaskablePPO("MultiInputPolicy", vec_env, n_steps=64, batch_size=64, seed=0)
    model.learn(256)
    assert model.num_timesteps >= 256
    # The episode infos reach SB3's Monitor and are plain: numbers, and the mask as an
    # int8 array equal to the one MaskablePPO reads (JSON-able as a list).
    masks = vec_env.env_method("action_masks")
    infos = vec_env.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))[3]
    for info, mask in zip(infos, vec_env.env_method("action_masks")):
        assert info["action_mask"].dtype == np.int8
        np.testing.assert_array_equal(info["action_mask"].astype(bool), mask)
    json.dumps(infos, default=lambda a: a.tolist())
    with pytest.raises(
        ValueError, match=r"unknown render_mode 'rgb_array'; allowed: None, 'human'"
    ):
        vec_env.envs[0].unwrapped.render()


def test_illegal_action_modes():
    # The default ends the episode with the penalty; "raise" stays available.
    env = gymnasium.make("SixtySix-v0")
    obs, info = env.reset(seed=3)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, term, _, info = env.step(bad)
    assert (reward, term, info["illegal_action"]) == (-3.0, True, bad)
    strict = gymnasium.make("SixtySix-v0", illegal_action="raise")
    strict.reset(seed=3)
    with pytest.raises(sixtysix_env.IllegalActionError):
        strict.step(bad)


def test_mask_in_info_wrapper():
    env = MaskInInfo(gymnasium.make("SixtySix-v0"))
    assert env.observation_space.shape == (OBS_SIZE,)
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    steps = 0
    while True:
        assert obs in env.observation_space
        assert set(INFO_KEYS) <= set(info)
        np.testing.assert_array_equal(info["action_mask"], env.unwrapped.action_masks())
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, _r, term, _trunc, info = env.step(action)
        steps += 1
        if term:
            break
    assert not info["action_mask"].any() and steps >= 5
