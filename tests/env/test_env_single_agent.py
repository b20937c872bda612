"""The single-agent Gymnasium environment ``SixtySix-v0``."""

from __future__ import annotations

import pickle
import random
import warnings

import gymnasium
import numpy as np
import pytest
from _lanes import HALF_IN_THE_FAST_LANE, two_presets_in_the_fast_lane
from gymnasium.utils.env_checker import check_env

import sixtysix_env  # noqa: F401  (registers SixtySix-v0)
from sixtysix_env import PRESETS, IllegalActionError, PlayerView, player_view
from sixtysix_env.agents import RandomAgent
from sixtysix_env.env.single_agent import SixtySixEnv
from sixtysix_env.policy.observation import encode_view


class LowestLegal:
    """A deterministic opponent that records what it was shown."""

    name = "lowest"

    def __init__(self):
        self.views = []

    def act(self, view, rng):
        self.views.append(view)
        return view.legal_actions()[0]


def masked_random(obs, rng):
    legal = np.flatnonzero(obs["action_mask"])
    return int(legal[rng.randrange(len(legal))])


def run_episode(env, seed=None, policy_seed=0):
    rng = random.Random(policy_seed)
    obs, info = env.reset(seed=seed)
    total, steps, trace = 0.0, 0, [obs["observation"].tobytes()]
    while True:
        obs, reward, term, trunc, info = env.step(masked_random(obs, rng))
        total += reward
        steps += 1
        trace.append(obs["observation"].tobytes())
        if term or trunc:
            return total, steps, trace, info


@pytest.mark.parametrize("mode", ["hand", "match"])
def test_the_mask_is_also_in_info_on_every_step(mode):
    """``info["action_mask"]`` is the observation's mask (for loops that read it there)."""
    env = gymnasium.make("SixtySix-v0", opponent="heuristic", mode=mode, illegal_action="raise")
    rng = random.Random(4)
    for episode in range(3):
        obs, info = env.reset(seed=episode)
        np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])
        done = False
        while not done:
            obs, _, term, trunc, info = env.step(masked_random(obs, rng))
            np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])
            assert info["action_mask"].dtype == np.int8
            done = term or trunc
        assert not info["action_mask"].any()
    lose = gymnasium.make("SixtySix-v0")  # an illegal move ends the episode: an empty mask
    obs, _ = lose.reset(seed=0)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, _, term, _, info = lose.step(bad)
    assert term and info["illegal_action"] == bad and not info["action_mask"].any()


def test_gymnasium_make_after_import():
    env = gymnasium.make("SixtySix-v0", opponent="random")
    obs, info = env.reset(seed=0)
    assert set(obs) == {"observation", "action_mask"}
    assert info["learner_seat"] in (0, 1)
    assert isinstance(env.unwrapped, SixtySixEnv)
    env2 = gymnasium.make("SixtySix-v0", opponent=RandomAgent(), rules="santase", mode="match")
    assert env2.unwrapped.rules.name == "santase"


@pytest.mark.parametrize("mode", ["hand", "match"])
def test_check_env(mode):
    # check_env steps random actions of the whole action space; by default an
    # illegal one ends the episode (Gymnasium's contract) instead of raising.
    env = gymnasium.make("SixtySix-v0", mode=mode)
    assert env.unwrapped.illegal_action == "lose"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any checker warning fails the test
        check_env(env.unwrapped)


def test_raise_mode_raises_on_an_illegal_learner_action():
    env = SixtySixEnv(illegal_action="raise")
    obs, _ = env.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=r"by the learner .* legal actions:"):
        env.step(bad)
    with pytest.raises(IllegalActionError, match="not an action id"):
        env.step(34)
    # The environment is unchanged and a legal action still plays.
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_lose_mode_ends_the_episode_with_the_penalty():
    env = SixtySixEnv()  # "lose" is the default
    obs, _ = env.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, term, trunc, info = env.step(bad)
    assert (reward, term, trunc) == (-3.0, True, False)
    assert info["illegal_action"] == bad
    assert not env.action_masks().any()
    with pytest.raises(IllegalActionError, match="episode is over"):
        env.step(0)
    with pytest.raises(ValueError, match="milder than the worst loss"):
        SixtySixEnv(illegal_action="lose", illegal_reward=-1)


