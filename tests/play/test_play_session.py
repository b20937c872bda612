"""The game session shared by ``sixtysix play`` and ``sixtysix serve``."""

from __future__ import annotations

import random

import pytest

from sixtysix_env import deal_from_deck, parse_action, play_actions, player_view
from sixtysix_env.agents import make_agent
from sixtysix_env.game.cards import card_code, parse_card
from sixtysix_env.play.session import (
    COMPUTER,
    HUMAN,
    GameSession,
    IllegalMove,
    card_for_move,
    default_opponent,
    explain_illegal,
    explain_result,
    moves,
    narrate,
    parse_card_text,
    sort_hand,
)

# Seat 0 (the person, non-dealer) gets AC TC KH QH AS 9D; clubs are trumps
# (KC face up); the stock starts 9C 9H.
STRICT_DECK = "AC TC KH JD QD KD QH AS 9D 9S JS QS KC 9C 9H JC QC JH TH AH TD AD TS KS"
# The person gets AC KH QH 9S JS 9D, clubs trumps (TC face up), draws 9C first.
MARRIAGE_DECK = "AC KH QH JD QD KD 9S JS 9D AS TS KS TC 9C JC QC KC 9H JH TH AH TD AD QS"


@pytest.mark.parametrize(
    "rules, actions, move, reason",
    [
        (None, [], "exchange", "do not hold the 9 of trumps"),
        (None, [], "marry-KH", "must win a trick before you can declare a marriage"),
        (None, [], "AD", "You do not hold A\u2666"),
        (None, [], "marry-QD", "you do not hold K\u2666 or Q\u2666"),
        (None, ["AC"], "KH", "not your turn"),
        (None, ["close", "9D", "JD", "JS"], "KH", "must follow suit with a spade"),
        (None, ["close", "9D", "JD", "QD"], "KH", "must play a trump (clubs)"),
        (None, ["AC", "9S", "close", "TC", "JS"], "marry-KH", "once the stock is closed"),
        (None, ["AC", "9S", "close", "TC", "JS"], "exchange", "The stock is closed"),
        (None, ["AC", "9S", "close", "TC", "JS"], "close", "already closed"),
        ("pagat66", [], "close", "do not allow closing before the first trick"),
    ],
)
def test_illegal_moves_are_explained(rules, actions, move, reason):
    state = play_actions(deal_from_deck(STRICT_DECK, dealer=1, rules=rules), actions)
    view = player_view(state, HUMAN)
    action = parse_action(move)
    assert not view.legal_mask >> action & 1
    assert reason in explain_illegal(view, action)


def test_hand_sorted_by_suit_trumps_last():
    state = deal_from_deck(STRICT_DECK, dealer=1)
    view = player_view(state, HUMAN)
    codes = sort_hand(view.hand, view.trump_suit)
    assert [card_code(c) for c in codes] == ["9D", "AS", "QH", "KH", "TC", "AC"]


def test_playing_king_or_queen_declares_when_possible():
    state = play_actions(deal_from_deck(MARRIAGE_DECK, dealer=1), ["AC", "JD"])
    view = player_view(state, HUMAN)
    assert card_for_move(view, parse_card("KH")) == parse_action("marry-KH")
    kinds = {m.name: m.kind for m in moves(view)}
    assert kinds["marry-KH"] == kinds["marry-QH"] == "marriage"
    assert "KH" not in kinds and kinds["exchange"] == "exchange" and kinds["close"] == "close"
    # Not yet allowed before a trick is won: the plain card is offered.
    view0 = player_view(deal_from_deck(MARRIAGE_DECK, dealer=1), HUMAN)
    assert card_for_move(view0, parse_card("KH")) == parse_card("KH")


def test_parse_card_text_accepts_symbols():
    assert parse_card_text("10\u2665") == parse_card("TH")
    assert parse_card_text(" k\u2660 ") == parse_card("KS")
    with pytest.raises(ValueError):
        parse_card_text("11H")


class FirstLegal:
    name = "first-legal"

    def __init__(self) -> None:
        self.views = []

    def act(self, view, rng):
        self.views.append(view)
        return view.legal_actions()[0]


