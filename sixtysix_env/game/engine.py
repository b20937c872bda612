"""One hand of two-player Sixty-Six: the rules, and nothing else.

A :class:`State` is one position of a hand. It is never changed in place:
:meth:`State.apply` returns a new state, so a search bot can branch freely.
The verbs follow OpenSpiel: :meth:`~State.current_player`,
:meth:`~State.legal_actions`, :meth:`~State.apply`, :meth:`~State.is_terminal`,
:meth:`~State.returns`.

Internally the numbers of a state live in one flat list (one copy per step).
The layout is this module's own: other modules read a state through its
named accessors (what a seat may know of it is :mod:`sixtysix_env.game.view`'s
rule, the solver's integers are :mod:`sixtysix_env.agents.solver`'s) and
build one with :func:`build_state`. The indices:

=====  ============  ===================================================
index  name          meaning
=====  ============  ===================================================
0-1    HAND          cards in each seat's hand (mask)
2-3    CARD_PTS      card points taken in tricks
4-5    MARRIAGE_PTS  marriage points declared
6-7    TRICKS        tricks won
8-9    PLAYED        cards each seat has played (the card on the table too)
10-11  KNOWN         cards of the seat the opponent has seen (marriage shown,
                     taken by exchange, face-up trump drawn)
12-13  EXCLUDED      cards the seat is known not to hold (strict-phase
                     deductions: a void, or no higher card when bound to beat)
14     STOCK_POS     face-down cards already drawn from ``stock``
15     TRUMP_CARD    the face-up card under the stock (last one drawn)
16     TRUMP_SUIT
17     DEALER
18     LEADER        seat leading the current trick
19     TO_MOVE       seat to act
20     LEAD          card on the table, or -1
21     CLOSED_BY     seat that closed the stock, or -1
22     TRICK_NO      tricks completed
23     JUST_CLOSED   1 between a close and the lead that follows it
24-25  PENDING       marriage points declared and not yet counted (only under
                     ``marriage_points_pending``: redeemed at the declarer's
                     next won trick)
=====  ============  ===================================================
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from ..util.checks import ALLOWED, as_int, as_seat, as_seed, is_int
from ..util.errors import DeckError, IllegalActionError
from .actions import (
    CLOSE,
    EXCHANGE,
    FIRST_MARRIAGE,
    MARRIAGE_CARD,
    NUM_ACTIONS,
    action_name,
    marriage_mask,
    parse_action,
)
from .cards import (
    BYTE_BITS,
    CARD_POINTS,
    HIGHER_IN_SUIT,
    NUM_CARDS,
    NUM_RANKS,
    PARTNER_BIT,
    SUIT_MASK,
    card,
    card_code,
    parse_card,
)
from .events import (
    FAILED_CLOSE,
    LAST_TRICK,
    TIE,
    WENT_OUT,
    Close,
    Event,
    Exchange,
    HandResult,
    Marriage,
    Trick,
)
from .render import render_state
from .rules import (
    BEATS,
    RuleConfig,
    close_refusal,
    counted_total,
    exchange_refusal,
    failed_close_points,
    follow_mask,
    game_points,
    make_rules,
    marriage_points,
    marriage_refusal,
)

HAND, CARD_PTS, MARRIAGE_PTS, TRICKS, PLAYED, KNOWN, EXCLUDED = 0, 2, 4, 6, 8, 10, 12
STOCK_POS, TRUMP_CARD, TRUMP_SUIT, DEALER, LEADER, TO_MOVE = 14, 15, 16, 17, 18, 19
LEAD, CLOSED_BY, TRICK_NO, JUST_CLOSED, PENDING = 20, 21, 22, 23, 24
#: The number of fields of ``State.v`` (the batched engine's first fields are the same).
NUM_FIELDS = 26
_NV = NUM_FIELDS

#: Cards in a hand after the deal with the 24-card deck (``RuleConfig.hand_size``: 5 with 20).
HAND_SIZE = 6
#: Cards dealt to a player at a time: 3, then the rest of the hand (docs/rules.md §2).
DEAL_PACKET = 3
_B0, _B1, _B2, _B3, _B4 = BYTE_BITS
class State:
    """A position in one hand. Immutable by convention: ``apply`` returns a new one."""

    __slots__ = ("rules", "v", "stock", "log", "close_info", "result", "match_score", "_legal")

    rules: RuleConfig
    v: list[int]
    stock: tuple[int, ...]
    log: tuple | None  # cons list (event, previous) of public events
    close_info: tuple[int, int, int] | None  # opponent's (card pts, marriage pts, tricks) at close
    result: HandResult | None
    match_score: tuple[int, int]

    # -- construction -------------------------------------------------------

    def _copy(self) -> State:
        return _make(self.rules, self.v[:], self.stock, self.log, self.close_info, self.result,
                     self.match_score)

    def __copy__(self) -> State:
        return self._copy()

    def __deepcopy__(self, memo) -> State:
        return self._copy()

    def __getstate__(self):
        return {k: getattr(self, k) for k in State.__slots__ if k != "_legal"}

    def __setstate__(self, d) -> None:
        for k, val in d.items():
            setattr(self, k, val)
        self._legal = -1

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return self.__getstate__() == other.__getstate__()

    def __hash__(self) -> int:
        return hash((tuple(self.v), self.stock[self.v[STOCK_POS]:], self.result is None))

    # -- read access ----------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, or -1 once the hand is over."""
        return -1 if self.result is not None else self.v[TO_MOVE]

    def is_terminal(self) -> bool:
        return self.result is not None

    def returns(self) -> tuple[int, int]:
        """Game points won (+) or lost (-) by each seat; (0, 0) until the end."""
        return self.result.returns() if self.result is not None else (0, 0)

    def hand(self, seat: int) -> int:
        return self.v[HAND + seat]

    @property
    def hands(self) -> tuple[int, int]:
        return (self.v[HAND], self.v[HAND + 1])

    @property
    def card_points(self) -> tuple[int, int]:
        return (self.v[CARD_PTS], self.v[CARD_PTS + 1])

    @property
    def marriage_points(self) -> tuple[int, int]:
        """Marriage points declared (those still pending included)."""
        return (self.v[MARRIAGE_PTS], self.v[MARRIAGE_PTS + 1])

    @property
    def pending_points(self) -> tuple[int, int]:
        """Marriage points declared and not yet redeemed (``marriage_points_pending``; else 0)."""
        return (self.v[PENDING], self.v[PENDING + 1])

    @property
    def tricks_won(self) -> tuple[int, int]:
        return (self.v[TRICKS], self.v[TRICKS + 1])

    @property
    def played(self) -> tuple[int, int]:
        return (self.v[PLAYED], self.v[PLAYED + 1])

    @property
    def trump_suit(self) -> int:
        return self.v[TRUMP_SUIT]

    @property
    def trump_card(self) -> int:
        """The face-up trump card (or the 9 that replaced it)."""
        return self.v[TRUMP_CARD]

    @property
    def dealer(self) -> int:
        return self.v[DEALER]

    @property
    def leader(self) -> int:
        return self.v[LEADER]

    @property
    def lead_card(self) -> int | None:
        c = self.v[LEAD]
        return None if c < 0 else c

    @property
    def closed_by(self) -> int | None:
        c = self.v[CLOSED_BY]
        return None if c < 0 else c

    @property
    def stock_left(self) -> int:
        """Face-down cards left in the stock (the face-up trump not counted)."""
        return len(self.stock) - self.v[STOCK_POS]

    @property
    def stock_size(self) -> int:
        """Cards in the stock, the face-up trump card included."""
        n = len(self.stock) - self.v[STOCK_POS]
        return n + 1 if n else 0

    @property
    def stock_cards(self) -> tuple[int, ...]:
        """The face-down stock in drawing order (hidden information)."""
        return self.stock[self.v[STOCK_POS]:]

    @property
    def tricks_done(self) -> int:
        return self.v[TRICK_NO]

    def is_exhausted(self) -> bool:
        return self.v[CLOSED_BY] < 0 and len(self.stock) == self.v[STOCK_POS]

    def is_strict(self) -> bool:
        """Strict play applies: the stock is closed or exhausted."""
        return self.v[CLOSED_BY] >= 0 or len(self.stock) == self.v[STOCK_POS]

    def phase(self) -> str:
        if self.result is not None:
            return "hand over"
        if self.v[CLOSED_BY] >= 0:
            return f"strict (stock closed by seat {self.v[CLOSED_BY]})"
        if len(self.stock) == self.v[STOCK_POS]:
            return "strict (stock exhausted)"
        return "open"

    def role(self, seat: int) -> str:
        return "leader" if seat == self.v[LEADER] else "follower"

    def points(self, seat: int) -> int:
        """Card points plus marriage points (marriages count once a trick is won, pending
        ones once redeemed)."""
        v = self.v
        return counted_total(
            v[CARD_PTS + seat], v[MARRIAGE_PTS + seat] - v[PENDING + seat], v[TRICKS + seat]
        )

    def events(self) -> tuple[Event, ...]:
        """Public events of the hand so far, oldest first."""
        out = []
        node = self.log
        while node is not None:
            out.append(node[0])
            node = node[1]
        out.reverse()
        return tuple(out)

    def tricks(self) -> tuple[Trick, ...]:
        return tuple(e for e in self.events() if type(e) is Trick)

    def known_cards(self, seat: int) -> int:
        """Cards in ``seat``'s hand that the opponent has seen."""
        return self.v[KNOWN + seat] & self.v[HAND + seat]

    def seen_cards(self, seat: int) -> int:
        """Cards of ``seat`` the opponent has seen, those since played included."""
        return self.v[KNOWN + seat]

    def excluded_cards(self, seat: int) -> int:
        """Cards ``seat`` is known not to hold (strict-phase deductions)."""
        return self.v[EXCLUDED + seat]

    @property
    def just_closed(self) -> bool:
        """True between a close and the lead that follows it (the closer may still declare)."""
        return bool(self.v[JUST_CLOSED])

    # -- rules --------------------------------------------------------------

    def legal_mask(self) -> int:
        """Legal action ids as a bit mask (bit ``a`` set if action ``a`` is legal)."""
        m = self._legal
        if m >= 0:
            return m
        if self.result is not None:
            self._legal = 0
            return 0
        v = self.v
        p = v[TO_MOVE]
        hand = v[HAND + p]
        closed = v[CLOSED_BY] >= 0
        stock_left = len(self.stock) - v[STOCK_POS]
        rules = self.rules
        lead = v[LEAD]
        if lead >= 0:
            if closed or not stock_left:
                m = follow_mask(hand, lead, v[TRUMP_SUIT], rules.must_beat_in_suit)
            else:
                m = hand
            self._legal = m
            return m
        # Leading: any card; marriages, the exchange and the close as the rules allow.
        m = hand
        won = v[TRICKS + p] > 0
        if marriage_refusal(rules, won, closed, stock_left, v[JUST_CLOSED]) is None:
            m |= marriage_mask(hand) & rules.marriage_actions
        if exchange_refusal(rules, hand, v[TRUMP_SUIT], won, closed, stock_left) is None:
            m |= 1 << EXCHANGE
        if close_refusal(rules, closed, stock_left, v[TRICK_NO]) is None:
            m |= 1 << CLOSE
        self._legal = m
        return m

    def legal_actions(self) -> list[int]:
        """Legal action ids for the seat to act, ascending; [] at the end."""
        m = self._legal
        if m < 0:
            m = self.legal_mask()
        # cards.bits_of inlined (the five byte tables): this is the engine's hottest call.
        return list(
            _B0[m & 255] + _B1[m >> 8 & 255] + _B2[m >> 16 & 255] + _B3[m >> 24 & 255] + _B4[m >> 32]
        )

    def is_legal(self, action: int | str) -> bool:
        """Whether ``apply(action)`` would succeed (ids, numpy integers and names; bools are not
        actions, see :mod:`sixtysix_env.util.checks`)."""
        if type(action) is not int:
            try:
                action = parse_action(action)
            except ValueError:
                return False
        return 0 <= action < NUM_ACTIONS and bool(self.legal_mask() >> action & 1)

    def apply(self, action: int | str) -> State:
        """The state after ``action`` (an id or a name); this state is unchanged.

        Anything that is not a legal action now (a bool, a float, an unknown
        name, an id out of range or not legal) raises
        :class:`~sixtysix_env.util.errors.IllegalActionError`.
        """
        if type(action) is not int:
            try:
                action = parse_action(action)
            except ValueError as e:
                raise IllegalActionError(str(e), action, self.legal_actions()) from None
        if not (0 <= action < NUM_ACTIONS and self.legal_mask() >> action & 1):
            raise self._illegal(action)
        new = self._copy()
        _apply(new, action)
        return new

    def _illegal(self, action: int) -> IllegalActionError:
        legal = self.legal_actions()
        try:
            name = f"{action_name(action)} (id {action})"
        except ValueError:
            name = f"{action!r} (out of range 0-{NUM_ACTIONS - 1})"
        if self.result is not None:
            msg = f"illegal action {name}: the hand is over"
        else:
            p = self.v[TO_MOVE]
            msg = (
                f"illegal action {name} for seat {p} ({self.role(p)}) in the "
                f"{self.phase()} phase; legal actions: "
                + ", ".join(f"{action_name(a)} ({a})" for a in legal)
            )
        return IllegalActionError(msg, action, legal)

    # -- display --------------------------------------------------------------

    def __repr__(self) -> str:
        return render_state(self)


