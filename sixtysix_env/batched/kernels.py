"""The batched engine's compiled loops (numba): N hands held in arrays, one lane each.

Every function here takes the whole batch's arrays and a list of lanes, and
runs the scalar engine's own steps (``sixtysix_env.game.engine``) on each of those
lanes in one compiled loop. The code of a lane is written to read like the
scalar engine's, rule by rule, so that the two can be compared line by line;
the tests (``tests/batched/``) play the same deals with the same moves on both
and compare every legal mask, observation and result.

The state of lane ``i`` is row ``S[i]`` (int64), laid out as below; the
face-down stock is row ``K[i]`` (11 columns: the card ids in drawing order,
right-aligned, so a 20-card deal's 9 fill columns 2-10 and ``STOCK_POS``
starts at 2: ``STOCK_LEN - STOCK_POS`` is the face-down count everywhere).

=====  ==========  ====================================================
index  name        meaning
=====  ==========  ====================================================
0-1    HAND        cards in each seat's hand (mask)
2-3    CARD_PTS    card points taken in tricks
4-5    MAR_PTS     marriage points declared
6-7    TRICKS      tricks won
8-9    PLAYED      cards each seat has played (the card on the table too)
10-11  KNOWN       cards of the seat the opponent has seen
12-13  EXCLUDED    cards the seat is known not to hold (strict play)
14     STOCK_POS   the next face-down card's column of ``K`` (11 once drawn out)
15     TRUMP_CARD  the face-up card under the stock (the 9 after an exchange)
16     TRUMP_SUIT
17     DEALER
18     LEADER
19     TO_MOVE
20     LEAD        card on the table, or -1
21     CLOSED_BY   seat that closed the stock, or -1
22     TRICK_NO    tricks completed
23     JUST_CLOSED 1 between a close and the lead that follows it
24-25  PENDING     marriage points declared and not yet redeemed
26-27  WON         cards in the tricks each seat has won
28-29  MAR_SUITS   suits (bits) in which each seat declared a marriage
30-31  EXCHANGED   1 if the seat exchanged the trump 9 (or jack)
32-34  CLOSE_INFO  the closer's opponent's card points, marriage points
                   (counted ones) and tricks when the stock was closed
35     HAS_CLOSE   1 once CLOSE_INFO is set
36     OVER        1 once the hand has ended
37     WINNER      the hand's winner, -1 for a tie (or before the end)
38     GP          the winner's game points
39     REASON      1 went out, 2 failed close, 3 last trick, 4 tie
40     LAST_WON    the winner of the last trick when the hand ran out, else -1
41-42  TOTALS      each seat's total at the end (as ``HandResult.totals``)
43-44  SCORE       the match score (game points) the hand was dealt at
=====  ==========  ====================================================

The rule switches come as an int64 vector ``R`` (see :func:`rule_vector`) and
the observation's rule part as a float64 vector (``policy.observation``'s own).
"""

from __future__ import annotations

import numba
import numpy as np

from ..game import engine as ref
from ..game import events
from ..game.actions import CLOSE, EXCHANGE, FIRST_MARRIAGE, NUM_ACTIONS
from ..game.cards import (
    CARD_POINTS,
    HIGHER_IN_SUIT,
    KING,
    NUM_CARDS,
    NUM_RANKS,
    NUM_SUITS,
    QUEEN,
    QUEEN_KING,
    SUIT_MASK,
)
from ..game.rules import (
    BEATS,
    FAILED_CLOSE_PENALTIES,
    MARRIAGE_POINTS,
    ONE_POINT_TOTAL,
    TRUMP_MARRIAGE_POINTS,
    RuleConfig,
)
from ..policy.observation import (
    CARD_POINTS_SCALE,
    HAND_SIZE_SCALE,
    INDEX,
    MARRIAGE_POINTS_SCALE,
    STOCK_LEFT_SLOTS,
    TRICKS_SCALE,
)