def test_session_plays_the_computer_through_its_own_view():
    agent = FirstLegal()
    s = GameSession(opponent=agent, seed=3, deck=MARRIAGE_DECK)
    assert s.opponent_name == "first-legal"
    steps = s.act("AC")
    assert [st.seat for st in steps] == [HUMAN, COMPUTER]
    assert all(v.seat == COMPUTER for v in agent.views)
    text = " ".join(line for st in steps for line in narrate(st))
    assert "You lead A\u2663." in text and "You win the trick" in text


def test_illegal_action_changes_nothing():
    s = GameSession(opponent="random", seed=1, deck=MARRIAGE_DECK)
    before = s.view()
    for bad in ("AS", "exchange", "marry-KH", "nonsense", 99, None, "99"):
        with pytest.raises(IllegalMove):
            s.act(bad)
    assert s.view() == before


def test_a_whole_match_and_its_results():
    s = GameSession(opponent="random", seed=12)
    rng = random.Random(0)
    s.start()
    while not s.is_over():
        if s.is_hand_over():
            res = s.view().result
            assert explain_result(res)[0].isupper()
            yours, _ = s.revealed_hands()
            assert yours == s.view().hand
            s.next_hand()
            continue
        with pytest.raises(RuntimeError):
            s.revealed_hands()
        ms = moves(s.view())
        s.act(ms[rng.randrange(len(ms))].action)
    assert max(s.score) >= s.rules.match_target
    assert s.winner in (HUMAN, COMPUTER)
    with pytest.raises(IllegalMove):
        s.next_hand()
    with pytest.raises(IllegalMove):
        s.act("AC")


def test_unknown_opponent_is_an_error():
    with pytest.raises(ValueError, match="no-such-agent"):
        GameSession(opponent="no-such-agent")


def test_default_opponent_is_registered():
    make_agent(default_opponent())


def test_the_default_opponent_is_the_strongest_shipped_policy():
    """The leaderboard's files choose it (one source: sixtysix_env/ranking/standings.py's
    rule for the strongest network)."""
    from sixtysix_env.play.session import default_opponent
    from sixtysix_env.policy.shipped import shipped_names
    from sixtysix_env.ranking.standings import strongest

    best = strongest(shipped_names())
    assert best is not None, "no shipped network on the leaderboard"
    assert default_opponent() == best.agent
    assert GameSession(seed=1).opponent_name == best.agent


@pytest.mark.slow  # over a second: the full run, not the fast lane
def test_a_forced_answer_takes_as_long_as_a_real_choice():
    """With the stock closed, an instant answer told that the computer
    held one legal card. Every decision now takes at least min_think_seconds."""
    import time

    from sixtysix_env.play.session import COMPUTER

    least = 0.02
    rng = random.Random(0)
    forced_calls = 0
    for seed in range(3):
        s = GameSession("heuristic", seed=seed, min_think_seconds=least)
        started = False
        while not s.is_over():
            if not started:
                call, started = s.start, True
            elif s.is_hand_over():
                call = s.next_hand
            else:
                call = lambda: s.act(rng.choice(s.view().legal_actions()))  # noqa: E731
            forced_before = []
            real_act = s.agent.act

            def act(view, agent_rng, real_act=real_act, forced_before=forced_before):
                forced_before.append(len(view.legal_actions()) == 1)
                return real_act(view, agent_rng)

            s.agent.act = act
            t0 = time.perf_counter()
            steps = call()
            waited = s.pause()
            elapsed = time.perf_counter() - t0
            s.agent.act = real_act
            n = sum(1 for st in steps if st.seat == COMPUTER)
            assert n == len(forced_before)
            assert elapsed >= n * least * 0.999, (n, elapsed)
            if n and all(forced_before):
                forced_calls += 1
                assert waited > 0
    assert forced_calls >= 5


def test_min_think_seconds_is_checked():
    with pytest.raises(ValueError, match="min_think_seconds must be a number of seconds from 0 to 10"):
        GameSession("random", seed=0, min_think_seconds=float("nan"))