def _other_move(s: State, v: list[int], p: int, action: int) -> None:
    """The moves other than a plain card, each made at most a few times a hand: the
    trump exchanged, the stock closed, a marriage declared (and its card led)."""
    if action == EXCHANGE:  # the trump 9 (or jack) in hand for the face-up trump card
        ts = v[TRUMP_SUIT]
        nine = card(ts, s.rules.exchange_rank)
        taken = v[TRUMP_CARD]
        v[HAND + p] = (v[HAND + p] & ~(1 << nine)) | (1 << taken)
        v[KNOWN + p] |= 1 << taken
        v[TRUMP_CARD] = nine
        s.log = (Exchange(p, taken, nine), s.log)
        return
    if action == CLOSE:  # the opponent's figures at the close are kept
        o = 1 - p
        v[CLOSED_BY] = p
        v[JUST_CLOSED] = 1
        s.close_info = (v[CARD_PTS + o], v[MARRIAGE_PTS + o] - v[PENDING + o], v[TRICKS + o])
        s.log = (Close(p, v[TRICK_NO]), s.log)
        return
    c = MARRIAGE_CARD[action - FIRST_MARRIAGE]
    suit = c // NUM_RANKS
    pts = marriage_points(suit, v[TRUMP_SUIT])
    shown = PARTNER_BIT[c].bit_length() - 1
    v[MARRIAGE_PTS + p] += pts
    if s.rules.marriage_points_pending:
        v[PENDING + p] += pts
    v[KNOWN + p] |= 1 << shown
    s.log = (Marriage(p, suit, pts, c, shown), s.log)
    v[HAND + p] ^= 1 << c
    v[PLAYED + p] |= 1 << c
    v[LEAD] = c
    v[JUST_CLOSED] = 0
    v[TO_MOVE] = 1 - p
    # Going out by declaring: the hand ends before the follower plays (the points
    # counted: none before a trick is won, none pending).
    if v[TRICKS + p] and v[CARD_PTS + p] + v[MARRIAGE_PTS + p] - v[PENDING + p] >= s.rules.going_out:
        _end_went_out(s, p)


