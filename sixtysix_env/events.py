"""What happens in a hand, as public records: tricks, marriages, exchanges, closes, the result.

Every event is seen by both players, so a player's view carries the whole
list. :class:`HandResult` says how a hand ended and what it scored; its
:meth:`~HandResult.explain` takes its numbers from the rule switches the
hand was played with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .rules import ONE_POINT_TOTAL, RuleConfig
from .wording import SEATS, Voice

#: Reasons a hand ends.
WENT_OUT, FAILED_CLOSE, LAST_TRICK, TIE = "went_out", "failed_close", "last_trick", "tie"


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

    def returns(self) -> tuple[int, int]:
        """Zero-sum game points: (+gp, -gp) from each seat's side."""
        if self.winner is None:
            return (0, 0)
        gp = self.game_points
        return (gp, -gp) if self.winner == 0 else (-gp, gp)

    def explain(self, voice: Voice = SEATS) -> str:
        """A sentence saying why the hand scored what it did, in ``voice``'s words."""
        if self.winner is None:
            return f"Tie at {self.totals[0]}-{self.totals[1]}: no game points."
        w, lo = self.winner, 1 - self.winner
        gp = self.game_points
        unit = "game point" if gp == 1 else "game points"
        if self.reason == FAILED_CLOSE:
            c = self.closed_by
            return (
                f"{voice.who(c, True)} closed the stock but did not reach {self.going_out}: "
                f"{voice.who(w)} {voice.verb(w, 'score')} {gp} {unit}."
            )
        bonus = f", last trick +{self.last_trick_bonus} included" if self.last_trick_bonus else ""
        how = {
            WENT_OUT: f"{voice.who(w, True)} reached {self.totals[w]}",
            LAST_TRICK: f"Nobody reached {self.going_out}; {voice.who(w)} "
            f"{voice.verb(w, 'have')} the higher total "
            f"({self.totals[w]} to {self.totals[lo]}{bonus})",
        }[self.reason]
        if gp == 3:
            why = f"{voice.who(lo)} won no trick"
        else:
            than = "fewer than" if gp == 2 else "at least"
            why = f"{voice.who(lo)} {voice.verb(lo, 'have')} {self.totals[lo]}, {than} {ONE_POINT_TOTAL}"
        return f"{how}; {why}: {gp} {unit}."