# Fields 0-25 are the reference state's ``v`` (game.engine names them); 26-44 are the
# kernels' own (what the reference keeps in ``log``, ``close_info`` and ``result``).
HAND, CARD_PTS, MAR_PTS, TRICKS, PLAYED = ref.HAND, ref.CARD_PTS, ref.MARRIAGE_PTS, ref.TRICKS, ref.PLAYED
KNOWN, EXCLUDED, STOCK_POS, TRUMP_CARD = ref.KNOWN, ref.EXCLUDED, ref.STOCK_POS, ref.TRUMP_CARD
TRUMP_SUIT, DEALER, LEADER, TO_MOVE = ref.TRUMP_SUIT, ref.DEALER, ref.LEADER, ref.TO_MOVE
LEAD, CLOSED_BY, TRICK_NO, JUST_CLOSED = ref.LEAD, ref.CLOSED_BY, ref.TRICK_NO, ref.JUST_CLOSED
PENDING = ref.PENDING
WON, MAR_SUITS, EXCHANGED, CLOSE_INFO, HAS_CLOSE = 26, 28, 30, 32, 35
OVER, WINNER, GP, REASON, LAST_WON, TOTALS, SCORE = 36, 37, 38, 39, 40, 41, 43
NUM_FIELDS = 45
assert WON == ref.NUM_FIELDS, "the kernels' own fields follow the reference state's"
HAND_SIZE = ref.HAND_SIZE
#: The deck's order when dealt (game.engine._deal): three cards to the non-dealer, three to
#: the dealer, the rest of each hand (three, or two), then the trump card turned up, then
#: the stock.
DEAL_PACKET = ref.DEAL_PACKET
#: Columns of ``K``: the longest stock (24-card deck); a shorter one is right-aligned.
STOCK_LEN = NUM_CARDS - 2 * HAND_SIZE - 1

# Reason codes: the index in REASONS (the environments' info["hand_reason"] codes).
REASONS = ("", events.WENT_OUT, events.FAILED_CLOSE, events.LAST_TRICK, events.TIE)
WENT_OUT, FAILED_CLOSE, LAST_TRICK, TIE = 1, 2, 3, 4

# The rule vector R.
R_MUST_BEAT, R_MARRIAGE_AFTER_CLOSE, R_CLOSE_ON_FIRST_LEAD = 0, 1, 2
R_MIN_CLOSE, R_MIN_EXCHANGE, R_PENALTY, R_TOTALS_AT_CLOSE = 3, 4, 5, 6
R_GOING_OUT, R_LAST_TRICK_BONUS, R_MATCH_TARGET = 7, 8, 9
# What the deck implies, and the 20-card presets' switches.
R_HAND_SIZE, R_DECK_MASK, R_EXCHANGE_RANK, R_CLOSING = 10, 11, 12, 13
R_MARRIAGE_NEEDS_TRICK, R_EXCHANGE_NEEDS_TRICK, R_PENDING = 14, 15, 16
R_MARRIAGE_ACTIONS, R_LAST_TRICK_WINS = 17, 18
NUM_RULES = 19

_SUIT = np.array(SUIT_MASK, np.int64)
_QUEEN_KING = np.array(QUEEN_KING, np.int64)
_HIGHER = np.array(HIGHER_IN_SUIT, np.int64)
_POINTS = np.array(CARD_POINTS, np.int64)
_BEATS = np.array(BEATS, np.int64)  # [trump suit, lead] -> the cards that beat it

# Observation indices (policy.observation's table is the one place the layout is written).
O_TRUMP, O_LEAD, O_MY_PLAYED, O_OPP_PLAYED = (
    INDEX["trump_card"], INDEX["lead"], INDEX["my_played"], INDEX["opp_played"])
O_MY_WON, O_OPP_WON, O_OPP_KNOWN, O_OPP_EXCL = (
    INDEX["my_won"], INDEX["opp_won"], INDEX["opp_known"], INDEX["opp_excluded"])