def _apply(s: State, action: int) -> None:
    """Apply a legal action to ``s`` in place (``s`` is a fresh copy)."""
    v = s.v
    p = v[TO_MOVE]
    if action >= FIRST_MARRIAGE:  # not a plain card: one test on the hot path
        _other_move(s, v, p, action)
        return
    c = action
    bit = 1 << c
    v[HAND + p] ^= bit
    v[PLAYED + p] |= bit
    lead = v[LEAD]
    if lead < 0:
        v[LEAD] = c
        v[JUST_CLOSED] = 0
        v[TO_MOVE] = 1 - p
        return
    # The follower answers: resolve the trick.
    leader = 1 - p
    ls = lead // NUM_RANKS
    fs = c // NUM_RANKS
    ts = v[TRUMP_SUIT]
    closed = v[CLOSED_BY] >= 0
    stock_left = len(s.stock) - v[STOCK_POS]
    if closed or stock_left == 0:
        # What strict play reveals about the follower's hand.
        if fs != ls:
            v[EXCLUDED + p] |= SUIT_MASK[ls] if fs == ts else SUIT_MASK[ls] | SUIT_MASK[ts]
        elif c < lead and s.rules.must_beat_in_suit:
            v[EXCLUDED + p] |= HIGHER_IN_SUIT[lead]
    w = p if BEATS[ts][lead] >> c & 1 else leader
    v[CARD_PTS + w] += CARD_POINTS[lead] + CARD_POINTS[c]
    v[TRICKS + w] += 1
    v[TRICK_NO] += 1
    v[PENDING + w] = 0  # a won trick redeems the winner's pending marriage points
    s.log = (Trick(v[TRICK_NO], leader, lead, c, w), s.log)
    v[LEAD] = -1
    v[LEADER] = w
    v[TO_MOVE] = w
    lo = 1 - w
    if not closed and stock_left:
        pos = v[STOCK_POS]
        v[HAND + w] |= 1 << s.stock[pos]
        if stock_left > 1:
            v[HAND + lo] |= 1 << s.stock[pos + 1]
            v[STOCK_POS] = pos + 2
        else:
            # The loser of the trick that empties the stock takes the face-up trump.
            t = v[TRUMP_CARD]
            v[HAND + lo] |= 1 << t
            v[KNOWN + lo] |= 1 << t
            v[STOCK_POS] = pos + 1
    if v[CARD_PTS + w] + v[MARRIAGE_PTS + w] >= s.rules.going_out:
        _end_went_out(s, w)
    elif not (v[HAND] | v[HAND + 1]):
        _end_ran_out(s, w)


