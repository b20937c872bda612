"""The PettingZoo AEC environment ``sixtysix_v0``."""

from __future__ import annotations

import pickle
import random
import warnings

import numpy as np
import pytest
from _lanes import two_presets_in_the_fast_lane
from pettingzoo.test import api_test, render_test, seed_test

from sixtysix_env import (
    CLOSE,
    EXCHANGE,
    PRESETS,
    IllegalActionError,
    RuleConfig,
    make_rules,
    player_view,
    sixtysix_v0,
)
from sixtysix_env.env.core import HAND_REASONS
from sixtysix_env.policy.observation import OBS_SIZE, encode_view

AGENTS = ("player_0", "player_1")


def mask_bits(mask: np.ndarray) -> int:
    return sum(1 << int(i) for i in np.flatnonzero(mask))


def play_out(env, rng: random.Random) -> int:
    """Play random legal (mask-sampled) moves to the end; returns the steps taken."""
    steps = 0
    for _ in env.agent_iter():
        obs, _reward, term, trunc, _info = env.last()
        if term or trunc:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.randrange(len(legal))])
        env.step(action)
        steps += 1
    return steps


# -- PettingZoo's own conformance tests ------------------------------------------


@pytest.fixture(autouse=True)
def _quiet_api_warnings():
    # api_test warns about Dict observations, which classic environments use.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation", category=UserWarning)
        yield


@pytest.mark.parametrize("factory", [sixtysix_v0.env, sixtysix_v0.raw_env], ids=["env", "raw_env"])
@pytest.mark.parametrize("mode", ["hand", "match"])
def test_api_test(factory, mode):
    api_test(factory(mode=mode), num_cycles=300)


@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_api_test_presets(rules):
    api_test(sixtysix_v0.env(rules=rules), num_cycles=200)


@pytest.mark.parametrize("factory", [sixtysix_v0.env, sixtysix_v0.raw_env], ids=["env", "raw_env"])
def test_seed_test(factory):
    seed_test(factory, num_cycles=200)
    seed_test(lambda: factory(mode="match", hand_rewards=True), num_cycles=200)


@pytest.mark.parametrize("factory", [sixtysix_v0.env, sixtysix_v0.raw_env], ids=["env", "raw_env"])
def test_render_test(factory, capsys):
    render_test(factory)
    assert "Sixty-Six" in capsys.readouterr().out  # human mode printed the table


def test_metadata_and_spaces():
    env = sixtysix_v0.raw_env()
    assert env.metadata["name"] == "sixtysix_v0"
    assert env.metadata["render_modes"] == ["human", "ansi"]
    assert env.metadata["is_parallelizable"] is False
    assert env.possible_agents == list(AGENTS)
    for a in AGENTS:
        assert env.action_space(a).n == 34
        space = env.observation_space(a)
        assert space["observation"].shape == (OBS_SIZE,)
        assert space["observation"].dtype == np.float32
        assert space["action_mask"].shape == (34,)
        assert space["action_mask"].dtype == np.int8


# -- masks, turn order, rewards ----------------------------------------------------


@pytest.mark.slow  # over a second: the full run, not the fast lane
@pytest.mark.parametrize("rules", sorted(PRESETS))
def test_mask_is_the_engines_legal_actions_every_step(rules):
    """A thousand random hands per preset: the mask is the engine's legal actions for
    the seat to act (never empty), all zeros for the other seat; the observation is
    the encoding of the player's view; exchange and close keep the turn."""
    env = sixtysix_v0.raw_env(rules=rules)
    rng = random.Random(len(rules))
    steps = exchanges = closes = 0
    for game in range(1000):
        env.reset(seed=game)
        while env.agents:
            agent = env.agent_selection
            obs, _, term, trunc, _ = env.last()
            state = env.game_state
            seat = AGENTS.index(agent)
            if term or trunc:
                assert state.is_terminal() and not obs["action_mask"].any()
                env.step(None)
                continue
            assert state.current_player() == seat
            assert mask_bits(obs["action_mask"]) == state.legal_mask() != 0
            assert not env.observe(AGENTS[1 - seat])["action_mask"].any()
            assert obs["observation"].tobytes() == encode_view(player_view(state, seat)).tobytes()
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.randrange(len(legal))])
            env.step(action)
            steps += 1
            if action in (EXCHANGE, CLOSE):
                assert env.agent_selection == agent  # the turn is not passed
                exchanges += action == EXCHANGE
                closes += action == CLOSE
    # (a preset without closing, schnapsen-vu, never closes)
    assert steps > 10_000 and exchanges > 0 and (closes > 0) == make_rules(rules).closing


