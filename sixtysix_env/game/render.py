"""Plain-text pictures of a state (neutral, everything shown) and of a view."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .actions import action_name
from .cards import SUIT_NAMES, card_code, cards_of
from .events import Close, Event, Exchange, Marriage, Trick
from .rules import trick_points as trick_points  # re-exported: the card points of a trick
from .wording import (
    Voice,
    close_sentence,
    exchange_sentence,
    marriage_sentence,
    trick_sentence,
)

if TYPE_CHECKING:  # only for annotations: the engine and the view import this module
    from .engine import State
    from .view import PlayerView


def hand_text(mask: int) -> str:
    """Cards of a mask grouped by suit: ``9C KC | TD | ...``; ``-`` if empty."""
    groups = []
    for s in range(4):
        cs = [card_code(c) for c in cards_of(mask) if c // 6 == s]
        if cs:
            groups.append(" ".join(cs))
    return " | ".join(groups) if groups else "-"


def describe_event(
    e: Event,
    voice: Voice = Voice(),
    name: Callable[[int], str] = card_code,
    capital: bool = False,
) -> str:
    """One sentence (no final stop) for a public event: the narration of demos, pictures of a
    state and the play session. ``voice`` names the seats and makes the verbs agree
    (:mod:`sixtysix_env.game.wording`; "seat 0 leads" by default), ``name`` names a card, and
    ``capital`` capitalises the seats' names. The sentences are the wording layer's
    (:mod:`sixtysix_env.game.wording.events`); this picks the one for the event's type."""
    sentence = _SENTENCES.get(type(e))
    if sentence is None:
        raise TypeError(f"not an event of a hand: {e!r}")
    return sentence(e, voice, name, capital)


_SENTENCES = {
    Trick: trick_sentence,
    Marriage: marriage_sentence,
    Exchange: exchange_sentence,
    Close: close_sentence,
}


def _event_lines(events) -> list[str]:
    return ["  " + describe_event(e) for e in events]


def _stock_line(stock_left: int, trump_card: int, closed_by) -> str:
    if stock_left == 0 and closed_by is None:
        return "stock: exhausted"
    tc = card_code(trump_card)
    if closed_by is not None:
        return f"stock: {stock_left} face-down + {tc} (closed by seat {closed_by})"
    return f"stock: {stock_left} face-down + {tc} face up"


def render_state(state: State) -> str:
    """Neutral picture of a state: both hands shown."""
    lines = [
        f"Sixty-Six ({state.rules.name}), dealer: seat {state.dealer}, "
        f"trumps: {SUIT_NAMES[state.trump_suit]}, phase: {state.phase()}",
        _stock_line(state.stock_left, state.trump_card, state.closed_by),
    ]
    for seat in (0, 1):
        lines.append(
            f"seat {seat}: {hand_text(state.hand(seat))}   "
            f"[points {state.card_points[seat]}+{state.marriage_points[seat]}, "
            f"tricks {state.tricks_won[seat]}]"
        )
    if state.match_score != (0, 0):
        lines.append(f"match score: {state.match_score[0]}-{state.match_score[1]}")
    if state.lead_card is not None:
        lines.append(f"on the table: {card_code(state.lead_card)} led by seat {state.leader}")
    lines += _event_lines(state.events())
    if state.result is not None:
        lines.append("result: " + state.result.explain())
    else:
        p = state.current_player()
        lines.append(
            f"to act: seat {p} ({state.role(p)}); legal: "
            + " ".join(action_name(a) for a in state.legal_actions())
        )
    return "\n".join(lines)


def render_view(view: PlayerView) -> str:
    """Picture of what one seat knows."""
    s, o = view.seat, view.opponent
    lines = [
        f"Seat {s}'s view ({view.rules.name}), dealer: seat {view.dealer}, "
        f"trumps: {SUIT_NAMES[view.trump_suit]}",
        _stock_line(view.stock_left, view.trump_card, view.closed_by),
        f"your hand: {hand_text(view.hand)}   [points {view.card_points[s]}+"
        f"{view.marriage_points[s]}, tricks {view.tricks_won[s]}]",
        f"opponent: {view.opponent_hand_size} cards, known: {hand_text(view.opponent_known)}   "
        f"[points {view.card_points[o]}+{view.marriage_points[o]}, tricks {view.tricks_won[o]}]",
    ]
    if view.match_score != (0, 0):
        lines.append(f"match score: {view.match_score[0]}-{view.match_score[1]}")
    if view.lead_card is not None:
        lines.append(f"on the table: {card_code(view.lead_card)} led by seat {view.leader}")
    lines += _event_lines(view.events)
    if view.result is not None:
        lines.append("result: " + view.result.explain())
    elif view.to_move == s:
        lines.append("your move; legal: " + " ".join(action_name(a) for a in view.legal_actions()))
    else:
        lines.append(f"waiting for seat {o}")
    return "\n".join(lines)