def _totals(v: list[int]) -> list[int]:
    return [
        counted_total(v[CARD_PTS + i], v[MARRIAGE_PTS + i] - v[PENDING + i], v[TRICKS + i])
        for i in (0, 1)
    ]


def _failed_close_points(s: State) -> int:
    return failed_close_points(s.rules, s.close_info[2])


def _end_went_out(s: State, w: int) -> None:
    v = s.v
    lo = 1 - w
    closer = v[CLOSED_BY]
    totals = _totals(v)
    tricks = [v[TRICKS], v[TRICKS + 1]]
    if closer >= 0 and closer != w:
        reason, gp = FAILED_CLOSE, _failed_close_points(s)
    else:
        reason = WENT_OUT
        if closer == w and s.rules.opponent_totals_at == "close":
            cp, mp, tr = s.close_info
            totals[lo] = counted_total(cp, mp, tr)
            tricks[lo] = tr
        gp = game_points(totals[lo], tricks[lo])
    _set_result(s, w, gp, reason, totals, None)


def _end_ran_out(s: State, last: int) -> None:
    v = s.v
    closer = v[CLOSED_BY]
    totals = _totals(v)
    if closer >= 0:
        _set_result(s, 1 - closer, _failed_close_points(s), FAILED_CLOSE, totals, last)
        return
    if s.rules.last_trick_wins:  # the last trick wins the hand, for one game point
        _set_result(s, last, 1, LAST_TRICK, totals, last)
        return
    totals[last] += s.rules.last_trick_bonus
    if totals[0] == totals[1]:
        _set_result(s, None, 0, TIE, totals, last)
        return
    w = 0 if totals[0] > totals[1] else 1
    gp = game_points(totals[1 - w], v[TRICKS + 1 - w])
    _set_result(s, w, gp, LAST_TRICK, totals, last)


