"""A hand-written player, the way a club player would describe their game.

While the stock lasts (the open phase):

* exchange the trump 9 as soon as it is allowed;
* declare a marriage whenever allowed (the trump marriage first), leading the
  queen; with a marriage in hand and no trick yet, try to win a trick;
* lead low: throw 9s and jacks, keep aces, tens, trumps and marriage halves;
* as follower, weigh the points of the trick against what the card spent
  is worth keeping (trumps capture aces and tens, a side ace wins later, a
  queen or king may make a marriage): take a valuable lead with the cheapest
  sufficient card or a low trump, throw a 9 or jack on a worthless one; go
  out when a winning card reaches 66, and stop the opponent going out when
  possible;
* close the stock when a count of sure tricks makes 66 certain (or, with a
  comfortable margin of likely points, probable).

Once the stock is closed or exhausted (the strict phase), play by counting:
cash sure winners (trumps first, to draw the opponent's trumps), otherwise
lead low; as follower win with the cheapest winning card, else throw the
cheapest card.

Everything is computed from the :class:`~sixtysix_env.game.view.PlayerView`.
"""

from __future__ import annotations

import random

from ..game.actions import CLOSE, EXCHANGE, FIRST_MARRIAGE, MARRIAGE_CARD
from ..game.cards import (
    ACE,
    CARD_POINTS,
    HIGHER_IN_SUIT,
    JACK,
    KING,
    NINE,
    NUM_RANKS,
    QUEEN,
    SUIT_MASK,
    TEN,
    bits_of,
    marriage_halves,
)
from ..game.rules import best_marriage_points, marriage_points
from ..game.view import PlayerView

__all__ = [
    "HeuristicAgent",
    "close_estimate",
    "future_value",
    "open_follow",
    "obvious_action",
    "open_lead",
    "sure_close_total",
    "sure_winners",
]

_bits = bits_of
_marriage_halves = marriage_halves


def keep_value(c: int, hand: int, trump_suit: int, unseen: int, open_phase: bool) -> float:
    """How much a card is worth keeping; the least valuable is led or thrown."""
    return CARD_POINTS[c] + future_value(c, hand, trump_suit, unseen, open_phase)


#: What a trump is worth keeping beyond its card points, by rank 9 J Q K T A.
_TRUMP_FUTURE = (4, 6, 8, 8, 12, 14)


def future_value(c: int, hand: int, trump_suit: int, unseen: int, marriages_open: bool) -> int:
    """What holding on to card ``c`` is worth later, beyond its own card points.

    Trumps capture aces and tens; a side ace (or a ten whose ace is gone)
    wins its suit later; a queen or king may still make a marriage.
    """
    s, r = divmod(c, NUM_RANKS)
    if s == trump_suit:
        v = _TRUMP_FUTURE[r]
    elif r == ACE:
        v = 8
    elif r == TEN:
        v = 5 if unseen >> (s * NUM_RANKS + ACE) & 1 else 8
    elif r == QUEEN or r == KING:
        v = 1
    else:
        v = 0
    if marriages_open and (r == QUEEN or r == KING):
        partner = s * NUM_RANKS + (QUEEN + KING - r)
        if hand >> partner & 1:
            v += 32 if s == trump_suit else 16
        elif unseen >> partner & 1:
            v += 2
    return v


def open_follow(
    hand: int,
    cards: int,
    lead: int,
    trump_suit: int,
    my_points: int,
    opp_points: int,
    going_out: int,
    need_trick: bool,
    unseen: int,
) -> int:
    """The open-phase answer to ``lead`` among ``cards`` (a mask): points won or given away,
    minus what the card is worth keeping; going out first, stopping the opponent next."""
    ls = lead // NUM_RANKS
    lp = CARD_POINTS[lead]
    best, best_score = -1, -1e9
    for c in bits_of(cards):
        cs = c // NUM_RANKS
        tp = lp + CARD_POINTS[c]
        if (cs == ls and c > lead) or (cs == trump_suit and ls != trump_suit):
            if my_points + tp >= going_out:
                score = 1000 - CARD_POINTS[c]
            else:
                score = tp - future_value(c, hand, trump_suit, unseen, True) + (
                    15 if need_trick else 0
                )
        elif opp_points + tp >= going_out:
            score = -1000 - tp
        else:
            score = -tp - future_value(c, hand, trump_suit, unseen, True)
        if score > best_score:
            best, best_score = c, score
    return best


def open_lead(hand: int, cards: int, trump_suit: int, unseen: int) -> int:
    """The open-phase lead among ``cards``: the card cheapest to give up."""
    best, best_cost = -1, 1e9
    for c in bits_of(cards):
        s, r = divmod(c, NUM_RANKS)
        cost = CARD_POINTS[c] + future_value(c, hand, trump_suit, unseen, True)
        if s == trump_suit:
            cost += 5  # a trump led is a trump that captures nothing
        elif r == TEN and unseen >> (s * NUM_RANKS + ACE) & 1:
            cost += 6  # the ace may take it
        if cost < best_cost:
            best, best_cost = c, cost
    return best


