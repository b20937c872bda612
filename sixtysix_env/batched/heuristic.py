"""``heuristic`` compiled: :class:`~sixtysix_env.agents.heuristic.HeuristicAgent`'s moves in
every lane at once.

Each function is the one of the same name in ``agents/heuristic.py``, rule by
rule, on the lane's arrays instead of a :class:`~sixtysix_env.game.view.PlayerView`
(the view's fields are derived as ``view.seat_knowledge`` derives them). Ties
are broken as there: the lowest card id where the original takes ``min``, the
highest where it takes ``max``. ``tests/agents/test_compiled_heuristic.py``
compares the two on every decision of many random and heuristic games.
"""

from __future__ import annotations

import numba
import numpy as np

from ..game.actions import CLOSE, EXCHANGE, FIRST_MARRIAGE
from ..game.cards import (
    ACE,
    ALL_CARDS,
    KING,
    NUM_CARDS,
    NUM_RANKS,
    NUM_SUITS,
    QUEEN,
    TEN,
)
from ..game.rules import MARRIAGE_POINTS, TRUMP_MARRIAGE_POINTS
from . import kernels as kn
from .kernels import _HIGHER, _POINTS, _QUEEN_KING, _SUIT  # the card tables, built once

_jit = numba.njit(cache=True, nogil=True)

_TRUMP_FUTURE = np.array((4, 6, 8, 8, 12, 14), np.int64)
_TOP_DOWN = np.array((5, 4, 3, 2, 1, 0), np.int64)  # ACE, TEN, KING, QUEEN, JACK, NINE


@_jit
def _marriage_halves(hand):
    m = 0
    for s in range(NUM_SUITS):
        qk = _QUEEN_KING[s]
        if hand & qk == qk:
            m |= qk
    return m


@_jit
def _marriage_points(suit, ts):
    """``rules.marriage_points``."""
    return TRUMP_MARRIAGE_POINTS if suit == ts else MARRIAGE_POINTS


@_jit
def future_value(c, hand, ts, unseen, marriages_open):
    s = c // NUM_RANKS
    r = c % NUM_RANKS
    if s == ts:
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
            v += 32 if s == ts else 16
        elif unseen >> partner & 1:
            v += 2
    return v


@_jit
def _is_winner(c, lead, ts):
    cs = c // NUM_RANKS
    ls = lead // NUM_RANKS
    return (cs == ls and c > lead) or (cs == ts and ls != ts)


@_jit
def open_follow(hand, cards, lead, ts, my_points, opp_points, going_out, need_trick, unseen):
    lp = _POINTS[lead]
    best = -1
    best_score = -1_000_000_000
    for c in range(NUM_CARDS):
        if not cards >> c & 1:
            continue
        tp = lp + _POINTS[c]
        if _is_winner(c, lead, ts):
            if my_points + tp >= going_out:
                score = 1000 - _POINTS[c]
            else:
                score = tp - future_value(c, hand, ts, unseen, True) + (15 if need_trick else 0)
        elif opp_points + tp >= going_out:
            score = -1000 - tp
        else:
            score = -tp - future_value(c, hand, ts, unseen, True)
        if score > best_score:
            best = c
            best_score = score
    return best


@_jit
def open_lead(hand, cards, ts, unseen):
    best = -1
    best_cost = 1_000_000_000
    for c in range(NUM_CARDS):
        if not cards >> c & 1:
            continue
        s = c // NUM_RANKS
        r = c % NUM_RANKS
        cost = _POINTS[c] + future_value(c, hand, ts, unseen, True)
        if s == ts:
            cost += 5
        elif r == TEN and unseen >> (s * NUM_RANKS + ACE) & 1:
            cost += 6
        if cost < best_cost:
            best = c
            best_cost = cost
    return best


@_jit
def sure_winners(hand, opp, opp_known, ts):
    trump = _SUIT[ts]
    out = 0
    for c in range(NUM_CARDS):
        if not hand >> c & 1:
            continue
        s = c // NUM_RANKS
        if opp & _HIGHER[c]:
            continue
        if s != ts and opp & trump and not (opp_known & _SUIT[s]):
            continue
        out |= 1 << c
    return out


@_jit
def _top_run(hand, suit, gone, per_trick):
    pts = 0
    n = 0
    for k in range(NUM_RANKS):
        c = suit * NUM_RANKS + _TOP_DOWN[k]
        if gone >> c & 1:
            continue
        if not hand >> c & 1:
            break
        pts += _POINTS[c] + per_trick
        n += 1
    return pts, n