def _set_result(s, winner, gp, reason, totals, last) -> None:
    v = s.v
    s.result = HandResult(
        winner=winner,
        game_points=gp,
        reason=reason,
        card_points=(v[CARD_PTS], v[CARD_PTS + 1]),
        marriage_points=(v[MARRIAGE_PTS], v[MARRIAGE_PTS + 1]),
        tricks_won=(v[TRICKS], v[TRICKS + 1]),
        totals=(totals[0], totals[1]),
        closed_by=None if v[CLOSED_BY] < 0 else v[CLOSED_BY],
        last_trick_winner=last,
        going_out=s.rules.going_out,
        last_trick_bonus=0 if s.rules.last_trick_wins else s.rules.last_trick_bonus,
        last_trick_wins=s.rules.last_trick_wins,
    )
    s._legal = 0


# -- dealing ----------------------------------------------------------------

FULL_DECK = tuple(range(NUM_CARDS))


def _make(
    rules: RuleConfig,
    v: list[int],
    stock: tuple[int, ...],
    log: tuple | None,
    close_info: tuple[int, int, int] | None,
    result: HandResult | None,
    match_score: tuple[int, int],
) -> State:
    """The one place a state's slots are filled (every constructor comes here)."""
    s = State.__new__(State)
    s.rules, s.v, s.stock, s.log = rules, v, stock, log
    s.close_info, s.result, s.match_score, s._legal = close_info, result, match_score, -1
    return s