# The fast lane plays the first half of the episodes; the full suite all of them.
@pytest.mark.parametrize("share", HALF_IN_THE_FAST_LANE)
@pytest.mark.parametrize("rules", two_presets_in_the_fast_lane(sorted(PRESETS)))
def test_episodes_mask_rewards_and_opponent(rules, share):
    opponent = LowestLegal()
    env = SixtySixEnv(opponent=opponent, rules=rules)
    rng = random.Random(4)
    seats = set()
    for episode in range(150 // share):
        obs, info = env.reset(seed=episode)
        seat = info["learner_seat"]
        seats.add(seat)
        total = 0.0
        while True:
            state = env._table.state
            assert state.current_player() == seat
            mask = env.action_masks()
            assert mask.dtype == bool and mask.any()
            assert np.array_equal(mask, obs["action_mask"].astype(bool))
            assert sum(1 << int(a) for a in np.flatnonzero(mask)) == state.legal_mask()
            view = player_view(state, seat)
            assert obs["observation"].tobytes() == encode_view(view).tobytes()
            obs, reward, term, _trunc, info = env.step(masked_random(obs, rng))
            total += reward
            if term:
                break
            assert reward == 0.0
        final = env._table.state
        assert total == final.returns()[seat]
        assert not env.action_masks().any() and not obs["action_mask"].any()
    assert seats == {0, 1}
    # The opponent only ever saw its own seat's view.
    assert opponent.views and all(isinstance(v, PlayerView) for v in opponent.views)
    assert {v.seat for v in opponent.views} == {0, 1}
    assert all(v.to_move == v.seat for v in opponent.views)


def test_learner_seat_can_be_fixed():
    env = SixtySixEnv(learner_seat=1)
    assert {env.reset(seed=s)[1]["learner_seat"] for s in range(10)} == {1}
    with pytest.raises(ValueError, match="learner_seat"):
        SixtySixEnv(learner_seat=2)


def test_match_mode_episode():
    env = SixtySixEnv(mode="match", hand_rewards=0.1)
    for seed in range(3):
        total, steps, _, _info = run_episode(env, seed=seed)
        match = env._table.match
        assert match.is_over()
        seat = env.seat
        diff = match.score[seat] - match.score[1 - seat]
        expected = (1.0 if match.winner == seat else -1.0) + 0.1 * diff
        assert total == pytest.approx(expected)
        assert steps > 20


def test_seeding_replays_episodes_and_continues_without_seed():
    a, b = SixtySixEnv(), SixtySixEnv()
    ep1 = run_episode(a, seed=12)
    assert ep1[2] == run_episode(b, seed=12)[2]
    cont_a = run_episode(a)
    cont_b = run_episode(b)
    assert cont_a[2] == cont_b[2]
    assert cont_a[2] != ep1[2]
    assert run_episode(a, seed=13)[2] != ep1[2]


def test_opponent_choices_are_seeded():
    """The random opponent draws from a generator derived from the env seed."""
    traces = {run_episode(SixtySixEnv(learner_seat=0), seed=5)[2][-1] for _ in range(3)}
    assert len(traces) == 1


def test_bad_options():
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        SixtySixEnv(opponent="nobody")
    with pytest.raises(ValueError, match="opponent must be"):
        SixtySixEnv(opponent=42)
    with pytest.raises(ValueError, match="allowed: 'raise', 'lose'"):
        SixtySixEnv(illegal_action="ignore")
    with pytest.raises(ValueError, match="allowed modes"):
        SixtySixEnv(mode="tournament")
    with pytest.raises(ValueError, match="allowed: 'table', 'learner'"):
        SixtySixEnv(render_view="god")


def test_an_illegal_opponent_move_is_reported():
    class Cheater:
        name = "cheater"

        def act(self, view, rng):
            return 33 if not view.legal_mask >> 33 & 1 else 32

    env = SixtySixEnv(opponent=Cheater(), learner_seat=0)
    with pytest.raises(IllegalActionError, match="opponent 'cheater'"):
        for seed in range(20):
            run_episode(env, seed=seed)


def test_render_and_pickle():
    env = SixtySixEnv(render_mode="ansi", render_view="learner")
    obs, info = env.reset(seed=3)
    text = env.render()
    assert f"learner: seat {info['learner_seat']}" in text and "your hand" in text
    clone = pickle.loads(pickle.dumps(env))
    rng1, rng2 = random.Random(1), random.Random(1)
    o1, o2 = obs, obs
    for _ in range(8):
        o1, r1, t1, *_ = env.step(masked_random(o1, rng1))
        o2, r2, _t2, *_ = clone.step(masked_random(o2, rng2))
        assert o1["observation"].tobytes() == o2["observation"].tobytes() and r1 == r2
        if t1:
            break


@pytest.mark.slow  # over a second: the full run, not the fast lane
def test_maskable_ppo_smoke():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.evaluation import evaluate_policy

    env = gymnasium.make("SixtySix-v0", opponent="random")
    model = sb3_contrib.MaskablePPO(
        "MultiInputPolicy", env, n_steps=128, batch_size=64, n_epochs=2, seed=0, verbose=0
    )
    model.learn(total_timesteps=256)
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert obs["action_mask"][int(action)] == 1
    mean, _ = evaluate_policy(model, env, n_eval_episodes=4, use_masking=True, warn=False)
    assert -3.0 <= mean <= 3.0