@_jit
def sure_close_total(hand, ts, gone, points, won_trick, opponent_trumps, per_trick):
    total = points
    if won_trick:
        best = 0
        for s in range(NUM_SUITS):
            qk = _QUEEN_KING[s]
            if hand & qk == qk:
                best = max(best, _marriage_points(s, ts))
        total += best
    pts, n_sure = _top_run(hand, ts, gone, per_trick)
    total += pts
    if n_sure >= opponent_trumps:
        for s in range(4):
            if s != ts:
                total += _top_run(hand, s, gone, per_trick)[0]
    return total


@_jit
def _points(S, i, seat):
    cp = S[i, kn.CARD_PTS + seat]  # view.points: pending marriage points not counted
    return cp + S[i, kn.MAR_PTS + seat] - S[i, kn.PENDING + seat] if S[i, kn.TRICKS + seat] else cp


@_jit
def heuristic_action(S, R, i, s, per_trick):
    """``HeuristicAgent(likely_points_per_trick=per_trick).act`` for seat ``s`` (to act) of lane ``i``."""
    legal = kn.legal_mask(S, R, i)
    if legal & (legal - 1) == 0:  # obvious_action: the only legal one
        a = 0
        while not legal >> a & 1:
            a += 1
        return a
    if legal >> EXCHANGE & 1:  # ... or the exchange of the trump 9
        return EXCHANGE
    o = 1 - s
    hand = S[i, kn.HAND + s]
    opp_hand = S[i, kn.HAND + o]
    stock_left = kn.STOCK_LEN - S[i, kn.STOCK_POS]
    closed = S[i, kn.CLOSED_BY] >= 0
    strict = closed or stock_left == 0
    played = S[i, kn.PLAYED] | S[i, kn.PLAYED + 1]
    # The view's fields (view.seat_knowledge).
    if not closed and stock_left == 0:
        opp_known = opp_hand
    else:
        opp_known = S[i, kn.KNOWN + o] & opp_hand
    opp_excl = S[i, kn.EXCLUDED + o] & ~(played | hand)
    unseen = R[kn.R_DECK_MASK] & ~hand & ~played & ~opp_known
    if stock_left:
        unseen &= ~(1 << S[i, kn.TRUMP_CARD])
    ts = S[i, kn.TRUMP_SUIT]
    trump = _SUIT[ts]
    go = R[kn.R_GOING_OUT]
    cards = legal & ALL_CARDS
    lead = S[i, kn.LEAD]
    if lead < 0:
        return _lead(S, R, i, s, legal, strict, hand, opp_hand, opp_known, opp_excl, unseen, ts,
                     trump, go, cards, played, per_trick)
    # -- following
    lp = _POINTS[lead]
    winners = 0
    for c in range(NUM_CARDS):
        if cards >> c & 1 and _is_winner(c, lead, ts):
            winners |= 1 << c
    losers = cards & ~winners
    my_pts = S[i, kn.CARD_PTS + s] + S[i, kn.MAR_PTS + s]
    outs = 0
    for c in range(NUM_CARDS):
        if winners >> c & 1 and my_pts + lp + _POINTS[c] >= go:
            outs |= 1 << c
    if outs:
        return _cheapest(outs, hand, ts, unseen, not strict)
    opp_pts = S[i, kn.CARD_PTS + o] + S[i, kn.MAR_PTS + o]
    if losers and winners:
        least = 1000
        for c in range(NUM_CARDS):
            if losers >> c & 1:
                least = min(least, _POINTS[c])
        if opp_pts + lp + least >= go:
            return _cheapest(winners, hand, ts, unseen, not strict)
    if strict:
        if winners:
            return _cheapest(winners, hand, ts, unseen, not strict)
        return _cheapest_avoiding_trumps(cards, ts)
    need_trick = S[i, kn.TRICKS + s] == 0 and _marriage_halves(hand) != 0
    return open_follow(hand, cards, lead, ts, my_pts, opp_pts, go, need_trick, unseen)


@_jit
def _cheapest(cards, hand, ts, unseen, marriages_open):
    """min(cards, key=(keep_value, c))."""
    best = -1
    best_keep = 1_000_000_000
    for c in range(NUM_CARDS):
        if cards >> c & 1:
            keep = _POINTS[c] + future_value(c, hand, ts, unseen, marriages_open)
            if keep < best_keep:
                best = c
                best_keep = keep
    return best


