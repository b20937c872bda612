"""The refusals: why a move the person asks for is not legal now, in a sentence or two.

The reasons come from the rule functions the engine builds its legal mask with
(:func:`~sixtysix_env.game.rules.follow_refusal` and the others, each refusal a code
of :data:`~sixtysix_env.game.rules.REFUSALS`); :data:`REFUSAL_WORDS` words each code.
The view is read by its fields (a :class:`~sixtysix_env.game.view.PlayerView`; the
views sit above this layer).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..actions import CLOSE, EXCHANGE, FIRST_MARRIAGE, action_card, action_name
from ..cards import KING, NUM_RANKS, QUEEN, RANK_NAMES, SUIT_NAMES, card, card_label, cards_of
from ..rules import (
    FIRST_LEAD,
    KING_ONLY,
    MARRIAGE_PHASE,
    MUST_BEAT,
    MUST_FOLLOW,
    MUST_TRUMP,
    NO_CLOSING,
    NO_TRICK_YET,
    NOT_HELD,
    STOCK_CLOSED,
    STOCK_EXHAUSTED,
    STOCK_TOO_SMALL,
    close_refusal,
    exchange_refusal,
    follow_refusal,
    marriage_refusal,
)

if TYPE_CHECKING:  # only for annotations: the views sit above this layer
    from ..view import PlayerView

#: The session's refusals between hands and after the match (``GameSession.act``,
#: ``GameSession.next_hand``).
HAND_OVER = "The hand is over: start the next hand."
MATCH_OVER = "The match is over: start a new match."
HAND_IN_PLAY = "The hand is still being played."


def not_an_action(action: object) -> str:
    """The refusal of something that is no action at all."""
    return f"{action!r} is not an action."


def explain_illegal(view: PlayerView, action: int, name: Callable[[int], str] = card_label) -> str:
    """Why ``action`` is not legal for the person in ``view`` (one sentence or two).

    The reasons come from the rule functions the engine builds its legal mask
    with (:func:`~sixtysix_env.game.rules.follow_refusal` and the others), worded here.
    """
    rules = view.rules
    if view.result is not None:
        return "The hand is over."
    if view.to_move != view.seat:
        return "It is not your turn: the computer is to play."
    leading = view.lead_card is None
    closed = view.closed_by is not None
    won_trick = view.tricks_won[view.seat] > 0
    ts = view.trump_suit
    why = None
    if action == EXCHANGE:
        if not leading:
            return f"You can exchange {_low(view)} only when you are about to lead."
        why = exchange_refusal(rules, view.hand, ts, won_trick, closed, view.stock_left)
        about = ("exchange", rules.min_stock_to_exchange, card(ts, rules.exchange_rank))
    elif action == CLOSE:
        if not leading:
            return "You can close the stock only when you are about to lead."
        why = close_refusal(rules, closed, view.stock_left, view.tricks_done)
        about = ("close", rules.min_stock_to_close, None)
    elif action >= FIRST_MARRIAGE:
        c = action_card(action)
        suit = c // NUM_RANKS
        if not leading:
            return "You can declare a marriage only when you lead."
        missing = [x for x in (card(suit, KING), card(suit, QUEEN)) if not view.hand >> x & 1]
        if missing:
            return (
                f"A marriage needs the king and queen of {SUIT_NAMES[suit]}; you do not hold "
                + " or ".join(name(x) for x in missing)
                + "."
            )
        why = marriage_refusal(rules, won_trick, closed, view.stock_left, view.just_closed)
        if why is None and not rules.marriage_actions >> action & 1:
            why = KING_ONLY
        about = ("marriage", 0, None)
    else:
        c = action
        lead = -1 if leading else view.lead_card
        strict = not leading and view.is_strict
        why = follow_refusal(view.hand, lead, c, ts, rules.must_beat_in_suit, strict)
        about = ("card", lead, c)
    if why is not None:
        return REFUSAL_WORDS[why](view, about, name)
    return f"{action_name(action)} is not a legal move now."


def strict_reason(view: PlayerView) -> str:
    """Why only some cards may be played now (the terminal's ``You may play only``)."""
    lead = view.lead_card
    if lead is None:
        return "strict play"
    ls = lead // NUM_RANKS
    if any(c // NUM_RANKS == ls for c in cards_of(view.hand)):
        if view.rules.must_beat_in_suit:
            return "follow suit, and beat the card led if you can"
        return "you must follow suit"
    return "you have none of the suit led: you must trump"


def _stock_state(view: PlayerView) -> str:
    return "closed" if view.closed_by is not None else "used up"


def _low(view: PlayerView) -> str:
    """``the 9 of trumps``, or ``the jack of trumps`` with the 20-card deck."""
    return f"the {RANK_NAMES[view.rules.exchange_rank]} of trumps"


def _too_small(view: PlayerView, about, name) -> str:
    kind, least, _ = about
    goal = f"exchange {_low(view)}" if kind == "exchange" else "close it"
    return f"At least {least} face-down cards must be left in the stock to {goal}."


def _no_trick(view: PlayerView, about, name) -> str:
    what = f"exchange {_low(view)}" if about[0] == "exchange" else "declare a marriage"
    return f"You must win a trick before you can {what}."


def _not_held(view: PlayerView, about, name) -> str:
    if about[0] == "exchange":
        return f"You cannot exchange: you do not hold {_low(view)} ({name(about[2])})."
    return f"You do not hold {name(about[2])}."


def _must_follow(view: PlayerView, about, name) -> str:
    ls = about[1] // NUM_RANKS
    return f"The stock is {_stock_state(view)}: you must follow suit with a {SUIT_NAMES[ls][:-1]}."


def _must_trump(view: PlayerView, about, name) -> str:
    ls, ts = about[1] // NUM_RANKS, view.trump_suit
    return (
        f"The stock is {_stock_state(view)} and you have no {SUIT_NAMES[ls]}: "
        f"you must play a trump ({SUIT_NAMES[ts]})."
    )


#: The words for each refusal code of :mod:`sixtysix_env.game.rules`.
REFUSAL_WORDS: dict[str, Callable[..., str]] = {
    NOT_HELD: _not_held,
    MUST_FOLLOW: _must_follow,
    MUST_BEAT: lambda view, about, name: (
        f"The stock is {_stock_state(view)}: you must beat {name(about[1])} if you can."
    ),
    MUST_TRUMP: _must_trump,
    NO_TRICK_YET: _no_trick,
    STOCK_CLOSED: lambda view, about, name: (
        "The stock is closed: no more exchanges."
        if about[0] == "exchange"
        else "The stock is already closed."
    ),
    STOCK_EXHAUSTED: lambda view, about, name: (
        "The stock is used up: no more exchanges."
        if about[0] == "exchange"
        else "The stock is used up: there is nothing to close."
    ),
    STOCK_TOO_SMALL: _too_small,
    FIRST_LEAD: lambda view, about, name: (
        "These rules do not allow closing before the first trick."
    ),
    MARRIAGE_PHASE: lambda view, about, name: (
        "Marriages cannot be declared once the stock is closed or used up."
    ),
    NO_CLOSING: lambda view, about, name: "These rules have no closing of the stock.",
    KING_ONLY: lambda view, about, name: (
        "Under these rules a marriage is declared by leading its king, not its queen."
    ),
}
