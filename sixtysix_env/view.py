"""What one seat may know, and full states that agree with it.

:func:`player_view` gives a seat exactly what docs/rules.md §18 lets it know
and nothing else; agents and observations are built from it. :func:`determinize`
goes the other way: from a view and a random generator it deals the unseen
cards into a full :class:`~sixtysix_env.engine.State` that agrees with every
fact of the view, uniformly among all such deals (the sampling step of
determinized search).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .cards import ALL_CARDS, SUIT_MASK
from .engine import (
    CARD_PTS,
    CLOSED_BY,
    DEALER,
    EXCLUDED,
    HAND,
    JUST_CLOSED,
    KNOWN,
    LEAD,
    LEADER,
    MARRIAGE_PTS,
    PLAYED,
    STOCK_POS,
    TO_MOVE,
    TRICK_NO,
    TRICKS,
    TRUMP_CARD,
    TRUMP_SUIT,
    _NV,
    Event,
    Exchange,
    HandResult,
    Marriage,
    State,
    Trick,
)
from .rules import RuleConfig


@dataclass(frozen=True)
class PlayerView:
    """Everything ``seat`` may know about a hand. Masks are card bit masks."""

    seat: int
    rules: RuleConfig
    dealer: int
    leader: int
    #: Seat to act, or -1 once the hand is over.
    to_move: int
    hand: int
    trump_suit: int
    #: The card that lies (or lay) under the stock: face up, turned down by a
    #: close but still known, or already taken by the loser of trick 6.
    trump_card: int
    #: Face-down cards left in the stock.
    stock_left: int
    closed_by: int | None
    #: The card on the table (led by ``leader``), or None.
    lead_card: int | None
    #: Cards each seat has played, the card on the table included.
    played: tuple[int, int]
    card_points: tuple[int, int]
    marriage_points: tuple[int, int]
    tricks_won: tuple[int, int]
    #: Public events in order: Trick, Marriage, Exchange, Close.
    events: tuple[Event, ...]
    #: Cards in the opponent's hand that this seat knows (shown with a
    #: marriage, taken by an exchange, or the whole hand once deducible).
    opponent_known: int
    #: Cards the opponent cannot hold (strict-phase deductions).
    opponent_excluded: int
    opponent_hand_size: int
    #: Cards of this seat's hand the opponent has seen, and what the
    #: opponent has deduced this seat cannot hold.
    own_known: int
    own_excluded: int
    #: True between this seat's close and its next lead (it may still declare).
    just_closed: bool
    #: The opponent's (card points, marriage points, tricks) when the stock
    #: was closed, or None.
    close_info: tuple[int, int, int] | None
    match_score: tuple[int, int]
    result: HandResult | None
    #: Legal actions as a bit mask if this seat is to act, else 0.
    legal_mask: int

    @property
    def opponent(self) -> int:
        return 1 - self.seat

    @property
    def trump_card_in_stock(self) -> bool:
        return self.stock_left > 0

    @property
    def stock_size(self) -> int:
        return self.stock_left + 1 if self.stock_left else 0

    @property
    def is_closed(self) -> bool:
        return self.closed_by is not None

    @property
    def is_exhausted(self) -> bool:
        return self.closed_by is None and self.stock_left == 0

    @property
    def tricks_done(self) -> int:
        return sum(self.tricks_won)

    def legal_actions(self) -> list[int]:
        m, out, a = self.legal_mask, [], 0
        while m:
            if m & 1:
                out.append(a)
            m >>= 1
            a += 1
        return out

    def tricks(self) -> tuple[Trick, ...]:
        return tuple(e for e in self.events if type(e) is Trick)

    def marriages(self) -> tuple[Marriage, ...]:
        return tuple(e for e in self.events if type(e) is Marriage)

    def exchanges(self) -> tuple[Exchange, ...]:
        return tuple(e for e in self.events if type(e) is Exchange)

    def opponent_void_suits(self) -> tuple[int, ...]:
        """Suits the opponent is known to hold no card of."""
        unseen = self.unseen()
        return tuple(
            s
            for s in range(4)
            if not self.opponent_known & SUIT_MASK[s]
            and (unseen & SUIT_MASK[s] & ~self.opponent_excluded) == 0
        )

    def unseen(self) -> int:
        """Cards whose place this seat does not know: opponent's unknown cards and the face-down stock."""
        m = ALL_CARDS & ~self.hand & ~self.played[0] & ~self.played[1] & ~self.opponent_known
        if self.stock_left:
            m &= ~(1 << self.trump_card)
        return m

    def points(self, seat: int) -> int:
        m = self.marriage_points[seat] if self.tricks_won[seat] else 0
        return self.card_points[seat] + m

    def __repr__(self) -> str:
        from .render import render_view

        return render_view(self)


