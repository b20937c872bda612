"""The words of a match against the computer: its voice ("you", "the computer"), the
narration of each step, the hand's and the match's result, cards in words.

The person is seat 0 (``play.session.HUMAN``), spoken to in the second person;
the computer is seat 1. A step (``play.session.Step``) is read by its fields:
the session sits above this module. The sentences of the game itself (an event, a
hand's result, a refusal) are the rules tower's, in ``game.wording``; this module
gives them the match's voice (``game.wording.play`` is an alias of this module).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..game.actions import CLOSE, EXCHANGE, FIRST_MARRIAGE, action_card
from ..game.cards import NUM_RANKS, SUIT_NAMES, card_label, cards_of
from ..game.rules import trick_points
from ..game.wording.events import close_sentence, exchange_sentence, marriage_sentence
from ..game.wording.results import explain_hand, hand_headline
from ..game.wording.results import points_breakdown as points_breakdown  # re-exported
from ..game.wording.voice import named

if TYPE_CHECKING:  # only for annotations: the session sits above this module
    from ..game.events import HandResult
    from .session import Step

NAMES = ("you", "the computer")
#: The person's side of every sentence: "you lead", "the computer leads".
VOICE = named(NAMES, second_person=frozenset({0}))


def who(seat: int, capital: bool = True) -> str:
    return VOICE.who(seat, capital)


def verb(seat: int, base: str) -> str:
    """``lead`` for you, ``leads`` for the computer."""
    return VOICE.verb(seat, base)


def rank_word(c: int) -> str:
    return ("9", "jack", "queen", "king", "10", "ace")[c % NUM_RANKS]


def card_words(c: int) -> str:
    """``the king of hearts``."""
    return f"the {rank_word(c)} of {SUIT_NAMES[c // NUM_RANKS]}"


def narrate(step: Step, name: Callable[[int], str] = card_label) -> list[str]:
    """Sentences saying what a step did, from the person's side."""
    s, a, before, after = step.seat, step.action, step.before, step.after
    w = who(s)
    out = []
    if a in (EXCHANGE, CLOSE) or a >= FIRST_MARRIAGE:
        # The event this action logged, in the events' sentence.
        sentence = {EXCHANGE: exchange_sentence, CLOSE: close_sentence}.get(a, marriage_sentence)
        out.append(sentence(after.events[-1], VOICE, name, True) + ".")
    else:
        c = action_card(a)
        if before.lead_card is None:
            out.append(f"{w} {verb(s, 'lead')} {name(c)}.")
        else:
            out.append(f"{w} {verb(s, 'play')} {name(c)}.")
    t = step.trick
    if t is not None:
        out.append(f"{who(t.winner)} {verb(t.winner, 'win')} the trick ({trick_points(t)} points).")
        drawn = cards_of(after.hand & ~before.hand)
        if drawn and after.result is None:  # a trick that ends the hand is told with no draw
            out.append(f"You draw {name(drawn[0])}.")
    if after.result is not None and before.result is None:
        out.append(explain_result(after.result))
    return out


def explain_result(result: HandResult) -> str:
    """``HandResult.explain`` in the person's words (you / the computer)."""
    return explain_hand(result, VOICE)


def result_headline(result: HandResult) -> str:
    """``You win the hand: 2 game points.``"""
    return hand_headline(result, VOICE)


def match_headline(winner: int, score: tuple[int, int]) -> str:
    """``You win the match 7 - 3!``: the match's end, the winner's points first."""
    you, computer = score
    if winner in VOICE.second_person:
        return f"You win the match {you} - {computer}!"
    return f"The computer wins the match {computer} - {you}."
