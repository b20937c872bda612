"""What happens in a hand, as public records: tricks, marriages, exchanges, closes, the result.

Every event is seen by both players, so a player's view carries the whole
list. :class:`HandResult` says how a hand ended and what it scored; its
:meth:`~HandResult.explain` takes its numbers from the rule switches the
hand was played with; its sentence lives in the wording layer
(:mod:`sixtysix_env.game.wording`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .rules import FAILED_CLOSE as FAILED_CLOSE  # the reasons a hand ends, re-exported
from .rules import LAST_TRICK as LAST_TRICK
from .rules import TIE as TIE
from .rules import WENT_OUT as WENT_OUT
from .rules import RuleConfig
from .wording import SEATS, Voice, explain_hand


# Public events of a hand, in the order they happened (all of them are seen by
# both players, so a player's view can carry the whole list).
class Trick(NamedTuple):
    number: int  # 1-based
    leader: int
    lead: int
    follow: int
    winner: int


class Marriage(NamedTuple):
    seat: int
    suit: int
    points: int
    led: int  # the card led
    shown: int  # the partner shown from the hand


class Exchange(NamedTuple):
    seat: int
    taken: int  # the face-up trump card taken into the hand
    nine: int  # the trump 9 put in its place


class Close(NamedTuple):
    seat: int
    tricks_done: int


Event = Trick | Marriage | Exchange | Close


@dataclass(frozen=True)
class HandResult:
    """How a hand ended and what it scored."""

    winner: int | None  # None for a tie
    game_points: int  # 0-3 for the winner
    reason: str  # went_out, failed_close, last_trick or tie
    card_points: tuple[int, int]
    marriage_points: tuple[int, int]
    tricks_won: tuple[int, int]
    #: The totals the scoring used (card points, marriages of a side that won
    #: a trick, the last-trick bonus).
    totals: tuple[int, int]
    closed_by: int | None
    last_trick_winner: int | None
    #: The rule values the hand was played with (switches, so ``explain``
    #: must not assume the defaults).
    going_out: int = RuleConfig.going_out
    last_trick_bonus: int = RuleConfig.last_trick_bonus
    #: The last trick won the hand by itself (``last_trick_wins``: Schnapsen).
    last_trick_wins: bool = RuleConfig.last_trick_wins

    def returns(self) -> tuple[int, int]:
        """Zero-sum game points: (+gp, -gp) from each seat's side."""
        if self.winner is None:
            return (0, 0)
        gp = self.game_points
        return (gp, -gp) if self.winner == 0 else (-gp, gp)

    def explain(self, voice: Voice = SEATS) -> str:
        """A sentence saying why the hand scored what it did, in ``voice``'s words (the
        sentence is :func:`sixtysix_env.game.wording.explain_hand`)."""
        return explain_hand(self, voice)
