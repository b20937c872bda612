"""The wording layer holds the sentences; the session and render hand out the same ones."""

from __future__ import annotations

import pytest

from sixtysix_env.game import render, wording
from sixtysix_env.game.events import Close, HandResult
from sixtysix_env.game.wording import refusals
from sixtysix_env.play import session
from sixtysix_env.play import wording as play


def test_the_play_voice_speaks_to_the_person_and_names_the_computer():
    assert play.VOICE.second_person == {session.HUMAN}
    assert play.who(session.HUMAN) == "You" and play.who(session.COMPUTER) == "The computer"
    assert play.verb(session.HUMAN, "lead") == "lead"
    assert play.verb(session.COMPUTER, "lead") == "leads"


@pytest.mark.parametrize(
    "name",
    ["narrate", "explain_result", "result_headline", "points_breakdown", "card_words",
     "rank_word", "VOICE", "NAMES", "who", "verb"],
)
def test_the_session_re_exports_the_play_words(name):
    assert getattr(session, name) is getattr(play, name)


@pytest.mark.parametrize("name", ["explain_illegal", "REFUSAL_WORDS"])
def test_the_session_re_exports_the_refusals(name):
    assert getattr(session, name) is getattr(refusals, name)


def test_render_picks_the_wording_layers_sentence_and_refuses_what_is_no_event():
    e = Close(seat=1, tricks_done=2)
    assert render.describe_event(e) == wording.close_sentence(e, wording.Voice(), str) == (
        "seat 1 closes the stock"
    )
    assert render.describe_event(e, play.VOICE, capital=True) == "The computer closes the stock"
    with pytest.raises(TypeError, match="not an event of a hand"):
        render.describe_event(("not", "an", "event"))


def test_the_match_and_hand_headlines():
    assert play.match_headline(session.HUMAN, (7, 3)) == "You win the match 7 - 3!"
    assert play.match_headline(session.COMPUTER, (2, 7)) == "The computer wins the match 7 - 2."
    won = HandResult(1, 2, "went_out", (60, 20), (20, 0), (3, 1), (80, 20), None, None)
    assert play.result_headline(won) == "The computer wins the hand: 2 game points."
    assert wording.hand_headline(won) == "Seat 1 wins the hand: 2 game points."
    assert won.explain() == wording.explain_hand(won)
