"""The sentences about a hand's result: why it scored what it did, who won it, each side's points.

Each takes a :class:`~sixtysix_env.game.events.HandResult` (read by its fields: this
layer sits below the events) and a :class:`~sixtysix_env.game.wording.voice.Voice`
where a seat is named. ``HandResult.explain`` is :func:`explain_hand`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rules import FAILED_CLOSE, LAST_TRICK, ONE_POINT_TOTAL, TIE, WENT_OUT
from .voice import SEATS, Voice

if TYPE_CHECKING:  # only for annotations: the events import this module
    from ..events import HandResult


def _unit(gp: int) -> str:
    return "game point" if gp == 1 else "game points"


def explain_hand(result: HandResult, voice: Voice = SEATS) -> str:
    """A sentence saying why the hand scored what it did, in ``voice``'s words; its numbers
    come from the rule values the hand was played with (``going_out``, ``last_trick_bonus``)."""
    if result.winner is None:
        return f"Tie at {result.totals[0]}-{result.totals[1]}: no game points."
    w, lo = result.winner, 1 - result.winner
    gp = result.game_points
    unit = _unit(gp)
    if result.reason == FAILED_CLOSE:
        c = result.closed_by
        return (
            f"{voice.who(c, True)} closed the stock but did not reach {result.going_out}: "
            f"{voice.who(w)} {voice.verb(w, 'score')} {gp} {unit}."
        )
    if result.reason == LAST_TRICK and result.last_trick_wins:
        return (
            f"Nobody reached {result.going_out}; {voice.who(w)} "
            f"{voice.verb(w, 'win')} the last trick, which wins the hand: {gp} {unit}."
        )
    bonus = f", last trick +{result.last_trick_bonus} included" if result.last_trick_bonus else ""
    how = {
        WENT_OUT: f"{voice.who(w, True)} reached {result.totals[w]}",
        LAST_TRICK: f"Nobody reached {result.going_out}; {voice.who(w)} "
        f"{voice.verb(w, 'have')} the higher total "
        f"({result.totals[w]} to {result.totals[lo]}{bonus})",
    }[result.reason]
    if gp == 3:
        why = f"{voice.who(lo)} won no trick"
    else:
        than = "fewer than" if gp == 2 else "at least"
        why = f"{voice.who(lo)} {voice.verb(lo, 'have')} {result.totals[lo]}, {than} {ONE_POINT_TOTAL}"
    return f"{how}; {why}: {gp} {unit}."


def hand_headline(result: HandResult, voice: Voice = SEATS) -> str:
    """``You win the hand: 2 game points.``: who won the hand and what it gave."""
    if result.winner is None:
        return "The hand is tied: no game points."
    w, gp = result.winner, result.game_points
    return f"{voice.who(w, True)} {voice.verb(w, 'win')} the hand: {gp} {_unit(gp)}."


def points_breakdown(result: HandResult, seat: int) -> str:
    """``52 in cards + 20 in marriages + 10 for the last trick = 82, 4 tricks``."""
    parts = [f"{result.card_points[seat]} in cards"]
    m = result.marriage_points[seat]
    counted_m = m if result.tricks_won[seat] else 0
    if result.last_trick_wins:  # no bonus: what the total leaves is what counted
        counted_m = result.totals[seat] - result.card_points[seat]
    if m:
        counted = result.tricks_won[seat] > 0
        note = "" if counted else " (not counted: no trick)"
        if counted and counted_m < m:
            note = f" ({m - counted_m} pending: not counted)"
        parts.append(f"{m} in marriages" + note)
    bonus = result.totals[seat] - result.card_points[seat] - counted_m
    if bonus > 0 and result.reason in (LAST_TRICK, TIE):
        parts.append(f"{bonus} for the last trick")
    tricks = result.tricks_won[seat]
    return (
        " + ".join(parts)
        + f" = {result.totals[seat]}, {tricks} trick{'' if tricks == 1 else 's'}"
    )