def _possible_opponent(view: PlayerView) -> int:
    """Cards the opponent may hold (exactly its hand once the stock is exhausted)."""
    return view.opponent_known | (view.unseen() & ~view.opponent_excluded)


def sure_winners(hand: int, opp: int, opp_known: int, trump_suit: int) -> int:
    """Cards of ``hand`` that win when led in the strict phase against any holding within ``opp``."""
    trump = SUIT_MASK[trump_suit]
    out = 0
    for c in _bits(hand):
        s = c // NUM_RANKS
        if opp & HIGHER_IN_SUIT[c]:
            continue
        if s != trump_suit and opp & trump and not (opp_known & SUIT_MASK[s]):
            continue  # the opponent might be void in the suit and trump it
        out |= 1 << c
    return out


#: Ranks from the top: the order in which a suit's cards become sure winners.
_TOP_DOWN = (ACE, TEN, KING, QUEEN, JACK, NINE)


def sure_close_total(
    hand: int,
    trump_suit: int,
    gone: int,
    points: int,
    won_trick: bool,
    opponent_trumps: int,
    per_trick: int = 0,
) -> int:
    """Points a leader who closes now is sure to reach by cashing its sure tricks.

    ``points`` (its total now), plus the best marriage it may still declare on
    the lead after closing (if it has won a trick), plus the top trumps it
    holds in sequence (cards in ``gone`` are out of play) and, once those draw
    the ``opponent_trumps`` the opponent may hold, the top cards of the side
    suits. ``per_trick`` is added for the opponent's card in each sure trick
    (0 for a certain count). Shared by the heuristic (on a view) and the
    expert's rollouts (on a sampled deal).
    """
    total = points
    if won_trick:
        total += best_marriage_points(hand, trump_suit)
    pts, n_sure = _top_run(hand, trump_suit, gone, per_trick)
    total += pts
    if n_sure >= opponent_trumps:
        # The opponent's trumps are drawn: side-suit tops in sequence are sure.
        for s in range(4):
            if s != trump_suit:
                total += _top_run(hand, s, gone, per_trick)[0]
    return total


def _top_run(hand: int, suit: int, gone: int, per_trick: int) -> tuple[int, int]:
    """Points (plus ``per_trick`` each) and number of the top cards of ``suit`` that ``hand``
    holds in sequence, cards in ``gone`` skipped."""
    pts = n = 0
    for r in _TOP_DOWN:
        c = suit * NUM_RANKS + r
        if gone >> c & 1:
            continue
        if not hand >> c & 1:
            break
        pts += CARD_POINTS[c] + per_trick
        n += 1
    return pts, n


def obvious_action(legal: int) -> int | None:
    """The action to take without thinking: the only legal one, or the exchange of the
    trump 9 (always worth it); None otherwise. ``legal`` is a legal-action mask."""
    if legal & (legal - 1) == 0:
        return legal.bit_length() - 1
    if legal >> EXCHANGE & 1:
        return EXCHANGE
    return None


def close_estimate(view: PlayerView, per_trick: int = 0) -> int:
    """Points the leader is sure to have after cashing its sure tricks in a closed stock
    (:func:`sure_close_total` on what the view knows)."""
    opp = view.opponent_known | view.unseen()  # after a close, any unseen card may be theirs
    opp &= ~view.opponent_excluded
    opp_trumps = (opp & SUIT_MASK[view.trump_suit]).bit_count()
    return sure_close_total(
        view.hand,
        view.trump_suit,
        view.played[0] | view.played[1],
        view.points(view.seat),
        view.tricks_won[view.seat] > 0,
        min(opp_trumps, view.opponent_hand_size),
        per_trick,
    )