# The fast lane plays the first 100 of the 300 seeded games (each of 1, 2 and 3 game points
# comes up in the first 15 in both presets); the full suite all of them.
@pytest.mark.parametrize("games", [pytest.param(100, id="100"),
                                   pytest.param(300, id="300", marks=pytest.mark.slow)])
@pytest.mark.parametrize("rules", two_presets_in_the_fast_lane(sorted(PRESETS)))
def test_hand_rewards_are_zero_sum_game_points(rules, games):
    env = sixtysix_v0.env(rules=rules)
    rng = random.Random(3)
    totals = set()
    for game in range(games):
        env.reset(seed=1000 + game)
        returns = dict.fromkeys(AGENTS, 0.0)
        result = None
        for agent in env.agent_iter():
            obs, reward, term, trunc, _info = env.last()
            returns[agent] += reward
            if term or trunc:
                result = env.unwrapped.game_state.result
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
        assert result is not None
        assert (returns["player_0"], returns["player_1"]) == result.returns()
        assert returns["player_0"] + returns["player_1"] == 0
        totals.add(abs(returns["player_0"]))
    assert totals >= {1.0, 2.0, 3.0}


# Every preset without hand rewards in the fast lane, and with them a 24-card and a
# 20-card one; the other three with hand rewards in the full suite.
@pytest.mark.parametrize("weight, rules", [(0.0, r) for r in sorted(PRESETS)] + [
    (0.5, r) if r in ("altmisalti", "schnapsen") else pytest.param(0.5, r, marks=pytest.mark.slow)
    for r in sorted(PRESETS)])