@_jit
def _cheapest_avoiding_trumps(cards, ts):
    """min(cards, key=(card points + 15 for a trump, c))."""
    best = -1
    best_cost = 1_000_000_000
    for c in range(NUM_CARDS):
        if cards >> c & 1:
            cost = _POINTS[c] + (15 if c // NUM_RANKS == ts else 0)
            if cost < best_cost:
                best = c
                best_cost = cost
    return best


@_jit
def _lead(S, R, i, s, legal, strict, hand, opp_hand, opp_known, opp_excl, unseen, ts, trump, go,
          cards, played, per_trick):
    o = 1 - s
    # Marriages: the trump one first.
    best = 0
    for a in range(FIRST_MARRIAGE, EXCHANGE):
        if legal >> a & 1:
            best = max(best, _marriage_points((a - FIRST_MARRIAGE) // 2, ts))
    if best:
        if strict:
            opp = opp_known | (unseen & ~opp_excl)
            sure = sure_winners(hand, opp, opp_known, ts)
            for a in range(FIRST_MARRIAGE, EXCHANGE):
                suit = (a - FIRST_MARRIAGE) // 2
                if legal >> a & 1 and _marriage_points(suit, ts) == best:
                    card = suit * NUM_RANKS + (KING if (a - FIRST_MARRIAGE) % 2 else QUEEN)
                    if sure >> card & 1:
                        return a
        # Lead the queen: the first queen among the best options, else the first king.
        for want in (0, 1):
            for a in range(FIRST_MARRIAGE, EXCHANGE):
                suit = (a - FIRST_MARRIAGE) // 2
                if (legal >> a & 1 and (a - FIRST_MARRIAGE) % 2 == want
                        and _marriage_points(suit, ts) == best):
                    return a
    if legal >> CLOSE & 1 and _should_close(S, i, s, hand, opp_known, opp_excl, unseen, ts,
                                           played, go, per_trick):
        return CLOSE
    if strict:
        opp = opp_known | (unseen & ~opp_excl)
        sure = sure_winners(hand, opp, opp_known, ts)
        if sure:
            sure_trumps = sure & trump
            if sure_trumps and opp & trump:
                top = -1
                for c in range(NUM_CARDS):
                    if sure_trumps >> c & 1:
                        top = c
                return top
            top = -1
            top_pts = -1
            for c in range(NUM_CARDS):
                if sure >> c & 1 and _POINTS[c] >= top_pts:
                    top = c
                    top_pts = _POINTS[c]
            return top
        return _cheapest_avoiding_trumps(cards, ts)
    halves = _marriage_halves(hand)
    if S[i, kn.TRICKS + s] == 0 and halves:
        for c in range(NUM_CARDS):
            if (cards >> c & 1 and c % NUM_RANKS == ACE and c // NUM_RANKS != ts and not halves >> c & 1):
                if S[i, kn.CARD_PTS + o] + 21 < go:
                    return c
                break
    return open_lead(hand, cards, ts, unseen)


@_jit
def _should_close(S, i, s, hand, opp_known, opp_excl, unseen, ts, played, go, per_trick):
    o = 1 - s
    opp = (opp_known | unseen) & ~opp_excl
    opp_trumps = min(kn._popcount(opp & _SUIT[ts]), kn._popcount(S[i, kn.HAND + o]))
    points = _points(S, i, s)
    won = S[i, kn.TRICKS + s] > 0
    if sure_close_total(hand, ts, played, points, won, opp_trumps, 0) >= go:
        return True
    return (sure_close_total(hand, ts, played, points, won, opp_trumps, per_trick) >= go + 6
            and _points(S, i, o) < 40 and won)


@_jit
def heuristic_actions(S, R, lanes, seats, per_trick, out):
    for j in range(lanes.shape[0]):
        out[j] = heuristic_action(S, R, lanes[j], seats[j], per_trick)


@_jit
def play_heuristic_until(S, K, R, lanes, seats, per_trick):
    """In each lane, the heuristic moves for ``1 - seats[j]`` until ``seats[j]`` is to act or the
    hand is over."""
    for j in range(lanes.shape[0]):
        i = lanes[j]
        while not S[i, kn.OVER] and S[i, kn.TO_MOVE] != seats[j]:
            kn.apply_one(S, K, R, i, heuristic_action(S, R, i, 1 - seats[j], per_trick))