def player_view(state: State, seat: int) -> PlayerView:
    """Exactly what ``seat`` may know of ``state``."""
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat!r}")
    v = state.v
    o = 1 - seat
    stock_left = len(state.stock) - v[STOCK_POS]
    closed = v[CLOSED_BY]
    opp_hand = v[HAND + o]
    own_hand = v[HAND + seat]
    if closed < 0 and stock_left == 0:
        # Every card is accounted for: both hands are known to both seats.
        opp_known, own_known = opp_hand, own_hand
    else:
        opp_known, own_known = v[KNOWN + o] & opp_hand, v[KNOWN + seat] & own_hand
    terminal = state.result is not None
    return _new_view(
        seat=seat,
        rules=state.rules,
        dealer=v[DEALER],
        leader=v[LEADER],
        to_move=-1 if terminal else v[TO_MOVE],
        hand=v[HAND + seat],
        trump_suit=v[TRUMP_SUIT],
        trump_card=v[TRUMP_CARD],
        stock_left=stock_left,
        closed_by=None if closed < 0 else closed,
        lead_card=None if v[LEAD] < 0 else v[LEAD],
        played=(v[PLAYED], v[PLAYED + 1]),
        card_points=(v[CARD_PTS], v[CARD_PTS + 1]),
        marriage_points=(v[MARRIAGE_PTS], v[MARRIAGE_PTS + 1]),
        tricks_won=(v[TRICKS], v[TRICKS + 1]),
        events=state.events(),
        opponent_known=opp_known,
        opponent_excluded=v[EXCLUDED + o] & ~v[PLAYED] & ~v[PLAYED + 1] & ~v[HAND + seat],
        opponent_hand_size=opp_hand.bit_count(),
        own_known=own_known,
        own_excluded=v[EXCLUDED + seat] & ~v[PLAYED] & ~v[PLAYED + 1] & ~v[HAND + seat],
        just_closed=bool(v[JUST_CLOSED]),
        close_info=state.close_info,
        match_score=state.match_score,
        result=state.result,
        legal_mask=state.legal_mask() if not terminal and v[TO_MOVE] == seat else 0,
    )


def _new_view(**fields) -> PlayerView:
    # A frozen dataclass's __init__ sets each of its fields through
    # object.__setattr__; filling __dict__ at once is several times faster.
    # Every field is passed, so the result equals PlayerView(**fields).
    view = object.__new__(PlayerView)
    view.__dict__.update(fields)
    return view


def _rng(rng: random.Random | int | None) -> random.Random:
    if isinstance(rng, random.Random):
        return rng
    if rng is None or isinstance(rng, int):
        return random.Random(rng)
    if hasattr(rng, "integers"):  # a numpy Generator
        return random.Random(int(rng.integers(0, 2**63 - 1)))
    raise TypeError(f"rng must be a random.Random, a numpy Generator or an int seed, got {rng!r}")


def determinize(view: PlayerView, rng: random.Random | int | None = None) -> State:
    """A full state agreeing with ``view``, its hidden cards dealt uniformly.

    The opponent's unknown cards are drawn from the unseen cards it may hold
    (not those the view excludes); the rest form the face-down stock in a
    random order.
    """
    r = _rng(rng)
    seat, o = view.seat, 1 - view.seat
    unseen = view.unseen()
    need = view.opponent_hand_size - view.opponent_known.bit_count()
    candidates = [c for c in range(24) if unseen >> c & 1 and not view.opponent_excluded >> c & 1]
    if need < 0 or need > len(candidates) or unseen.bit_count() != need + view.stock_left:
        raise ValueError("the view is inconsistent: its unseen cards do not fill the hidden places")
    opp_cards = r.sample(candidates, need)
    opp = view.opponent_known
    for c in opp_cards:
        opp |= 1 << c
    rest = [c for c in range(24) if unseen >> c & 1 and not opp >> c & 1]
    r.shuffle(rest)

    s = State.__new__(State)
    s.rules = view.rules
    v = [0] * _NV
    v[HAND + seat] = view.hand
    v[HAND + o] = opp
    for i in (0, 1):
        v[CARD_PTS + i] = view.card_points[i]
        v[MARRIAGE_PTS + i] = view.marriage_points[i]
        v[TRICKS + i] = view.tricks_won[i]
        v[PLAYED + i] = view.played[i]
    # KNOWN and EXCLUDED only matter for cards still in hand / unplayed.
    v[KNOWN + seat] = view.own_known
    v[KNOWN + o] = view.opponent_known
    v[EXCLUDED + seat] = view.own_excluded
    v[EXCLUDED + o] = view.opponent_excluded
    v[STOCK_POS] = 0
    v[TRUMP_CARD] = view.trump_card
    v[TRUMP_SUIT] = view.trump_suit
    v[DEALER] = view.dealer
    v[LEADER] = view.leader
    v[TO_MOVE] = view.to_move if view.to_move >= 0 else view.leader
    v[LEAD] = -1 if view.lead_card is None else view.lead_card
    v[CLOSED_BY] = -1 if view.closed_by is None else view.closed_by
    v[TRICK_NO] = view.tricks_done
    v[JUST_CLOSED] = int(view.just_closed)
    s.v = v
    s.stock = tuple(rest)
    log = None
    for e in view.events:
        log = (e, log)
    s.log = log
    s.close_info = view.close_info
    s.result = view.result
    s.match_score = view.match_score
    s._legal = -1
    return s


__all__ = ["PlayerView", "player_view", "determinize"]