O_UNSEEN, O_MY_KNOWN, O_MY_EXCL = INDEX["unseen"], INDEX["my_known"], INDEX["my_excluded"]
O_TRUMP_SUIT, O_OPP_VOID, O_MY_MAR, O_OPP_MAR = (
    INDEX["trump_suit"], INDEX["opp_void"], INDEX["my_marriages"], INDEX["opp_marriages"])
O_FLAGS, O_STOCK, O_NUMBERS = INDEX["my_turn"], INDEX["stock_left"], INDEX["my_card_points"]
O_RULES = INDEX["must_beat_in_suit"]
_ORDER = ("my_turn", "i_lead", "i_deal", "open", "closed", "exhausted", "closed_by_me",
          "closed_by_opp", "just_closed", "my_trick", "opp_trick", "my_exchange",
          "opp_exchange", "hand_over", "stock_left")
assert all(INDEX[a] + 1 == INDEX[b] for a, b in zip(_ORDER, _ORDER[1:])), "flag order"
assert INDEX["close_card_points"] == O_NUMBERS + 9 and O_RULES == O_NUMBERS + 12


def rule_vector(rules: RuleConfig) -> np.ndarray:
    """The rule switches as the kernels read them."""
    r = np.zeros(NUM_RULES, np.int64)
    r[R_MUST_BEAT] = rules.must_beat_in_suit
    r[R_MARRIAGE_AFTER_CLOSE] = rules.marriage_after_close
    r[R_CLOSE_ON_FIRST_LEAD] = rules.close_on_first_lead
    r[R_MIN_CLOSE] = rules.min_stock_to_close
    r[R_MIN_EXCHANGE] = rules.min_stock_to_exchange
    r[R_PENALTY] = FAILED_CLOSE_PENALTIES.index(rules.failed_close_penalty)
    r[R_TOTALS_AT_CLOSE] = rules.opponent_totals_at == "close"
    r[R_GOING_OUT] = rules.going_out
    r[R_LAST_TRICK_BONUS] = rules.last_trick_bonus
    r[R_MATCH_TARGET] = rules.match_target
    r[R_HAND_SIZE] = rules.hand_size
    r[R_DECK_MASK] = rules.deck_mask
    r[R_EXCHANGE_RANK] = rules.exchange_rank
    r[R_CLOSING] = rules.closing
    r[R_MARRIAGE_NEEDS_TRICK] = rules.marriage_needs_trick
    r[R_EXCHANGE_NEEDS_TRICK] = rules.exchange_needs_trick
    r[R_PENDING] = rules.marriage_points_pending
    r[R_MARRIAGE_ACTIONS] = rules.marriage_actions
    r[R_LAST_TRICK_WINS] = rules.last_trick_wins
    return r


_jit = numba.njit(cache=True, nogil=True)


# -- dealing ---------------------------------------------------------------------


@_jit
def deal(S, K, R, lanes, decks, dealers, scores):
    """Start a hand in each of ``lanes`` from ``decks[j]`` (the rules' 24 or 20 card ids, top
    first), as ``engine.deal_from_deck``: three cards each, then the rest of each hand, the
    next card turned up, the rest the stock (right-aligned in ``K``)."""
    hand_size = R[R_HAND_SIZE]
    trump_pos = 2 * hand_size
    rest = hand_size - DEAL_PACKET
    stock_n = decks.shape[1] - trump_pos - 1
    for j in range(lanes.shape[0]):
        i = lanes[j]
        for f in range(NUM_FIELDS):
            S[i, f] = 0
        d = dealers[j]
        non = 1 - d
        deck = decks[j]
        for k in range(trump_pos):
            if k < DEAL_PACKET or DEAL_PACKET * 2 <= k < DEAL_PACKET * 2 + rest:
                seat = non
            else:
                seat = d
            S[i, HAND + seat] |= 1 << deck[k]
        S[i, TRUMP_CARD] = deck[trump_pos]
        S[i, TRUMP_SUIT] = deck[trump_pos] // NUM_RANKS
        for k in range(STOCK_LEN - stock_n):
            K[i, k] = -1
        for k in range(stock_n):
            K[i, STOCK_LEN - stock_n + k] = deck[trump_pos + 1 + k]
        S[i, STOCK_POS] = STOCK_LEN - stock_n
        S[i, DEALER] = d
        S[i, LEADER] = non
        S[i, TO_MOVE] = non
        S[i, LEAD] = -1
        S[i, CLOSED_BY] = -1
        S[i, WINNER] = -1
        S[i, LAST_WON] = -1
        S[i, SCORE] = scores[j, 0]
        S[i, SCORE + 1] = scores[j, 1]