def test_match_ends_exactly_at_the_target(rules, weight):
    env = sixtysix_v0.raw_env(rules=rules, mode="match", hand_rewards=weight)
    target = PRESETS[rules].match_target
    rng = random.Random(11)
    for game in range(12):
        env.reset(seed=game)
        returns = dict.fromkeys(AGENTS, 0.0)
        hands = 0
        for agent in env.agent_iter():
            obs, reward, term, trunc, _info = env.last()
            returns[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            match = env.match
            if env.agents and env.infos[agent]["hand_over"]:
                info = env.infos[agent]
                hands = info["hands_played"]
                assert hands == len(match.results)
                res = env.last_hand_result
                assert res is match.results[-1]
                assert (info["hand_winner"], info["hand_reason"]) == (
                    -1 if res.winner is None else res.winner,
                    HAND_REASONS.index(res.reason),
                )
                assert [info["score_0"], info["score_1"]] == match.score
                # The episode goes on exactly while nobody has reached the target.
                assert all(env.terminations.values()) == (max(match.score) >= target)
        match = env.match
        assert max(match.score) >= target and hands == len(match.results)
        scored = [sum(g) for g in match.scored]
        before = [sum(g[i] for g in match.scored[:-1]) for i in (0, 1)]
        assert max(before) < target  # the match did not go on past the target
        assert sum(scored) == sum(match.score)
        w = match.winner
        diff = match.score[0] - match.score[1]
        expect0 = (1.0 if w == 0 else -1.0) + weight * diff
        assert returns["player_0"] == pytest.approx(expect0)
        assert returns["player_0"] + returns["player_1"] == pytest.approx(0.0)


def test_match_observation_carries_the_score():
    env = sixtysix_v0.raw_env(mode="match")
    rng = random.Random(2)
    env.reset(seed=4)
    seen_scores = set()
    while env.agents:
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        state = env.game_state
        seat = AGENTS.index(agent)
        ms = state.match_score
        idx = sixtysix_v0_index("my_score")
        assert obs["observation"][idx] == np.float32(ms[seat] / 7)
        assert obs["observation"][idx + 1] == np.float32(ms[1 - seat] / 7)
        seen_scores.add(ms)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    assert len(seen_scores) > 2


def sixtysix_v0_index(name: str) -> int:
    from sixtysix_env.policy.observation import INDEX

    return INDEX[name]


# -- seeding ----------------------------------------------------------------------


def _trajectory(env, seed, policy_seed=0):
    env.reset(seed=seed)
    rng = random.Random(policy_seed)
    out = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    return out


def test_seeded_reset_replays_whole_episodes():
    a, b = sixtysix_v0.env(mode="match"), sixtysix_v0.env(mode="match")
    assert _trajectory(a, 7) == _trajectory(b, 7)
    assert _trajectory(a, 7) != _trajectory(a, 8)


def test_reset_without_seed_continues_the_generator():
    env = sixtysix_v0.raw_env()
    firsts = []
    for seed in (5, None, None):
        env.reset(seed=seed)
        firsts.append((env.game_state.hands, env.game_state.dealer, env.game_state.stock_cards))
    env.reset(seed=5)
    again = [(env.game_state.hands, env.game_state.dealer, env.game_state.stock_cards)]
    env.reset()
    again.append((env.game_state.hands, env.game_state.dealer, env.game_state.stock_cards))
    assert firsts[:2] == again
    assert len(set(firsts)) == 3


def test_dealer_is_drawn_from_the_seeded_generator():
    env = sixtysix_v0.raw_env()
    dealers = set()
    for seed in range(40):
        env.reset(seed=seed)
        dealers.add(env.game_state.dealer)
        # The non-dealer leads.
        assert env.agent_selection == AGENTS[1 - env.game_state.dealer]
    assert dealers == {0, 1}


# -- pickling ---------------------------------------------------------------------


@pytest.mark.parametrize("factory", [sixtysix_v0.env, sixtysix_v0.raw_env], ids=["env", "raw_env"])
def test_pickle_round_trip_mid_game(factory):
    env = factory(mode="match")
    env.reset(seed=3)
    rng = random.Random(0)
    for _ in range(30):
        obs, *_ = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    clone = pickle.loads(pickle.dumps(env))
    assert clone.agent_selection == env.agent_selection
    r1, r2 = random.Random(9), random.Random(9)
    for _ in range(200):
        if not env.agents:
            break
        o1, w1, t1, u1, _ = env.last()
        o2, w2, t2, u2, _ = clone.last()
        assert o1["observation"].tobytes() == o2["observation"].tobytes()
        assert (w1, t1, u1) == (w2, t2, u2)
        if t1 or u1:
            env.step(None)
            clone.step(None)
            continue
        legal = np.flatnonzero(o1["action_mask"])
        env.step(int(legal[r1.randrange(len(legal))]))
        clone.step(int(legal[r2.randrange(len(legal))]))
    fresh = pickle.loads(pickle.dumps(factory()))
    fresh.reset(seed=1)
    assert fresh.agents == list(AGENTS)


# -- illegal moves and bad options ---------------------------------------------------


def _illegal_action(env) -> int:
    legal = env.unwrapped.game_state.legal_mask()
    return next(a for a in range(34) if not legal >> a & 1)


def test_raw_env_raises_on_illegal_actions_naming_them():
    env = sixtysix_v0.raw_env()
    env.reset(seed=1)
    bad = _illegal_action(env)
    legal = env.game_state.legal_actions()
    with pytest.raises(IllegalActionError) as err:
        env.step(bad)
    msg = str(err.value)
    assert f"(id {bad})" in msg and "legal actions:" in msg
    assert all(f"({a})" in msg for a in legal)
    assert err.value.legal_actions == tuple(legal)
    for wrong in (34, -1, 99, np.int64(40)):
        with pytest.raises(IllegalActionError, match="not an action id 0-33"):
            env.step(wrong)
    for wrong in ("QH", 1.5, True):
        with pytest.raises(IllegalActionError, match="legal actions"):
            env.step(wrong)
    # Nothing changed: a legal numpy integer still plays.
    env.step(np.int64(legal[0]))


@pytest.mark.parametrize(
    "kwargs, penalty",
    [
        ({}, -3.0),
        ({"mode": "match"}, -1.0),
        ({"mode": "match", "hand_rewards": True}, -10.0),
        ({"mode": "match", "hand_rewards": 0.5, "rules": "santase"}, -7.5),
        ({"illegal_reward": -5}, -5.0),
    ],
)
def test_env_terminates_an_illegal_move_with_the_penalty(kwargs, penalty):
    env = sixtysix_v0.env(**kwargs)
    env.reset(seed=2)
    offender = env.agent_selection
    env.step(_illegal_action(env))
    assert all(env.terminations.values())
    rewards = {}
    for agent in env.agent_iter():
        _, reward, _term, _trunc, _ = env.last()
        rewards[agent] = reward
        env.step(None)
    assert rewards[offender] == penalty
    assert rewards[AGENTS[1 - AGENTS.index(offender)]] == 0


def test_default_penalty_is_no_milder_than_the_worst_loss():
    assert sixtysix_v0.raw_env().worst_loss() == 3
    with pytest.raises(ValueError, match="milder than the worst loss"):
        sixtysix_v0.env(illegal_reward=-2)
    with pytest.raises(ValueError, match="milder than the worst loss"):
        sixtysix_v0.env(mode="match", hand_rewards=True, illegal_reward=-3)


def test_env_asserts_out_of_range_actions():
    env = sixtysix_v0.env()
    env.reset(seed=0)
    with pytest.raises(AssertionError):
        env.step(34)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"rules": "bridge"}, "allowed: a preset name .*altmisalti"),
        ({"rules": 7}, "rules must be a preset name"),
        ({"rules": {"must_beat": True}}, "unknown rule switch"),
        ({"mode": "tournament"}, "allowed modes: 'hand', 'match'"),
        ({"hand_rewards": True}, "only applies to mode='match'"),
        ({"mode": "match", "hand_rewards": -1}, "non-negative weight"),
        ({"render_mode": "rgb_array"}, "allowed: None, 'human', 'ansi'"),
        ({"render_agent": "player_2"}, "agents: player_0, player_1"),
    ],
)
def test_bad_options_name_the_allowed_values(kwargs, match):
    with pytest.raises(ValueError, match=match):
        sixtysix_v0.raw_env(**kwargs)


