"""Stable-Baselines3 on the vector environment: sixtysix_env/env/sb3.py's SB3VecEnv.

The adapter is held to SB3's own ``DummyVecEnv`` over the same single games (a ``sync``
vector environment seeds its games as ``DummyVecEnv`` does), and to the vector entry point
it wraps (the same seed, the same games); MaskablePPO, PPO, A2C and DQN learn on it, the
model it trains is an agent of ``sixtysix eval``, and docs/ecosystem.md's recipe runs as
written.
"""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from _ecosystem import one_torch_thread, require

import sixtysix_env  # noqa: F401  (registers SixtySix-v0)

pytestmark = pytest.mark.ecosystem

require("numba", "fast")
require("stable_baselines3", "train")
require("sb3_contrib", "train")

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3 import A2C, DQN, PPO
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, VecCheckNan, VecMonitor

from sixtysix_env.env.sb3 import SB3VecEnv

ROOT = Path(__file__).resolve().parents[2]


def vector(n: int, mode: str = "vector_entry_point", autoreset: str = "SameStep", **kwargs):
    if mode == "sync":
        return gymnasium.make_vec("SixtySix-v0", num_envs=n, vectorization_mode="sync",
                                  vector_kwargs={"autoreset_mode": autoreset}, **kwargs)
    return gymnasium.make_vec("SixtySix-v0", num_envs=n, vectorization_mode=mode,
                              autoreset_mode=autoreset, **kwargs)