def _new_state(rules: RuleConfig, hands, trump_card, stock, dealer, match_score) -> State:
    v = [0] * _NV
    v[HAND], v[HAND + 1] = hands
    v[TRUMP_CARD] = trump_card
    v[TRUMP_SUIT] = trump_card // NUM_RANKS
    v[DEALER] = dealer
    v[LEADER] = v[TO_MOVE] = 1 - dealer
    v[LEAD] = v[CLOSED_BY] = -1
    return _make(rules, v, tuple(stock), None, None, None, tuple(match_score))


def build_state(
    rules: RuleConfig,
    *,
    hands: tuple[int, int],
    card_points: tuple[int, int],
    marriage_points: tuple[int, int],
    tricks_won: tuple[int, int],
    played: tuple[int, int],
    seen: tuple[int, int],
    excluded: tuple[int, int],
    stock: Sequence[int],
    trump_card: int,
    dealer: int,
    leader: int,
    to_move: int,
    lead_card: int | None,
    closed_by: int | None,
    tricks_done: int,
    just_closed: bool,
    events: Sequence[Event],
    close_info: tuple[int, int, int] | None,
    result: HandResult | None,
    match_score: tuple[int, int],
    pending_points: tuple[int, int] = (0, 0),
) -> State:
    """A state from its parts (``stock`` the face-down cards in drawing order); for
    :func:`~sixtysix_env.game.view.determinize`, which deals a view's hidden cards. Nothing is
    checked: the parts must describe a position the rules can reach."""
    v = [0] * _NV
    for i in (0, 1):
        v[PENDING + i] = pending_points[i]
        v[HAND + i] = hands[i]
        v[CARD_PTS + i] = card_points[i]
        v[MARRIAGE_PTS + i] = marriage_points[i]
        v[TRICKS + i] = tricks_won[i]
        v[PLAYED + i] = played[i]
        v[KNOWN + i] = seen[i]
        v[EXCLUDED + i] = excluded[i]
    v[STOCK_POS] = 0
    v[TRUMP_CARD] = trump_card
    v[TRUMP_SUIT] = trump_card // NUM_RANKS
    v[DEALER] = dealer
    v[LEADER] = leader
    v[TO_MOVE] = to_move
    v[LEAD] = -1 if lead_card is None else lead_card
    v[CLOSED_BY] = -1 if closed_by is None else closed_by
    v[TRICK_NO] = tricks_done
    v[JUST_CLOSED] = int(just_closed)
    log = None
    for e in events:
        log = (e, log)
    return _make(rules, v, tuple(stock), log, close_info, result, match_score)


