"""One rule for integer inputs; observations callers cannot corrupt."""

from __future__ import annotations

import re

import gymnasium
import numpy as np
import pytest

import sixtysix_env  # noqa: F401 - registers SixtySix-v0
from sixtysix_env import deal_from_deck, new_hand, sixtysix_v0
from sixtysix_env.game.actions import action_name, parse_action
from sixtysix_env.util.checks import as_int, as_seat, as_seed, is_int
from sixtysix_env.util.errors import DeckError, IllegalActionError

DECK = list(range(24))


@pytest.mark.parametrize(
    "x, ok",
    [
        (3, True),
        (np.int64(3), True),
        (np.uint8(3), True),
        (np.array(3), True),  # a 0-d integer array
        (True, False),
        (np.True_, False),
        (3.0, False),
        (np.float32(3), False),
        ("3", False),
        (np.array([3]), False),
        (None, False),
    ],
)
def test_the_one_rule(x, ok):
    assert is_int(x) is ok
    if ok:
        assert as_int(x, "x") == 3 and type(as_int(x, "x")) is int
    else:
        with pytest.raises(TypeError, match="x must be a Python or numpy integer"):
            as_int(x, "x")


def test_seat_and_seed_helpers():
    assert as_seat(np.int64(1)) == 1
    with pytest.raises(ValueError, match="seat 0 or 1"):
        as_seat(2)
    with pytest.raises(TypeError):
        as_seat(True)
    assert as_seed(None) is None and as_seed(np.int64(5)) == 5
    with pytest.raises(TypeError):
        as_seed(5.0)


def test_is_legal_agrees_with_apply():
    s = new_hand(seed=3)
    legal = s.legal_actions()
    a = legal[0]
    # numpy integers: legal, and apply takes them
    assert s.is_legal(np.int64(a))
    assert s.apply(np.int64(a)) == s.apply(a)
    # names too, like apply
    assert s.is_legal(action_name(a))
    # bools, floats, arrays: not actions, for both
    for x in (True, False, float(a), np.array([a]), np.True_):
        assert not s.is_legal(x), x
        with pytest.raises(IllegalActionError, match="not an action"):
            s.apply(x)
    assert s.legal_actions() == legal  # nothing changed


def test_parse_action_and_action_name_refuse_bools_and_floats():
    with pytest.raises(ValueError, match="not an action"):
        parse_action(True)
    with pytest.raises(ValueError, match="not an action"):
        parse_action(3.0)
    assert parse_action(np.int16(33)) == 33
    with pytest.raises(ValueError, match="not an action id"):
        action_name(True)
    assert action_name(np.int64(32)) == "exchange"


def test_deal_from_deck_inputs():
    ref = deal_from_deck(DECK, dealer=1)
    assert deal_from_deck(np.arange(24), dealer=np.int64(1)) == ref
    assert deal_from_deck([np.int64(c) for c in DECK]) == ref
    with pytest.raises(DeckError, match="a deck is 24 card codes"):
        deal_from_deck(None)
    with pytest.raises(DeckError, match="position 1"):
        deal_from_deck([True] + DECK[1:])
    for bad in (1.0, True):
        with pytest.raises(TypeError, match="dealer"):
            deal_from_deck(DECK, dealer=bad)
    with pytest.raises(ValueError, match="dealer must be seat 0 or 1"):
        deal_from_deck(DECK, dealer=2)
    for bad in (5, (1,), (1, 2, 3), "abc"):
        with pytest.raises(ValueError, match="match_score must be a pair"):
            deal_from_deck(DECK, match_score=bad)
    with pytest.raises(TypeError, match="match_score"):
        deal_from_deck(DECK, match_score=(1.5, 0))
    with pytest.raises(ValueError, match=">= 0"):
        deal_from_deck(DECK, match_score=(-1, 0))
    assert deal_from_deck(DECK, match_score=(np.int64(3), 2)).match_score == (3, 2)


def test_new_hand_inputs():
    assert new_hand(seed=np.int64(5)) == new_hand(seed=5)
    with pytest.raises(TypeError, match="dealer"):
        new_hand(seed=1, dealer=True)
    with pytest.raises(TypeError, match="seed"):
        new_hand(seed=1.5)


