"""``match_play``: training hands dealt at match scores and rewarded by the match.

The match equity table is checked against a brute-force simulation of matches, the
scores matches reach against the same simulation, and the batched training games
against the reference engine (the score in the observation, the reward of each hand).
"""

from __future__ import annotations

import importlib.util
import os
import random

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None or importlib.util.find_spec("numba") is None,
    reason="the [train] extra is not installed",
)
pytest.importorskip("msgspec")
pytest.importorskip("yaml")

from sixtysix_training.config import ConfigError, load_config  # noqa: E402
from sixtysix_training.match_equity import HAND_POINTS, MatchEquity  # noqa: E402
from sixtysix_training.pool import OpponentPool  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TINY = os.path.join(ROOT, "configs", "tiny.yaml")


def _simulate(target: int, start: tuple[int, int], matches: int, seed: int):
    """Matches between equal players from ``start``: how often the first side wins, and
    how many hands were played at each score."""
    rng = random.Random(seed)
    points, weights = zip(*HAND_POINTS.items())
    wins = 0
    visits = np.zeros((target, target))
    for _ in range(matches):
        a, b = start
        while a < target and b < target:
            visits[a, b] += 1
            g = rng.choices(points, weights)[0]
            if rng.random() < 0.5:
                a += g
            else:
                b += g
        wins += a >= target
    return wins / matches, visits / matches


def test_the_table_is_the_chance_to_win_as_simulated():
    m = MatchEquity(7)
    assert np.allclose(m.table + m.table.T, 1.0)  # one side wins
    assert m.table[0, 0] == pytest.approx(0.5) and m.table[6, 6] == pytest.approx(0.5)
    assert (np.diff(m.table, axis=0) > 0).all() and (np.diff(m.table, axis=1) < 0).all()
    for start in [(0, 0), (2, 5), (6, 4), (5, 6)]:
        won, _ = _simulate(7, start, 20_000, seed=sum(start))
        assert won == pytest.approx(m.table[start], abs=0.012), start


def test_the_scores_are_drawn_as_matches_reach_them():
    m = MatchEquity(7)
    _, visits = _simulate(7, (0, 0), 20_000, seed=1)
    assert np.abs(m.reach - visits).max() < 0.02
    drawn = m.draw_scores(np.random.default_rng(0), 50_000)
    counts = np.zeros((7, 7))
    np.add.at(counts, (drawn[:, 0], drawn[:, 1]), 1)
    assert np.abs(counts / len(drawn) - m.reach / m.reach.sum()).max() < 0.006


def test_the_reward_is_the_change_in_the_chance_to_win_times_the_target():
    m = MatchEquity(7)
    mine, theirs = np.array([0, 6, 6, 0, 4]), np.array([0, 6, 6, 6, 5])
    gp = np.array([1, 1, -3, 3, 3])
    want = [m.table[1, 0] - 0.5, 0.5, -0.5, m.table[3, 6] - m.table[0, 6], 1.0 - m.table[4, 5]]
    assert np.allclose(m.rewards(mine, theirs, gp), np.array(want) * 7)
    assert MatchEquity(11).table.shape == (11, 11)
    with pytest.raises(ValueError, match="target must be"):
        MatchEquity(0)


def test_batched_games_deal_at_the_drawn_scores_and_pay_the_match():
    from sixtysix_env.env.observation import INDEX as OBS_INDEX
    from sixtysix_training.batched_vec_env import BatchedSelfPlayVecEnv

    cfg = load_config(TINY, ["baseline_weights={heuristic: 1.0, random: 1.0}",
                             "batched_games=true", "match_play=true"])
    env = BatchedSelfPlayVecEnv.from_config(cfg, OpponentPool.from_config(cfg))
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
