"""``batched_games``: the training games on the batched engine (``training/sb3/batched_vec_env.py``).

With reference states kept beside every lane, each step's observation (renamed, with the
privileged critic's hidden cards), mask, reward and terminal observation are checked
against what the single-game code computes from the reference state.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None or importlib.util.find_spec("numba") is None,
    reason="the [train] extra is not installed",
)
pytest.importorskip("msgspec")
pytest.importorskip("yaml")

from sixtysix_env.game.view import player_view  # noqa: E402
from sixtysix_env.policy.observation import encode_with_mask  # noqa: E402
from sixtysix_training.common.pool import OpponentPool  # noqa: E402
from sixtysix_training.config.loader import ConfigError, load_config  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TINY = os.path.join(ROOT, "configs", "tiny.yaml")


def _expected(env, st, seat, k):
    from sixtysix_training.common.learning import privileged_features

    obs, mask = encode_with_mask(player_view(st, seat))
    x = np.concatenate([obs, privileged_features(st, seat)]) if env.privileged else obs
    return env.renamer.obs(x, k), env.renamer.mask(mask, k).astype(bool)


@pytest.mark.parametrize("options", [
    ["suit_augment=true", "privileged_critic=true"],
    ["suit_augment=false", "privileged_critic=false"],
])
def test_observations_masks_and_rewards_are_the_single_game_ones(options):
    from sixtysix_training.sb3.batched_vec_env import BatchedSelfPlayVecEnv

    cfg = load_config(TINY, ["baseline_weights={heuristic: 1.0, random: 1.0}", *options])
    s = cfg.shared
    env = BatchedSelfPlayVecEnv(6, OpponentPool.from_config(s), s.rules, s.suit_augment,
                                s.privileged_critic, seed=3)
    env.tracking = True  # keep reference states beside every lane
    finals = {}
    deal_anew = env._new_episodes

    def keep_final(lanes):  # each finished game's last state, before its lane is dealt anew
        for i in lanes.tolist():
            finals[i] = (env.states[i], int(env.seat[i]), int(env.renaming[i]))
        deal_anew(lanes)

    env.seed(5)
    obs = env.reset()
    env._new_episodes = keep_final
    rng = np.random.default_rng(0)
    ended = 0
    opponents = set()
    for _ in range(45):
        masks = np.stack(env.env_method("action_masks"))
        for i in range(env.num_envs):
            want_obs, want_mask = _expected(env, env.states[i], int(env.seat[i]),
                                            int(env.renaming[i]))
            assert np.array_equal(obs[i], want_obs) and np.array_equal(masks[i], want_mask)
        acts = (rng.random(masks.shape) * masks).argmax(axis=1)
        finals.clear()
        obs, rewards, dones, infos = env.step(acts)
        assert sorted(finals) == np.flatnonzero(dones).tolist()
        for i in np.flatnonzero(dones):
            ended += 1
            opponents.add(infos[i]["opponent"])
            st, seat, k = finals[i]
            assert st.result is not None and rewards[i] == st.returns()[seat]
            assert infos[i]["episode"]["r"] == rewards[i]
            want_obs, _ = _expected(env, st, seat, k)
            assert np.array_equal(infos[i]["terminal_observation"], want_obs)
        for i in np.flatnonzero(~dones):
            assert infos[i] == {}
    assert ended > 12 and opponents == {"heuristic", "random"}


def test_same_seed_same_games_and_the_config_option():
    from sixtysix_training.sb3.batched_vec_env import BatchedSelfPlayVecEnv
    from sixtysix_training.sb3.vec_env import SelfPlayVecEnv

    cfg = load_config(TINY, ["baseline_weights={heuristic: 1.0, random: 1.0}",
                             "batched_games=true"])
    runs = []
    for _ in range(2):
        env = SelfPlayVecEnv.from_config(cfg, OpponentPool.from_config(cfg.shared))
        assert isinstance(env, BatchedSelfPlayVecEnv)
        env.seed(9)
        out = [env.reset()]
        for _ in range(30):
            masks = np.stack(env.env_method("action_masks"))
            o, r, d, _ = env.step(masks.argmax(axis=1))
            out += [o, r, d]
        runs.append(out)
    assert all(np.array_equal(a, b) for a, b in zip(*runs))
    with pytest.raises(ConfigError, match="'batched_games' and 'rollout_workers'"):
        load_config(TINY, ["batched_games=true", "rollout_workers=2"])


def test_a_search_bot_in_the_pool_is_played_game_by_game():
    from sixtysix_training.sb3.batched_vec_env import BatchedSelfPlayVecEnv

    cfg = load_config(TINY, ["baseline_weights={'expert:samples=2,time_budget=0.001': 1.0, "
                             "heuristic: 1.0}"])
    env = BatchedSelfPlayVecEnv(4, OpponentPool.from_config(cfg.shared), cfg.shared.rules, seed=1)
    env.seed(2)
    env.reset()
    seen = set()
    for _ in range(40):
        masks = np.stack(env.env_method("action_masks"))
        _, _, dones, infos = env.step(masks.argmax(axis=1))
        seen |= {infos[i]["opponent_group"] for i in np.flatnonzero(dones)}
    assert env.tracking and len(seen) >= 1


def test_opponents_no_game_plays_are_let_go(monkeypatch):
    # Snapshots come and go in a long run: their batched forms must not pile up.
    from sixtysix_env.agents import make_agent
    from sixtysix_training.sb3 import batched_vec_env as bv

    monkeypatch.setattr(bv, "MAX_WRAPPERS", 3)
    cfg = load_config(TINY, ["baseline_weights={heuristic: 1.0}"])
    pool = OpponentPool.from_config(cfg.shared)
    env = bv.BatchedSelfPlayVecEnv(4, pool, cfg.shared.rules, seed=1)
    env.seed(2)
    env.reset()
    fresh = iter([make_agent("random") for _ in range(40)])
    monkeypatch.setattr(pool, "sample", lambda: ("random", "baselines", next(fresh)))
    for _ in range(80):
        masks = np.stack(env.env_method("action_masks"))
        env.step(masks.argmax(axis=1))
    # 40 opponents were drawn; at most one per game plus the newest are kept.
    assert len(env._wrappers) <= env.num_envs + 1
    assert all(env._wrappers[k].agent is not None for k in env.opponent.tolist())


# -- match_play: hands dealt at match scores, paid by the match ----------------------


def test_batched_games_deal_at_the_drawn_scores_and_pay_the_match():
    from sixtysix_env.policy.observation import INDEX as OBS_INDEX
    from sixtysix_training.sb3.batched_vec_env import BatchedSelfPlayVecEnv

    cfg = load_config(TINY, ["baseline_weights={heuristic: 1.0, random: 1.0}",
                             "batched_games=true", "match_play=true"])
    env = BatchedSelfPlayVecEnv.from_config(cfg, OpponentPool.from_config(cfg.shared))
    assert env.match is not None and env.match.target == 7
    env.tracking = True  # reference states beside every lane, dealt at the same scores
    finals = {}
    deal_anew = env._new_episodes

    def keep_final(lanes):  # each finished hand's last state, before its lane is dealt anew
        for i in lanes.tolist():
            finals[i] = (env.states[i], int(env.seat[i]), int(env.mine[i]), int(env.theirs[i]))
        deal_anew(lanes)

    env._new_episodes = keep_final
    env.seed(4)
    obs = env.reset()
    seen, paid = set(), 0
    for _ in range(60):
        # The score in each learner observation (suit renamings leave it in place).
        my = np.rint(obs[:, OBS_INDEX["my_score"]] * 7).astype(int)
        op = np.rint(obs[:, OBS_INDEX["opp_score"]] * 7).astype(int)
        assert (my == env.mine).all() and (op == env.theirs).all()
        seen |= set(zip(my.tolist(), op.tolist()))
        masks = np.stack(env.env_method("action_masks"))
        obs, rewards, dones, _ = env.step(masks.argmax(axis=1))
        for i in np.flatnonzero(dones).tolist():
            st, seat, mine, theirs = finals[i]
            assert st.is_terminal()
            assert st.match_score[seat] == mine and st.match_score[1 - seat] == theirs
            gp = int(st.returns()[seat])
            want = env.match.rewards(np.array([mine]), np.array([theirs]), np.array([gp]))[0]
            assert rewards[i] == pytest.approx(want)
            paid += 1
        assert (rewards[~dones] == 0).all()
    assert paid >= 10 and len(seen) >= 5


def test_match_play_needs_the_batched_games():
    with pytest.raises(ConfigError, match="'match_play' plays its hands on the batched engine"):
        load_config(TINY, ["match_play=true", "batched_games=false"])


def test_close_match_scores_deal_only_scores_near_the_target():
    from sixtysix_training.sb3.batched_vec_env import BatchedSelfPlayVecEnv

    cfg = load_config(TINY, ["batched_games=true", "match_play=true", "match_scores=close"])
    env = BatchedSelfPlayVecEnv.from_config(cfg, OpponentPool.from_config(cfg.shared))
    env.seed(2)
    env.reset()
    assert (np.maximum(env.mine, env.theirs) >= 4).all()


def test_match_scores_name_what_is_allowed_and_need_match_play():
    with pytest.raises(ConfigError, match="'match_scores' got 'near'; allowed values: 'reach', 'close'"):
        load_config(TINY, ["batched_games=true", "match_play=true", "match_scores=near"])
    with pytest.raises(ConfigError, match="set match_play to true"):
        load_config(TINY, ["batched_games=true", "match_scores=close"])


def test_win_bonus_adds_to_a_won_hand_and_takes_off_a_lost_one_on_the_same_games():
    """The same seeded games with and without win_bonus: each finished hand's reward is its
    game points plus the bonus times their sign; the games themselves do not change."""
    from sixtysix_training.sb3.batched_vec_env import BatchedSelfPlayVecEnv

    runs = {}
    for bonus in (0.0, 1.5):
        cfg = load_config(TINY, ["batched_games=true", f"win_bonus={bonus}"])
        env = BatchedSelfPlayVecEnv.from_config(cfg, OpponentPool.from_config(cfg.shared))
        env.seed(4)
        obs = env.reset()
        rng = np.random.default_rng(1)
        got = []
        for _ in range(40):
            masks = np.stack(env.env_method("action_masks"))
            acts = (rng.random(masks.shape) * masks).argmax(axis=1)
            obs, rewards, dones, _ = env.step(acts)
            got.append((obs.copy(), rewards.copy(), dones.copy()))
        runs[bonus] = got
    paid = 0
    for (o0, r0, d0), (o1, r1, d1) in zip(runs[0.0], runs[1.5], strict=True):
        assert np.array_equal(o0, o1) and np.array_equal(d0, d1)
        assert np.allclose(r1, r0 + 1.5 * np.sign(r0))
        paid += int((r0[d0] != 0).sum())
    assert paid >= 10


def test_win_bonus_needs_the_batched_games_and_no_match_play():
    with pytest.raises(ConfigError, match="'win_bonus' got -1"):
        load_config(TINY, ["batched_games=true", "win_bonus=-1"])
    for options in (["batched_games=false"], ["batched_games=true", "match_play=true"]):
        with pytest.raises(ConfigError, match="option 'win_bonus' .* set batched_games to true"):
            load_config(TINY, [*options, "win_bonus=1"])