def test_aec_env_step_refuses_bools_clearly():
    e = sixtysix_v0.env()
    e.reset(seed=0)
    for bad in (True, 3.0, np.array([3])):
        with pytest.raises(IllegalActionError, match="not an action id"):
            e.step(bad)
    # a numpy integer is an action
    obs, *_ = e.last()
    e.step(np.int64(int(np.flatnonzero(obs["action_mask"])[0])))
    raw = sixtysix_v0.raw_env()
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError, match="not an action id"):
        raw.step(True)


def test_env_resets_take_numpy_seeds_and_refuse_bools():
    raw = sixtysix_v0.raw_env()
    raw.reset(seed=np.int64(5))
    a = raw.game_state
    raw.reset(seed=5)
    assert raw.game_state == a
    with pytest.raises(TypeError, match="seed"):
        raw.reset(seed=True)
    g = gymnasium.make("SixtySix-v0")
    o1, _ = g.reset(seed=np.int64(5))
    o2, _ = g.reset(seed=5)
    assert np.array_equal(o1["observation"], o2["observation"])
    with pytest.raises(IllegalActionError, match="not an action id"):
        g.step(True)


def test_observe_cannot_corrupt_the_env():
    raw = sixtysix_v0.raw_env()
    raw.reset(seed=1)
    agent = raw.agent_selection
    first = raw.observe(agent)
    ref_obs, ref_mask = first["observation"].copy(), first["action_mask"].copy()
    first["observation"][:] = 7.0
    first["action_mask"][:] = 1
    again = raw.observe(agent)
    assert np.array_equal(again["observation"], ref_obs)
    assert np.array_equal(again["action_mask"], ref_mask)


def test_wrapped_env_mask_check_sees_the_true_mask():
    # A caller that zeroes the mask it was handed must not make the
    # TerminateIllegalWrapper refuse a legal move (it reads the env's mask).
    e = sixtysix_v0.env()
    e.reset(seed=2)
    obs, *_ = e.last()
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    obs["action_mask"][:] = 0
    e.step(legal)
    assert not any(e.terminations.values())


class _BoolAgent:
    """Answers True (Python counts it as 1) whenever action 1 is legal, else a legal id."""

    name = "boolean"

    def act(self, view, rng):
        legal = view.legal_actions()
        return True if 1 in legal else legal[0]


def test_agents_answering_bools_are_refused_by_eval_and_the_single_agent_env():
    from sixtysix_env.evaluation import IllegalAgentActionError, evaluate

    with pytest.raises(IllegalAgentActionError, match="True"):
        evaluate([_BoolAgent(), "random"], deals=200, seed=0)
    g = gymnasium.make("SixtySix-v0", opponent=_BoolAgent(), learner_seat=0)
    with pytest.raises(IllegalActionError, match="True"):
        for ep in range(200):
            obs, _ = g.reset(seed=ep)
            done = False
            while not done:
                a = int(np.flatnonzero(obs["action_mask"])[0])
                obs, _, done, _, _ = g.step(a)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("expert:samples=nan", "samples must be a whole number from 1 to 100000, got nan"),
        ("expert:samples=inf", "samples must be a whole number from 1 to 100000, got inf"),
        ("expert:samples=1e9", "samples must be a whole number"),
        ("expert:samples=1000000", "samples must be a whole number from 1 to 100000"),
        ("expert:samples=2.5", "samples must be a whole number"),
        ("expert:time_budget=nan", "time_budget must be a number"),
        ("expert:time_budget=inf", "time_budget must be a number from 0.001 to 3600"),
        ("expert:margin=nan", "margin must be a number"),
        ("expert:prune_gap=-1", "prune_gap must be a number from 0 to 100"),
        ("expert:min_samples=0", "min_samples must be a whole number"),
        ("expert:exact_last_trick=3", "exact_last_trick must be true or false"),
        ("guided:samples=inf", "samples must be a whole number"),
        ("heuristic:likely_points_per_trick=nan", "likely_points_per_trick must be a whole number"),
    ],
)
def test_agent_spec_values_are_checked_by_range(spec, message):
    """NaN, inf and huge values were accepted (samples=nan ->
    ZeroDivisionError in the search, samples=inf never returned)."""
    from sixtysix_env.agents import make_agent
    from sixtysix_env.agents.registry import AgentSpecError

    with pytest.raises(AgentSpecError, match=re.escape(message)):
        make_agent(spec)
