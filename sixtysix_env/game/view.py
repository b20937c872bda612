"""What one seat may know, and full states that agree with it.

:func:`player_view` gives a seat exactly what docs/rules.md §18 lets it know
and nothing else; agents and observations are built from it. :func:`determinize`
goes the other way: from a view and a random generator it deals the unseen
cards into a full :class:`~sixtysix_env.game.engine.State` that agrees with every
fact of the view, uniformly among all such deals (the sampling step of
determinized search).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from .cards import SUIT_MASK, bits_of
from .engine import State, build_state
from .events import Event, Exchange, HandResult, Marriage, Trick
from .render import render_view
from .rules import RuleConfig, counted_total


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
    #: Marriage points declared and not yet counted, per seat (``marriage_points_pending``:
    #: redeemed at the declarer's next won trick; public, as the tricks are).
    pending_points: tuple[int, int] = (0, 0)

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
    def is_strict(self) -> bool:
        """The strict phase: the stock closed or used up (follow suit, trump if void)."""
        return self.closed_by is not None or self.stock_left == 0

    @property
    def tricks_done(self) -> int:
        return sum(self.tricks_won)

    def legal_actions(self) -> list[int]:
        return bits_of(self.legal_mask)

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
        m = self.rules.deck_mask & ~self.hand & ~self.played[0] & ~self.played[1]
        m &= ~self.opponent_known
        if self.stock_left:
            m &= ~(1 << self.trump_card)
        return m

    def points(self, seat: int) -> int:
        """Card points plus marriage points (marriages count once a trick is won)."""
        return counted_total(
            self.card_points[seat],
            self.marriage_points[seat] - self.pending_points[seat],
            self.tricks_won[seat],
        )

    def __repr__(self) -> str:
        return render_view(self)


def player_view(state: State, seat: int) -> PlayerView:
    """Exactly what ``seat`` may know of ``state``."""
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat!r}")
    return _new_view(seat_knowledge(state, seat))


def seat_knowledge(state: State, seat: int) -> dict[str, Any]:
    """What ``seat`` may know of ``state`` (docs/rules.md §18): the information-set rule,
    as the fields of :class:`PlayerView`, read through the state's public accessors.

    Known to both: everything public (the trump card, the stock's size, the
    cards played, points, tricks, events, the match score). Known to the
    seat: its own hand. Of the opponent's hand: the cards it has shown
    (marriage, exchange, the face-up trump drawn), every card once the stock
    is exhausted (nothing else is left), and which cards it cannot hold
    (strict-phase deductions), kept only for cards still in play.
    """
    o = 1 - seat
    own_hand = state.hand(seat)
    opp_hand = state.hand(o)
    if state.is_exhausted():
        # Every card is accounted for: both hands are known to both seats.
        opp_known, own_known = opp_hand, own_hand
    else:
        opp_known, own_known = state.known_cards(o), state.known_cards(seat)
    played = state.played
    gone = played[0] | played[1] | own_hand  # deductions about these no longer matter
    to_move = state.current_player()
    return {
        "seat": seat,
        "rules": state.rules,
        "dealer": state.dealer,
        "leader": state.leader,
        "to_move": to_move,
        "hand": own_hand,
        "trump_suit": state.trump_suit,
        "trump_card": state.trump_card,
        "stock_left": state.stock_left,
        "closed_by": state.closed_by,
        "lead_card": state.lead_card,
        "played": played,
        "card_points": state.card_points,
        "marriage_points": state.marriage_points,
        "tricks_won": state.tricks_won,
        "events": state.events(),
        "opponent_known": opp_known,
        "opponent_excluded": state.excluded_cards(o) & ~gone,
        "opponent_hand_size": opp_hand.bit_count(),
        "own_known": own_known,
        "own_excluded": state.excluded_cards(seat) & ~gone,
        "just_closed": state.just_closed,
        "close_info": state.close_info,
        "match_score": state.match_score,
        "result": state.result,
        "legal_mask": state.legal_mask() if to_move == seat else 0,
        "pending_points": state.pending_points,
    }


def _new_view(fields: dict) -> PlayerView:
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


def hidden_places(view: PlayerView) -> tuple[list[int], int]:
    """(the unseen cards the opponent may hold, how many of them it holds): the
    choice a deal consistent with ``view`` makes; the other unseen cards are the stock."""
    unseen = view.unseen()
    need = view.opponent_hand_size - view.opponent_known.bit_count()
    candidates = [c for c in range(24) if unseen >> c & 1 and not view.opponent_excluded >> c & 1]
    if need < 0 or need > len(candidates) or unseen.bit_count() != need + view.stock_left:
        raise ValueError("the view is inconsistent: its unseen cards do not fill the hidden places")
    return candidates, need


def determinize(
    view: PlayerView, rng: random.Random | int | None = None, opponent_hidden: int | None = None
) -> State:
    """A full state agreeing with ``view``, its hidden cards dealt uniformly.

    The opponent's unknown cards are drawn from the unseen cards it may hold
    (not those the view excludes); the rest form the face-down stock in a
    random order. ``opponent_hidden`` (a card mask) gives the opponent's unknown
    cards instead of drawing them (:mod:`sixtysix_env.agents.beliefs` draws them from
    a posterior); only the stock's order is then drawn.
    """
    r = _rng(rng)
    seat = view.seat
    unseen = view.unseen()
    candidates, need = hidden_places(view)
    if opponent_hidden is None:
        opp_cards = r.sample(candidates, need)
    else:
        opp_cards = bits_of(opponent_hidden)
        allowed = sum(1 << c for c in candidates)
        if len(opp_cards) != need or opponent_hidden & ~allowed:
            raise ValueError(
                f"opponent_hidden must be {need} of the unseen cards the opponent may hold, "
                f"got the card mask {opponent_hidden:#x}"
            )
    opp = view.opponent_known
    for c in opp_cards:
        opp |= 1 << c
    rest = [c for c in range(24) if unseen >> c & 1 and not opp >> c & 1]
    r.shuffle(rest)

    hands = (view.hand, opp) if seat == 0 else (opp, view.hand)
    seen = (view.own_known, view.opponent_known)  # both matter only for cards in play
    excluded = (view.own_excluded, view.opponent_excluded)
    if seat == 1:
        seen, excluded = seen[::-1], excluded[::-1]
    return build_state(
        view.rules,
        hands=hands,
        card_points=view.card_points,
        marriage_points=view.marriage_points,
        tricks_won=view.tricks_won,
        played=view.played,
        seen=seen,
        excluded=excluded,
        stock=rest,
        trump_card=view.trump_card,
        dealer=view.dealer,
        leader=view.leader,
        to_move=view.to_move if view.to_move >= 0 else view.leader,
        lead_card=view.lead_card,
        closed_by=view.closed_by,
        tricks_done=view.tricks_done,
        just_closed=view.just_closed,
        events=view.events,
        close_info=view.close_info,
        match_score=view.match_score,
        result=view.result,
        pending_points=view.pending_points,
    )


__all__ = ["PlayerView", "player_view", "determinize", "hidden_places"]