def deal_from_deck(
    deck: Sequence[int | str] | str,
    dealer: int = 1,
    rules: str | RuleConfig | dict | None = None,
    match_score: tuple[int, int] = (0, 0),
) -> State:
    """Start a hand from an explicit deck order, top card first.

    Cards 1-3 go to the non-dealer, 4-6 to the dealer, 7-9 to the non-dealer,
    10-12 to the dealer; card 13 is turned up as the trump card; cards 14-24
    are the stock in drawing order. With a 20-card deck (``rules.deck``): cards
    1-3, 4-6, then 7-8 to the non-dealer, 9-10 to the dealer, card 11 the trump
    card, cards 12-20 the stock. ``deck`` is the rules' cards as codes (a list, or
    one string separated by spaces or commas) or card ids, checked by :func:`parse_deck`.
    """
    rules = make_rules(rules)
    cards = parse_deck(deck, rules)
    dealer = as_seat(dealer, "dealer")
    return _deal(cards, dealer, rules, as_match_score(match_score))


def parse_deck(
    deck: Sequence[int | str] | str, rules: str | RuleConfig | dict | None = None
) -> list[int]:
    """A given deck order as card ids, checked: the one checker of given deals.

    ``deck`` is 24 card codes (a list, or one string separated by spaces or
    commas, as ``sixtysix play --deck`` takes it) or 24 card ids 0-23 (Python
    or numpy integers: a float, even ``1.0``, or a bool is refused, as
    everywhere, see :mod:`sixtysix_env.util.checks`), each card once. Under
    ``rules`` with a 20-card deck (``schnapsen``, ``schnapsen-vu``) it is those
    20 cards (no nines). Anything else raises
    :class:`~sixtysix_env.util.errors.DeckError` naming the position, the value
    and what is allowed. The environments' given deals (``reset(options=...)``)
    go through it too.
    """
    if rules is not None:
        rules = rules if type(rules) is RuleConfig else make_rules(rules)
        if rules.deck != NUM_CARDS:
            return _parse_short_deck(deck, rules)
    if isinstance(deck, str):
        deck = deck.replace(",", " ").split()
    elif not isinstance(deck, Iterable) or _is_array_scalar(deck):
        raise DeckError(
            f"a deck is 24 card codes (a list, or one string) or card ids 0-23, got {deck!r}"
        )
    if hasattr(deck, "__len__") and len(deck) != NUM_CARDS:
        raise DeckError(f"a deck has exactly 24 cards, got {len(deck)}")
    cards = []
    for i, x in enumerate(deck):
        if i == NUM_CARDS:
            raise DeckError("a deck has exactly 24 cards, got more")
        if isinstance(x, str):
            try:
                cards.append(parse_card(x))
            except ValueError as e:
                raise DeckError(f"deck position {i + 1}: {e}") from None
        elif is_int(x) and 0 <= int(x) < NUM_CARDS:
            cards.append(int(x))
        else:
            raise DeckError(
                f"deck position {i + 1}: {x!r} is not a card code or a card id 0-23 ({ALLOWED})"
            )
    if len(cards) != NUM_CARDS:
        raise DeckError(f"a deck has exactly 24 cards, got {len(cards)}")
    if len(set(cards)) != NUM_CARDS:
        seen, dup = set(), []
        for c in cards:
            if c in seen:
                dup.append(card_code(c))
            seen.add(c)
        missing = sorted(set(range(NUM_CARDS)) - seen)
        raise DeckError(
            f"duplicate card(s) in deck: {' '.join(dup)}; missing: "
            + " ".join(card_code(c) for c in missing)
        )
    return cards