class HeuristicAgent:
    """Hand-written club-player strategy (see the module docstring)."""

    name = "heuristic"

    def __init__(self, likely_points_per_trick: int = 4) -> None:
        """``likely_points_per_trick``: card points added per sure trick (the opponent's card)
        when judging a close as probable."""
        if (
            isinstance(likely_points_per_trick, bool)
            or not isinstance(likely_points_per_trick, int)
            or not 0 <= likely_points_per_trick <= 33
        ):
            raise ValueError(
                "likely_points_per_trick must be a whole number of card points from 0 to 33, "
                f"got {likely_points_per_trick!r}"
            )
        #: Extra likely points per sure trick when judging a close as probable.
        self.likely_points_per_trick = likely_points_per_trick

    def act(self, view: PlayerView, rng: random.Random) -> int:
        legal = view.legal_mask
        a = obvious_action(legal)
        if a is not None:
            return a
        strict = view.is_strict
        if view.lead_card is None:
            return self._lead(view, legal, strict)
        return self._follow(view, legal, strict)

    # -- leading ---------------------------------------------------------------

    def _lead(self, view: PlayerView, legal: int, strict: bool) -> int:
        me = view.seat
        hand = view.hand
        ts = view.trump_suit
        unseen = view.unseen()
        going_out = view.rules.going_out
        # Marriages: the trump one first; go out with it if it reaches 66.
        marriages = [a for a in range(FIRST_MARRIAGE, FIRST_MARRIAGE + 8) if legal >> a & 1]
        if marriages:
            def worth(a: int) -> int:
                return marriage_points(MARRIAGE_CARD[a - FIRST_MARRIAGE] // NUM_RANKS, ts)

            best = max(worth(a) for a in marriages)
            options = [a for a in marriages if worth(a) == best]
            if strict:
                opp = _possible_opponent(view)
                sure = sure_winners(hand, opp, view.opponent_known, ts)
                for a in options:
                    if sure >> MARRIAGE_CARD[a - FIRST_MARRIAGE] & 1:
                        return a
            # Lead the queen (the king is worth more and beats it).
            options.sort(key=lambda a: MARRIAGE_CARD[a - FIRST_MARRIAGE] % 6)
            return options[0]
        if legal >> CLOSE & 1 and self._should_close(view):
            return CLOSE
        if strict:
            return self._lead_strict(view, legal)
        cards = _bits(legal & 0xFFFFFF)
        # Need a trick to declare a marriage later: lead a side ace if we have one.
        if not view.tricks_won[me] and _marriage_halves(hand):
            aces = [
                c for c in cards
                if c % 6 == ACE and c // 6 != ts and not _marriage_halves(hand) >> c & 1
            ]
            if aces and view.card_points[1 - me] + 21 < going_out:
                return aces[0]
        return open_lead(hand, legal & 0xFFFFFF, ts, unseen)

    def _should_close(self, view: PlayerView) -> bool:
        go = view.rules.going_out
        if close_estimate(view, 0) >= go:
            return True
        # Probable: a margin of likely points and the opponent far from 66.
        return (
            close_estimate(view, self.likely_points_per_trick) >= go + 6
            and view.points(1 - view.seat) < 40
            and view.tricks_won[view.seat] > 0
        )

    def _lead_strict(self, view: PlayerView, legal: int) -> int:
        hand = view.hand
        ts = view.trump_suit
        trump = SUIT_MASK[ts]
        opp = _possible_opponent(view)
        cards = _bits(legal & 0xFFFFFF)
        sure = sure_winners(hand, opp, view.opponent_known, ts)
        if sure:
            sure_trumps = sure & trump
            if sure_trumps and opp & trump:
                # Draw trumps with the highest sure trump.
                return max(_bits(sure_trumps))
            return max(_bits(sure), key=lambda c: (CARD_POINTS[c], c))
        # No sure winner: lead the cheapest card, avoiding trumps.
        return min(cards, key=lambda c: (CARD_POINTS[c] + (15 if c // 6 == ts else 0), c))

    # -- following -------------------------------------------------------------

    def _follow(self, view: PlayerView, legal: int, strict: bool) -> int:
        me, opp_seat = view.seat, 1 - view.seat
        hand = view.hand
        ts = view.trump_suit
        lead = view.lead_card
        ls = lead // 6
        lp = CARD_POINTS[lead]
        unseen = view.unseen()
        go = view.rules.going_out
        cards = _bits(legal & 0xFFFFFF)
        winners = [
            c for c in cards
            if (c // 6 == ls and c > lead) or (c // 6 == ts and ls != ts)
        ]
        losers = [c for c in cards if c not in winners]
        my_pts = view.card_points[me] + view.marriage_points[me]

        def keep(c: int) -> float:
            return keep_value(c, hand, ts, unseen, not strict)

        def cheapest(cs: list[int]) -> int:
            return min(cs, key=lambda c: (keep(c), c))

        # Going out by winning this trick.
        outs = [c for c in winners if my_pts + lp + CARD_POINTS[c] >= go]
        if outs:
            return cheapest(outs)
        # Stop the opponent going out.
        opp_pts = view.card_points[opp_seat] + view.marriage_points[opp_seat]
        if losers and winners and opp_pts + lp + min(CARD_POINTS[c] for c in losers) >= go:
            return cheapest(winners)
        if strict:
            if winners:
                return cheapest(winners)
            return min(cards, key=lambda c: (CARD_POINTS[c] + (15 if c // 6 == ts else 0), c))
        # Open phase: weigh the points of the trick against the card spent.
        need_trick = not view.tricks_won[me] and bool(_marriage_halves(hand))
        return open_follow(hand, legal & 0xFFFFFF, lead, ts, my_pts, opp_pts, go, need_trick, unseen)