def legal_moves(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random legal action in each game (its first one where none is legal)."""
    return (rng.random(masks.shape) * masks).argmax(1)


def assert_same_obs(a, b) -> None:
    if isinstance(a, dict):
        assert set(a) == set(b)
        for key in a:
            np.testing.assert_array_equal(a[key], b[key])
            assert np.asarray(a[key]).dtype == np.asarray(b[key]).dtype
    else:
        np.testing.assert_array_equal(a, b)


def assert_same_infos(ours: list[dict], theirs: list[dict]) -> None:
    for mine, other in zip(ours, theirs, strict=True):
        assert set(mine) == set(other)
        for key in mine:
            if key == "terminal_observation":
                assert_same_obs(mine[key], other[key])
            else:
                np.testing.assert_array_equal(mine[key], other[key])


def test_the_same_steps_as_sb3s_dummy_vec_env_on_the_same_games():
    """Over a ``sync`` vector environment the adapter gives what ``DummyVecEnv`` gives on
    the same single games: observations, rewards, dones, infos with the terminal
    observation of each finished game, the reset infos and the masks."""
    n, steps = 3, 120
    ours = SB3VecEnv(vector(n, "sync"))
    theirs = DummyVecEnv([lambda: gymnasium.make("SixtySix-v0")] * n)
    assert ours.seed(11) == [11] * n
    theirs.seed(11)
    assert_same_obs(ours.reset(), theirs.reset())
    assert_same_infos(ours.reset_infos, theirs.reset_infos)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(steps):
        masks = get_action_masks(ours)
        np.testing.assert_array_equal(masks, get_action_masks(theirs))
        actions = legal_moves(masks, rng)
        obs, rewards, dones, infos = ours.step(actions)
        obs2, rewards2, dones2, infos2 = theirs.step(actions)
        assert_same_obs(obs, obs2)
        np.testing.assert_array_equal(rewards, rewards2)
        assert rewards.dtype == rewards2.dtype and dones.dtype == dones2.dtype
        np.testing.assert_array_equal(dones, dones2)
        assert_same_infos(infos, infos2)
        assert_same_infos(ours.reset_infos, theirs.reset_infos)
        ended += int(dones.sum())
    assert ended >= 10
    assert ours.env_is_wrapped(Monitor) == [False] * n
    ours.close()


def test_the_vector_entry_point_step_for_step():
    """The adapter passes the vector environment's games on unchanged (the same seed, the
    same moves): a finished game's last observation and last info go to its SB3 info, the
    new deal's observation is the one returned, and until a game first ends the games are
    those of the default next-step vector environment."""
    n = 8
    ours = SB3VecEnv(vector(n))
    same = vector(n)
    later = vector(n, autoreset="NextStep")
    ours.seed(5)
    obs = ours.reset()
    assert_same_obs(obs, same.reset(seed=5)[0])
    assert_same_obs(obs, later.reset(seed=5)[0])
    rng = np.random.default_rng(1)
    first_end = True
    ended = 0
    for _ in range(60):
        actions = legal_moves(ours.action_masks(), rng)
        obs, rewards, dones, infos = ours.step(actions)
        obs2, rewards2, terminated, truncated, info2 = same.step(actions)
        assert_same_obs(obs, obs2)
        np.testing.assert_array_equal(rewards, rewards2)
        np.testing.assert_array_equal(dones, terminated | truncated)
        for i in np.flatnonzero(dones):
            assert_same_obs(infos[i]["terminal_observation"], info2["final_obs"][i])
            assert not infos[i]["terminal_observation"]["action_mask"].any()  # the game is over
            assert infos[i]["hand_over"] and infos[i]["winner"] in (0, 1)
            assert infos[i]["hand_game_points"] == abs(rewards[i])
            assert ours.reset_infos[i]["hands_played"] == 0 and obs["action_mask"][i].any()
        for i in np.flatnonzero(~dones):
            assert "terminal_observation" not in infos[i] and infos[i]["hand_over"] is False
        if first_end:
            obs3, rewards3, terminated3, _, _ = later.step(actions)
            np.testing.assert_array_equal(rewards, rewards3)
            np.testing.assert_array_equal(dones, terminated3)
            for i in range(n):
                want = {k: v[i] for k, v in obs3.items()}
                got = infos[i]["terminal_observation"] if dones[i] else {
                    k: v[i] for k, v in obs.items()}
                assert_same_obs(got, want)
            first_end = not dones.any()
        ended += int(dones.sum())
    assert not first_end and ended >= 20


def test_the_features_observation():
    ours = SB3VecEnv(vector(4), observation_format="features")
    whole = SB3VecEnv(vector(4))
    assert ours.observation_space == whole.env.single_observation_space["observation"]
    ours.seed(2)
    whole.seed(2)
    obs, full = ours.reset(), whole.reset()
    np.testing.assert_array_equal(obs, full["observation"])
    rng = np.random.default_rng(2)
    for _ in range(30):
        actions = legal_moves(whole.action_masks(), rng)
        np.testing.assert_array_equal(ours.action_masks(), whole.action_masks())
        obs, _, dones, infos = ours.step(actions)
        full, _, _, infos2 = whole.step(actions)
        np.testing.assert_array_equal(obs, full["observation"])
        for i in np.flatnonzero(dones):
            np.testing.assert_array_equal(infos[i]["terminal_observation"],
                                          infos2[i]["terminal_observation"]["observation"])


def test_masks_attributes_methods_seed_render_close():
    env = SB3VecEnv(vector(5))
    assert is_masking_supported(env)
    with pytest.raises(RuntimeError, match=r"action_masks\(\) before reset"):
        env.action_masks()
    first = env.reset()
    masks = env.action_masks()
    assert masks.dtype == bool and masks.shape == (5, 34)
    np.testing.assert_array_equal(masks, first["action_mask"].astype(bool))
    np.testing.assert_array_equal(get_action_masks(env), masks)
    rows = env.env_method("action_masks", indices=[3, 1])
    np.testing.assert_array_equal(np.stack(rows), masks[[3, 1]])
    assert env.get_attr("render_mode") == [None] * 5
    assert env.get_attr("num_envs", indices=2) == [5]
    env.set_attr("illegal_reward", -4.0)
    assert env.env.illegal_reward == -4.0
    assert env.env_method("action_masks", indices=0)[0].shape == (34,)
    with pytest.raises(IndexError, match=r"game index 5 out of range; allowed: 0 to 4"):
        env.get_attr("render_mode", indices=[5])
    with pytest.warns(UserWarning, match="no `render_mode`"):
        assert env.render() is None
    # The same seed, the same deals; reset without one goes on.
    env.seed(9)
    a = env.reset()
    env.seed(9)
    assert_same_obs(env.reset(), a)
    assert not np.array_equal(env.reset()["observation"], a["observation"])
    # Options for the next reset: the vector environment's one dict.
    decks = np.tile(np.arange(24), (5, 1))
    env.set_options({"decks": decks, "dealers": np.ones(5, int),
                     "learner_seats": np.zeros(5, int)})
    dealt = env.reset()
    assert (dealt["observation"] == dealt["observation"][0]).all()
    with pytest.raises(ValueError, match="one options dict"):
        env.set_options([{}] * 5)
    env.close()


def test_refusals_name_what_is_allowed():
    with pytest.raises(ValueError, match=r"autoreset_mode='SameStep'.*has autoreset_mode="
                                         r"'NextStep'"):
        SB3VecEnv(vector(2, autoreset="NextStep"))
    with pytest.raises(TypeError, match="wraps a Gymnasium VectorEnv, got DummyVecEnv"):
        SB3VecEnv(DummyVecEnv([lambda: gymnasium.make("SixtySix-v0")]))
    with pytest.raises(ValueError, match=r"unknown observation_format 'flat'; allowed: 'dict', "
                                         r"'features'"):
        SB3VecEnv(vector(2), observation_format="flat")
    with pytest.raises(ValueError, match="copy=True"):
        SB3VecEnv(vector(2, copy=False))
    env = SB3VecEnv(vector(2))
    with pytest.raises(RuntimeError, match=r"without step_async"):
        env.step_wait()


def test_without_sb3_the_import_names_the_extra():
    code = ("import sys\nsys.modules['stable_baselines3'] = None  # as if not installed\n"
            "import sixtysix_env.env.sb3\n")
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("sixtysix_env.batched.MissingExtraError: sixtysix_env.env.sb3 needs "
                           "Stable-Baselines3, which is not installed"), done.stderr
    assert 'pip install "sixtysix[train]"' in last


@pytest.mark.slow
@pytest.mark.usefixtures(one_torch_thread.__name__)
@pytest.mark.parametrize("algo", ["MaskablePPO", "PPO", "A2C", "DQN"])
@pytest.mark.parametrize("observation_format", ["dict", "features"])
def test_each_algorithm_learns_on_it(algo, observation_format):
    env = VecMonitor(VecCheckNan(SB3VecEnv(vector(8), observation_format), raise_exception=True))
    policy = "MultiInputPolicy" if observation_format == "dict" else "MlpPolicy"
    kwargs = {"DQN": {"learning_starts": 64}, "A2C": {}}.get(algo, {"n_steps": 16,
                                                                     "batch_size": 64})
    cls = {"MaskablePPO": MaskablePPO, "PPO": PPO, "A2C": A2C, "DQN": DQN}[algo]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning from SB3 about the environment
        model = cls(policy, env, seed=0, **kwargs).learn(256)
    assert model.num_timesteps >= 256
    assert len(model.ep_info_buffer) >= 5  # VecMonitor saw episodes end


@pytest.mark.slow
@pytest.mark.usefixtures(one_torch_thread.__name__)
def test_the_same_seed_trains_the_same_model():
    def weights(seed: int) -> list[np.ndarray]:
        model = MaskablePPO("MultiInputPolicy", SB3VecEnv(vector(8)), n_steps=16, batch_size=64,
                            seed=seed).learn(128)
        return [p.detach().numpy().copy() for p in model.policy.parameters()]

    first, again, other = weights(3), weights(3), weights(4)
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, b) for a, b in zip(first, other, strict=True))


@pytest.mark.slow
@pytest.mark.usefixtures(one_torch_thread.__name__)
def test_a_model_trained_through_it_is_an_agent(tmp_path):
    from sixtysix_env.agents import make_agent

    env = SB3VecEnv(vector(8))
    MaskablePPO("MultiInputPolicy", env, n_steps=32, batch_size=64, seed=0).learn(256).save(
        tmp_path / "model")
    done = subprocess.run(
        [sys.executable, "-m", "sixtysix_env", "eval", "model.zip", "random", "--deals", "10"],
        check=False, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "20/20 hands" in done.stdout + done.stderr
    agent = make_agent(str(tmp_path / "model.zip"))
    assert agent.network.reads_mask


def recipe() -> str:
    """docs/ecosystem.md's python block under "SB3 on the vector environment"."""
    text = (ROOT / "docs" / "ecosystem.md").read_text(encoding="utf-8")
    body = text.split("\n## SB3 on the vector environment\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", body, re.DOTALL)
    assert len(blocks) == 1
    return blocks[0]


@pytest.mark.slow
def test_the_docs_recipe_runs_as_written(tmp_path):
    done = subprocess.run([sys.executable, "-c", recipe()], check=False, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert (tmp_path / "my_sb3.zip").is_file()