def test_rules_accepts_a_rule_config():
    config = RuleConfig(name="short", match_target=2)
    env = sixtysix_v0.raw_env(rules=config, mode="match")
    env.reset(seed=0)
    play_out(env, random.Random(0))
    assert max(env.match.score) >= 2
    assert env.rules is config


# -- rendering --------------------------------------------------------------------


def test_ansi_render_neutral_and_one_players_view():
    neutral = sixtysix_v0.raw_env(render_mode="ansi")
    neutral.reset(seed=1)
    text = neutral.render()
    state = neutral.game_state
    assert "seat 0:" in text and "seat 1:" in text
    mine = sixtysix_v0.raw_env(render_mode="ansi", render_agent="player_0")
    mine.reset(seed=1)
    text0 = mine.render()
    assert "Seat 0's view" in text0 and "your hand" in text0
    from sixtysix_env.game.render import hand_text

    assert hand_text(state.hand(1)) not in text0  # the opponent's cards stay hidden
    match = sixtysix_v0.raw_env(render_mode="ansi", mode="match")
    match.reset(seed=1)
    assert match.render().startswith("Match (altmisalti) to 7: score 0-0, hand 1")


def test_render_without_mode_warns_and_returns_none():
    env = sixtysix_v0.raw_env()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render"):
        assert env.render() is None


def test_repeated_observe_returns_fresh_arrays():
    env = sixtysix_v0.raw_env()
    env.reset(seed=0)
    a = env.observe("player_0")
    b = env.observe("player_0")
    assert a["observation"] is not b["observation"]
    assert not np.shares_memory(a["observation"], b["observation"])
    assert a["observation"].tobytes() == b["observation"].tobytes()
    assert a["action_mask"].tobytes() == b["action_mask"].tobytes()


def test_help_names_the_env_in_plain_words():
    import inspect
    import pydoc

    from sixtysix_env import sixtysix_v0 as page

    synopsis = pydoc.splitdoc(inspect.getdoc(page))[0]
    assert synopsis.startswith("Sixty-Six") and not synopsis.startswith(("#", "|"))