def _parse_short_deck(deck: Sequence[int | str] | str, rules: RuleConfig) -> list[int]:
    """:func:`parse_deck` for a deck without the nines: its cards, each once."""
    n = rules.deck
    what = f"the {rules.name} rules play a {n}-card deck (J Q K T A of each suit, no nines)"
    where = f"the {rules.name} rules' {n}-card deck (J Q K T A of each suit, no nines)"
    if isinstance(deck, str):
        deck = deck.replace(",", " ").split()
    elif not isinstance(deck, Iterable) or _is_array_scalar(deck):
        raise DeckError(f"{what}: a deck is {n} card codes or card ids, got {deck!r}")
    items = list(deck)
    if len(items) != n:
        raise DeckError(f"{what}: a deck has exactly {n} cards, got {len(items)}")
    cards = []
    for i, x in enumerate(items):
        if isinstance(x, str):
            try:
                c = parse_card(x)
            except ValueError as e:
                raise DeckError(f"deck position {i + 1}: {e}") from None
        elif is_int(x) and 0 <= int(x) < NUM_CARDS:
            c = int(x)
        else:
            raise DeckError(
                f"deck position {i + 1}: {x!r} is not a card code or a card id 0-23 ({ALLOWED})"
            )
        if not rules.deck_mask >> c & 1:
            raise DeckError(f"deck position {i + 1}: {card_code(c)} is not in {where}")
        cards.append(c)
    if len(set(cards)) != n:
        seen, dup = set(), []
        for c in cards:
            if c in seen:
                dup.append(card_code(c))
            seen.add(c)
        missing = [c for c in rules.deck_cards if c not in seen]
        raise DeckError(
            f"duplicate card(s) in deck: {' '.join(dup)}; missing: "
            + " ".join(card_code(c) for c in missing)
        )
    return cards


def _is_array_scalar(x: Any) -> bool:
    """A 0-d array (numpy's), which says it is iterable and is not."""
    return getattr(x, "ndim", None) == 0


def as_match_score(score: Any) -> tuple[int, int]:
    """``match_score`` checked: two game-point totals, integers >= 0."""
    try:
        pair = tuple(score)
    except TypeError:
        pair = ()
    if len(pair) != 2:
        raise ValueError(
            f"match_score must be a pair (seat 0, seat 1) of game points, got {score!r}"
        )
    out = tuple(as_int(x, "match_score entry") for x in pair)
    if min(out) < 0:
        raise ValueError(f"match_score entries must be >= 0, got {score!r}")
    return out  # type: ignore[return-value]


def deal_seats(hand_size: int, dealer: int) -> tuple[int, ...]:
    """The seat each of the first ``2 * hand_size`` cards of a deck goes to: three to the
    non-dealer, three to the dealer, then the rest of each hand (three, or two)."""
    non = 1 - dealer
    rest = hand_size - DEAL_PACKET
    return (non,) * DEAL_PACKET + (dealer,) * DEAL_PACKET + (non,) * rest + (dealer,) * rest


def _deal(cards: Sequence[int], dealer: int, rules: RuleConfig, match_score) -> State:
    hands = [0, 0]
    trump_pos = 2 * rules.hand_size
    for k, seat in enumerate(deal_seats(rules.hand_size, dealer)):
        hands[seat] |= 1 << cards[k]
    return _new_state(rules, hands, cards[trump_pos], cards[trump_pos + 1:], dealer, match_score)


def random_deck(
    rng: random.Random | int | None = None, rules: str | RuleConfig | dict | None = None
) -> list[int]:
    """A shuffled deck of card ids (the rules' deck: 24 cards, or 20 without the nines);
    the same seed gives the same deck everywhere."""
    r = rng if isinstance(rng, random.Random) else random.Random(as_seed(rng))
    if rules is None:
        deck = list(FULL_DECK)
    else:
        deck = list((rules if type(rules) is RuleConfig else make_rules(rules)).deck_cards)
    r.shuffle(deck)
    return deck


def new_hand(
    seed: int | random.Random | None = None,
    dealer: int = 1,
    rules: str | RuleConfig | dict | None = None,
    match_score: tuple[int, int] = (0, 0),
) -> State:
    """A seeded random deal (``seed`` an int or a ``random.Random``)."""
    dealer = as_seat(dealer, "dealer")
    if type(rules) is not RuleConfig:
        rules = make_rules(rules)
    return _deal(random_deck(seed, rules), dealer, rules, as_match_score(match_score))


def play_actions(state: State, actions: Iterable[int | str]) -> State:
    """Apply a sequence of actions (ids or names)."""
    for a in actions:
        state = state.apply(a)
    return state