# -- the rules ---------------------------------------------------------------------


@_jit
def legal_mask(S, R, i):
    """``State.legal_mask`` of lane ``i`` (0 once the hand is over)."""
    if S[i, OVER]:
        return 0
    p = S[i, TO_MOVE]
    hand = S[i, HAND + p]
    closed = S[i, CLOSED_BY] >= 0
    stock_left = STOCK_LEN - S[i, STOCK_POS]
    lead = S[i, LEAD]
    if lead >= 0:
        if closed or stock_left == 0:
            # rules.follow_mask
            follow = hand & _SUIT[lead // NUM_RANKS]
            if follow:
                if R[R_MUST_BEAT]:
                    higher = follow & _HIGHER[lead]
                    return higher if higher else follow
                return follow
            trumps = hand & _SUIT[S[i, TRUMP_SUIT]]
            return trumps if trumps else hand
        return hand
    m = hand
    won = S[i, TRICKS + p] > 0
    ts = S[i, TRUMP_SUIT]
    # rules.marriage_refusal
    if (won or not R[R_MARRIAGE_NEEDS_TRICK]) and not (
            (closed or stock_left == 0) and not (R[R_MARRIAGE_AFTER_CLOSE] or S[i, JUST_CLOSED])):
        for s in range(NUM_SUITS):
            qk = _QUEEN_KING[s]
            if hand & qk == qk:
                # declared with the queen or the king (the king only, under marriage_lead="king")
                m |= (3 << (FIRST_MARRIAGE + 2 * s)) & R[R_MARRIAGE_ACTIONS]
    # rules.exchange_refusal
    if (hand >> (ts * NUM_RANKS + R[R_EXCHANGE_RANK]) & 1
            and (won or not R[R_EXCHANGE_NEEDS_TRICK]) and not closed and stock_left > 0
            and stock_left >= R[R_MIN_EXCHANGE]):
        m |= 1 << EXCHANGE
    # rules.close_refusal
    if (R[R_CLOSING] and not closed and stock_left > 0
            and (S[i, TRICK_NO] > 0 or R[R_CLOSE_ON_FIRST_LEAD])
            and stock_left >= R[R_MIN_CLOSE]):
        m |= 1 << CLOSE
    return m


@_jit
def legal_masks(S, R, lanes, out):
    for j in range(lanes.shape[0]):
        out[j] = legal_mask(S, R, lanes[j])


@_jit
def _total(S, i, seat):
    # rules.counted_total: marriages count once the side has won a trick (pending ones once
    # redeemed)
    cp = S[i, CARD_PTS + seat]
    if S[i, TRICKS + seat]:
        return cp + S[i, MAR_PTS + seat] - S[i, PENDING + seat]
    return cp


@_jit
def _game_points(loser_total, loser_tricks):
    # rules.game_points (solver.py's searches score with it too)
    if loser_tricks == 0:
        return 3
    return 1 if loser_total >= ONE_POINT_TOTAL else 2


@_jit
def _failed_close_points(S, R, i):
    pen = R[R_PENALTY]
    if pen == 1:  # "2-or-3"
        return 3 if S[i, CLOSE_INFO + 2] == 0 else 2
    return 2 if pen == 0 else 3


@_jit
def _set_result(S, i, winner, gp, reason, t0, t1, last):
    S[i, OVER] = 1
    S[i, WINNER] = winner
    S[i, GP] = gp
    S[i, REASON] = reason
    S[i, TOTALS] = t0
    S[i, TOTALS + 1] = t1
    S[i, LAST_WON] = last


@_jit
def _end_went_out(S, R, i, w):
    lo = 1 - w
    closer = S[i, CLOSED_BY]
    t = np.empty(2, np.int64)
    t[0] = _total(S, i, 0)
    t[1] = _total(S, i, 1)
    if closer >= 0 and closer != w:
        _set_result(S, i, w, _failed_close_points(S, R, i), FAILED_CLOSE, t[0], t[1], -1)
        return
    lo_total = t[lo]
    lo_tricks = S[i, TRICKS + lo]
    if closer == w and R[R_TOTALS_AT_CLOSE]:
        ctr = S[i, CLOSE_INFO + 2]
        lo_total = S[i, CLOSE_INFO] + (S[i, CLOSE_INFO + 1] if ctr else 0)
        lo_tricks = ctr
        t[lo] = lo_total
    _set_result(S, i, w, _game_points(lo_total, lo_tricks), WENT_OUT, t[0], t[1], -1)


@_jit
def _end_ran_out(S, R, i, last):
    closer = S[i, CLOSED_BY]
    t0 = _total(S, i, 0)
    t1 = _total(S, i, 1)
    if closer >= 0:
        _set_result(S, i, 1 - closer, _failed_close_points(S, R, i), FAILED_CLOSE, t0, t1, last)
        return
    if R[R_LAST_TRICK_WINS]:  # the last trick wins the hand, for one game point
        _set_result(S, i, last, 1, LAST_TRICK, t0, t1, last)
        return
    if last == 0:
        t0 += R[R_LAST_TRICK_BONUS]
    else:
        t1 += R[R_LAST_TRICK_BONUS]
    if t0 == t1:
        _set_result(S, i, -1, 0, TIE, t0, t1, last)
        return
    w = 0 if t0 > t1 else 1
    lo_total = t1 if w == 0 else t0
    _set_result(S, i, w, _game_points(lo_total, S[i, TRICKS + 1 - w]), LAST_TRICK, t0, t1, last)


@_jit
def _declare(S, R, i, p, k):
    """Seat ``p`` of lane ``i`` leads a queen or king (marriage action ``24 + k``), declaring."""
    suit = k // 2
    c = suit * NUM_RANKS + (KING if k % 2 else QUEEN)
    shown = c - 1 if k % 2 else c + 1
    pts = TRUMP_MARRIAGE_POINTS if suit == S[i, TRUMP_SUIT] else MARRIAGE_POINTS
    S[i, MAR_PTS + p] += pts
    if R[R_PENDING]:
        S[i, PENDING + p] += pts
    S[i, KNOWN + p] |= 1 << shown
    S[i, MAR_SUITS + p] |= 1 << suit
    S[i, HAND + p] ^= 1 << c
    S[i, PLAYED + p] |= 1 << c
    S[i, LEAD] = c
    S[i, JUST_CLOSED] = 0
    S[i, TO_MOVE] = 1 - p
    # Going out by declaring (the points counted: none before a trick, none pending).
    if (S[i, TRICKS + p]
            and S[i, CARD_PTS + p] + S[i, MAR_PTS + p] - S[i, PENDING + p] >= R[R_GOING_OUT]):
        _end_went_out(S, R, i, p)


@_jit
def apply_one(S, K, R, i, action):
    """``engine._apply`` on lane ``i``: the action must be legal there."""
    p = S[i, TO_MOVE]
    ts = S[i, TRUMP_SUIT]
    if action == EXCHANGE:  # the trump 9 (or jack) for the face-up trump card
        nine = ts * NUM_RANKS + R[R_EXCHANGE_RANK]
        taken = S[i, TRUMP_CARD]
        S[i, HAND + p] = (S[i, HAND + p] & ~(1 << nine)) | (1 << taken)
        S[i, KNOWN + p] |= 1 << taken
        S[i, TRUMP_CARD] = nine
        S[i, EXCHANGED + p] = 1
        return
    if action == CLOSE:
        o = 1 - p
        S[i, CLOSED_BY] = p
        S[i, JUST_CLOSED] = 1
        S[i, CLOSE_INFO] = S[i, CARD_PTS + o]
        S[i, CLOSE_INFO + 1] = S[i, MAR_PTS + o] - S[i, PENDING + o]
        S[i, CLOSE_INFO + 2] = S[i, TRICKS + o]
        S[i, HAS_CLOSE] = 1
        return
    if action >= FIRST_MARRIAGE:  # lead a queen or king, declaring the marriage
        _declare(S, R, i, p, action - FIRST_MARRIAGE)
        return
    c = action
    bit = 1 << c
    S[i, HAND + p] ^= bit
    S[i, PLAYED + p] |= bit
    lead = S[i, LEAD]
    if lead < 0:
        S[i, LEAD] = c
        S[i, JUST_CLOSED] = 0
        S[i, TO_MOVE] = 1 - p
        return
    leader = 1 - p
    ls = lead // NUM_RANKS
    fs = c // NUM_RANKS
    closed = S[i, CLOSED_BY] >= 0
    pos = S[i, STOCK_POS]
    stock_left = STOCK_LEN - pos
    if closed or stock_left == 0:
        if fs != ls:
            if fs == ts:
                S[i, EXCLUDED + p] |= _SUIT[ls]
            else:
                S[i, EXCLUDED + p] |= _SUIT[ls] | _SUIT[ts]
        elif c < lead and R[R_MUST_BEAT]:
            S[i, EXCLUDED + p] |= _HIGHER[lead]
    w = p if _BEATS[ts, lead] >> c & 1 else leader
    S[i, CARD_PTS + w] += _POINTS[lead] + _POINTS[c]
    S[i, TRICKS + w] += 1
    S[i, TRICK_NO] += 1
    S[i, PENDING + w] = 0  # a won trick redeems the winner's pending marriage points
    S[i, WON + w] |= (1 << lead) | bit
    S[i, LEAD] = -1
    S[i, LEADER] = w
    S[i, TO_MOVE] = w
    lo = 1 - w
    if not closed and stock_left:
        S[i, HAND + w] |= 1 << K[i, pos]
        if stock_left > 1:
            S[i, HAND + lo] |= 1 << K[i, pos + 1]
            S[i, STOCK_POS] = pos + 2
        else:
            t = S[i, TRUMP_CARD]
            S[i, HAND + lo] |= 1 << t
            S[i, KNOWN + lo] |= 1 << t
            S[i, STOCK_POS] = pos + 1
    if S[i, CARD_PTS + w] + S[i, MAR_PTS + w] >= R[R_GOING_OUT]:
        _end_went_out(S, R, i, w)
    elif (S[i, HAND] | S[i, HAND + 1]) == 0:
        _end_ran_out(S, R, i, w)


@_jit
def apply_actions(S, K, R, lanes, actions):
    for j in range(lanes.shape[0]):
        apply_one(S, K, R, lanes[j], actions[j])


@_jit
def returns(S, lanes, seats, out):
    """Each lane's game points for ``seats[j]`` (0 until the hand is over, or for a tie)."""
    for j in range(lanes.shape[0]):
        i = lanes[j]
        w = S[i, WINNER]
        if not S[i, OVER] or w < 0:
            out[j] = 0
        elif w == seats[j]:
            out[j] = S[i, GP]
        else:
            out[j] = -S[i, GP]


# -- the observation -----------------------------------------------------------------


@_jit
def _popcount(m):
    k = 0
    while m:
        m &= m - 1
        k += 1
    return k


@_jit
def _cards(obs, j, start, m):
    for b in range(NUM_CARDS):
        obs[j, start + b] = m >> b & 1


@_jit
def observe_one(S, R, rules_part, i, s, obs, masks, j):
    """Row ``j`` of ``obs`` and ``masks``: ``policy.observation``'s vector and mask for seat ``s``
    of lane ``i``, built from what that seat may know (``view.seat_knowledge``)."""
    o = 1 - s
    hand = S[i, HAND + s]
    opp_hand = S[i, HAND + o]
    pos = S[i, STOCK_POS]
    stock_left = STOCK_LEN - pos
    closed_by = S[i, CLOSED_BY]
    exhausted = closed_by < 0 and stock_left == 0
    if exhausted:
        opp_known = opp_hand
        own_known = hand
    else:
        opp_known = S[i, KNOWN + o] & opp_hand
        own_known = S[i, KNOWN + s] & hand
    my_played = S[i, PLAYED + s]
    opp_played = S[i, PLAYED + o]
    gone = my_played | opp_played | hand
    opp_excl = S[i, EXCLUDED + o] & ~gone
    own_excl = S[i, EXCLUDED + s] & ~gone
    over = S[i, OVER]
    to_move = -1 if over else S[i, TO_MOVE]
    unseen = R[R_DECK_MASK] & ~(hand | my_played | opp_played | opp_known)
    trump = 0
    if stock_left:
        unseen &= ~(1 << S[i, TRUMP_CARD])
        trump = 1 << S[i, TRUMP_CARD]
    maybe = opp_known | (unseen & ~opp_excl)
    lead = S[i, LEAD]
    _cards(obs, j, 0, hand)
    _cards(obs, j, O_TRUMP, trump)
    _cards(obs, j, O_LEAD, (1 << lead) if lead >= 0 else 0)
    _cards(obs, j, O_MY_PLAYED, my_played)
    _cards(obs, j, O_OPP_PLAYED, opp_played)
    _cards(obs, j, O_MY_WON, S[i, WON + s])
    _cards(obs, j, O_OPP_WON, S[i, WON + o])
    _cards(obs, j, O_OPP_KNOWN, opp_known)
    _cards(obs, j, O_OPP_EXCL, opp_excl)
    _cards(obs, j, O_UNSEEN, unseen)
    _cards(obs, j, O_MY_KNOWN, own_known)
    _cards(obs, j, O_MY_EXCL, own_excl)
    ts = S[i, TRUMP_SUIT]
    for k in range(NUM_SUITS):
        obs[j, O_TRUMP_SUIT + k] = 1 if k == ts else 0
        obs[j, O_OPP_VOID + k] = 0 if maybe & _SUIT[k] else 1
        obs[j, O_MY_MAR + k] = S[i, MAR_SUITS + s] >> k & 1
        obs[j, O_OPP_MAR + k] = S[i, MAR_SUITS + o] >> k & 1
    f = O_FLAGS
    obs[j, f] = to_move == s
    obs[j, f + 1] = S[i, LEADER] == s
    obs[j, f + 2] = S[i, DEALER] == s
    obs[j, f + 3] = closed_by < 0 and stock_left > 0
    obs[j, f + 4] = closed_by >= 0
    obs[j, f + 5] = exhausted
    obs[j, f + 6] = closed_by == s
    obs[j, f + 7] = closed_by == o
    obs[j, f + 8] = S[i, JUST_CLOSED]
    obs[j, f + 9] = S[i, TRICKS + s] > 0
    obs[j, f + 10] = S[i, TRICKS + o] > 0
    obs[j, f + 11] = S[i, EXCHANGED + s]
    obs[j, f + 12] = S[i, EXCHANGED + o]
    obs[j, f + 13] = over
    for k in range(STOCK_LEFT_SLOTS):
        obs[j, O_STOCK + k] = 0
    obs[j, O_STOCK + (stock_left + 1 >> 1)] = 1
    n = O_NUMBERS
    obs[j, n] = np.float32(S[i, CARD_PTS + s] / CARD_POINTS_SCALE)
    obs[j, n + 1] = np.float32(S[i, CARD_PTS + o] / CARD_POINTS_SCALE)
    obs[j, n + 2] = np.float32((S[i, MAR_PTS + s] - S[i, PENDING + s]) / MARRIAGE_POINTS_SCALE)
    obs[j, n + 3] = np.float32((S[i, MAR_PTS + o] - S[i, PENDING + o]) / MARRIAGE_POINTS_SCALE)
    obs[j, n + 4] = np.float32(S[i, TRICKS + s] / TRICKS_SCALE)
    obs[j, n + 5] = np.float32(S[i, TRICKS + o] / TRICKS_SCALE)
    obs[j, n + 6] = np.float32(_popcount(opp_hand) / HAND_SIZE_SCALE)
    target = R[R_MATCH_TARGET]
    obs[j, n + 7] = np.float32(min(S[i, SCORE + s] / target, 1.0))
    obs[j, n + 8] = np.float32(min(S[i, SCORE + o] / target, 1.0))
    if S[i, HAS_CLOSE]:
        obs[j, n + 9] = np.float32(S[i, CLOSE_INFO] / CARD_POINTS_SCALE)
        obs[j, n + 10] = np.float32(S[i, CLOSE_INFO + 1] / MARRIAGE_POINTS_SCALE)
        obs[j, n + 11] = 1.0 if S[i, CLOSE_INFO + 2] > 0 else 0.0
    else:
        obs[j, n + 9] = 0.0
        obs[j, n + 10] = 0.0
        obs[j, n + 11] = 0.0
    for k in range(rules_part.shape[0]):
        obs[j, O_RULES + k] = np.float32(rules_part[k])
    m = legal_mask(S, R, i) if to_move == s else 0
    for a in range(NUM_ACTIONS):
        masks[j, a] = m >> a & 1


@_jit
def observe(S, R, rules_part, lanes, seats, obs, masks):
    """Rows ``0..len(lanes)-1`` of ``obs`` and ``masks``: lane ``lanes[j]`` seen by ``seats[j]``."""
    for j in range(lanes.shape[0]):
        observe_one(S, R, rules_part, lanes[j], seats[j], obs, masks, j)


# -- random play ---------------------------------------------------------------------


@_jit
def next_random(rng, i):
    """xorshift64* on lane ``i``'s own generator (the games do not depend on the lane order)."""
    x = rng[i]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[i] = x
    return (x * np.uint64(2685821657736338717)) >> np.uint64(11)


@_jit
def random_legal(m, rng, i):
    """A uniformly drawn set bit of ``m`` (a legal mask), from lane ``i``'s generator."""
    k = np.int64(next_random(rng, i) % np.uint64(_popcount(m)))
    a = 0
    while True:
        if m >> a & 1:
            if k == 0:
                return a
            k -= 1
        a += 1


@_jit
def random_actions(S, R, rng, lanes, out):
    for j in range(lanes.shape[0]):
        i = lanes[j]
        out[j] = random_legal(legal_mask(S, R, i), rng, i)


@_jit
def play_random_until(S, K, R, rng, lanes, seats):
    """In each lane, a random opponent moves for ``1 - seats[j]`` until ``seats[j]`` is to act
    or the hand is over."""
    for j in range(lanes.shape[0]):
        i = lanes[j]
        while not S[i, OVER] and S[i, TO_MOVE] != seats[j]:
            apply_one(S, K, R, i, random_legal(legal_mask(S, R, i), rng, i))
