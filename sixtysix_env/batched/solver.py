"""The expert's search compiled (numba): :class:`~sixtysix_env.agents.solver.Solver`'s
exact values, and :func:`~sixtysix_env.agents.expert.rollout_value`'s rollouts on the
batched engine's arrays (:mod:`.kernels`), with the same values.

The solver: each function here is the closure of the same name in
``agents/solver.py`` (``went_out``, ``ran_out``, ``follow`` and ``lead_node`` in
:func:`node`, the roots), rule by rule, on plain int64 arguments: the same negamax
over card masks from the leader's side, the same move order (a lead tries the
highest card id first; a follower its winning cards, lowest id first, then its
discards), the same rule switches. The recursion runs on an explicit stack (numba
cannot load a recursive function from its cache: it crashes). The transposition
table is a fixed-size array instead of a dict: each entry stores its position's
whole key (two int64s, with every constant of the solve), so a collision
overwrites an entry but never lends a wrong bound and the values stay exact; a
generation counter empties it at once (:meth:`CompiledSolver.clear`). A small
table is the fastest: it stays in the processor's cache (``TABLE_BITS``).

The rollouts (:func:`rollout`): the heuristic's open-phase rules compiled
(:mod:`.heuristic`, the same moves), the opponent's close by the count of sure
tricks, this seat's close when one exact solve proves it wins, then the solver;
the rollouts after every candidate action of several sampled deals run side by
side (:meth:`CompiledSolver.values_after_many`), and where a prior policy plays
a seat's rollout moves (``guided``), every rollout waiting for it gets its move
from one forward pass (``BatchedPolicy``'s exact product, the agent's argmax).

``tests/batched/test_solver_numba.py`` compares both with the Python originals on
thousands of positions of every preset; ``tests/agents/test_expert_engines.py``
plays the same games with either engine.

=====  ==========  ===================================================
index  ``C[...]``  meaning (the constants of one solve)
=====  ==========  ===================================================
0      C_TRUMP     trump suit
1      C_MUST      ``must_beat_in_suit``
2      C_MARRY     ``marriage_after_close``
3      C_GO        ``going_out``
4      C_BONUS     ``last_trick_bonus``
5      C_PEN       what a failed close gives the opponent (0 if open)
6      C_CTOTAL    the closer's opponent's total at the close, or -1
7      C_CTRICKS   its tricks at the close, or -1 (-1: totals at the end)
8      C_GEN       the table's current generation
9      C_CTX       C_PEN, C_CTOTAL and C_CTRICKS packed into the key
10     C_NODES     positions searched (for benchmarks)
11     C_KEEP      1: keep the table between solves (``keep_tables``)
12     C_LAST_WINS ``last_trick_wins``
13     C_NEED_TRICK ``marriage_needs_trick``
14     C_KING_ONLY ``marriage_lead == "king"``
15     C_UNIT      ``PENDING_UNIT`` under ``marriage_points_pending``, else 1: a
                   side's marriage points are ``counted + PENDING_UNIT * pending``
                   (``agents/solver.py``'s encoding)
=====  ==========  ===================================================
"""

from __future__ import annotations

import numba
import numpy as np

from ..game.actions import CLOSE, EXCHANGE, FIRST_MARRIAGE, marriage_action
from ..game.cards import (
    ALL_CARDS,
    KING,
    NUM_CARDS,
    NUM_RANKS,
    NUM_SUITS,
    PARTNER_BIT,
)
from ..game.engine import State
from ..game.events import Exchange, Marriage, Trick
from ..game.rules import (
    RuleConfig,
    counted_total,
    failed_close_points,
    marriage_points,
)
from ..game.rules import marriage_refusal as _marriage_refusal
from ..policy.observation import OBS_SIZE, rules_features
from . import heuristic as hb
from . import kernels as kn

# The card tables, built once, and rules.game_points, compiled once:
from .kernels import _BEATS, _HIGHER, _POINTS, _SUIT, _game_points

__all__ = ["CompiledSolver", "load_state"]

_jit = numba.njit(cache=True, nogil=True)

INF = 1000
_MARRIAGE_ACTIONS = (1 << (EXCHANGE - FIRST_MARRIAGE)) - 1  # the 8 marriage bits, from bit 0
C_TRUMP, C_MUST, C_MARRY, C_GO, C_BONUS, C_PEN, C_CTOTAL, C_CTRICKS = range(8)
C_GEN, C_CTX, C_NODES, C_KEEP = 8, 9, 10, 11
C_LAST_WINS, C_NEED_TRICK, C_KING_ONLY, C_UNIT = 12, 13, 14, 15
NUM_CONSTANTS = 16
#: ``agents.solver.PENDING_UNIT`` (the batched engine sits below the agents).
U = 1000
#: Table rows: 2**TABLE_BITS entries of (key 1, key 2, lower bound, upper bound, generation);
#: 640 KB, the fastest of 2**12 to 2**18 for the expert (speed/bench_search.py).
TABLE_BITS = 14
_K1, _K2, _LO, _HI, _GEN = range(5)

_PARTNER = np.array(PARTNER_BIT, np.int64)
#: ``_MARRIAGE[trump suit, card]``: the points of a marriage declared with that card.
_MARRIAGE = np.array(
    [[marriage_points(c // NUM_RANKS, ts) for c in range(NUM_CARDS)] for ts in range(NUM_SUITS)], np.int64
)
#: The marriage action that leads ``card`` (-1 for a card that is no queen or king).
_MARRIAGE_ACTION = np.array(
    [marriage_action(c) if PARTNER_BIT[c] else -1 for c in range(NUM_CARDS)], np.int64
)


@_jit
def went_out(C, w, cl, cf, ml, mf, tl, tf, clo):
    """Value for the leader when side ``w`` (0 leader, 1 follower) goes out."""
    fail_pen = C[C_PEN]
    close_tricks = C[C_CTRICKS]
    if clo >= 0 and clo != w:
        return fail_pen if w == 0 else -fail_pen
    if w == 0:
        if clo == 0 and close_tricks >= 0:
            tot, tr = C[C_CTOTAL], close_tricks
        else:
            tot, tr = cf + (mf % U if tf else 0), tf
        return _game_points(tot, tr)
    if clo == 1 and close_tricks >= 0:
        tot, tr = C[C_CTOTAL], close_tricks
    else:
        tot, tr = cl + (ml % U if tl else 0), tl
    return -_game_points(tot, tr)


@_jit
def ran_out(C, last, cl, cf, ml, mf, tl, tf, clo):
    """Value for the leader when the last trick (won by ``last``) is played."""
    if clo >= 0:
        return -C[C_PEN] if clo == 0 else C[C_PEN]
    if C[C_LAST_WINS]:
        return 1 if last == 0 else -1
    tl_ = cl + (ml % U if tl else 0)
    tf_ = cf + (mf % U if tf else 0)
    if last == 0:
        tl_ += C[C_BONUS]
    else:
        tf_ += C[C_BONUS]
    if tl_ > tf_:
        return _game_points(tf_, tf)
    if tf_ > tl_:
        return -_game_points(tl_, tl)
    return 0


@_jit
def _redeemed(m):
    """``agents.solver.redeemed``: a side's marriage points once it wins a trick."""
    return m if m < U else m % U + m // U


@_jit
def _follow_cards(C, hf, lead):
    # rules.follow_mask
    moves = hf & _SUIT[lead // NUM_RANKS]
    if moves:
        if C[C_MUST]:
            beat = moves & _HIGHER[lead]
            if beat:
                moves = beat
    else:
        moves = hf & _SUIT[C[C_TRUMP]]
        if not moves:
            moves = hf
    return moves


@_jit
def _slot(C, k1, k2):
    h = k1 * 0x1E3779B97F4A7C15 + k2 * 0x3C2B2AE3D27D4EB5
    return (h >> 29) & ((1 << TABLE_BITS) - 1)


# The frames of the explicit stack (a row each): numba cannot cache a recursive function.
F_HL, F_HF, F_LEAD, F_CL, F_CF, F_ML, F_MF, F_TL, F_TF, F_CLO = range(10)
F_ALPHA, F_BETA, F_A0, F_BEST, F_ITER, F_PHASE, F_LOSE, F_LAST = range(10, 18)
F_MARRY, F_SLOT, F_K1, F_K2, F_NEG = range(18, 23)
NUM_FRAME_FIELDS = 23
#: Frames: a follow and a lead node per trick, six tricks at most.
MAX_DEPTH = 16


@_jit
def _push(F, d, hl, hf, lead, cl, cf, ml, mf, tl, tf, clo, alpha, beta, marry):
    F[d, F_HL] = hl
    F[d, F_HF] = hf
    F[d, F_LEAD] = lead
    F[d, F_CL] = cl
    F[d, F_CF] = cf
    F[d, F_ML] = ml
    F[d, F_MF] = mf
    F[d, F_TL] = tl
    F[d, F_TF] = tf
    F[d, F_CLO] = clo
    F[d, F_ALPHA] = alpha
    F[d, F_BETA] = beta
    F[d, F_MARRY] = marry


@_jit
def _fold(F, d, val):
    """One move's value into frame ``d`` (a lead maximises, a follow minimises);
    True on a cut-off."""
    if F[d, F_LEAD] < 0:
        if val > F[d, F_BEST]:
            F[d, F_BEST] = val
            if val > F[d, F_ALPHA]:
                F[d, F_ALPHA] = val
                if val >= F[d, F_BETA]:
                    return True
        return False
    if val < F[d, F_BEST]:
        F[d, F_BEST] = val
        if val < F[d, F_BETA]:
            F[d, F_BETA] = val
            if val <= F[d, F_ALPHA]:
                return True
    return False


@_jit
def node(C, T, F, hl, hf, lead, cl, cf, ml, mf, tl, tf, clo, alpha, beta, marry):
    """A lead node (``lead`` -1; ``marry``: the root's right to declare) or a follow node
    (the follower to answer ``lead``); the value for the leader either way.

    ``agents/solver.py``'s mutually recursive ``lead_node`` and ``follow`` on an
    explicit stack ``F``: a frame pushes a child where they recurse, and the child's
    value comes back to the move that made it (negated when the sides swap).
    """
    go = C[C_GO]
    ts = C[C_TRUMP]
    d = 0
    _push(F, 0, hl, hf, lead, cl, cf, ml, mf, tl, tf, clo, alpha, beta, 1 if marry else 0)
    enter = True
    back = False  # a child's value ``val`` to fold into frame d
    val = 0
    while True:
        done = False
        hit = False
        hl = F[d, F_HL]
        hf = F[d, F_HF]
        lead = F[d, F_LEAD]
        cl = F[d, F_CL]
        cf = F[d, F_CF]
        ml = F[d, F_ML]
        mf = F[d, F_MF]
        tl = F[d, F_TL]
        tf = F[d, F_TF]
        clo = F[d, F_CLO]
        if enter:
            enter = False
            if lead < 0:
                F[d, F_SLOT] = -1
                if not F[d, F_MARRY]:
                    k1 = (
                        hl | (hf << 24) | ((1 if tl > 0 else 0) << 48)
                        | ((1 if tf > 0 else 0) << 49) | ((clo + 1) << 50) | (ts << 52)
                        | ((ml // U // 20) << 54) | ((mf // U // 20) << 57)  # pending, /20
                    )
                    k2 = cl | (cf << 9) | ((ml % U) << 18) | ((mf % U) << 27) | (C[C_CTX] << 36)
                    slot = _slot(C, k1, k2)
                    F[d, F_SLOT] = slot
                    F[d, F_K1] = k1
                    F[d, F_K2] = k2
                    if T[slot, _GEN] == C[C_GEN] and T[slot, _K1] == k1 and T[slot, _K2] == k2:
                        lo = T[slot, _LO]
                        hi = T[slot, _HI]
                        if lo >= F[d, F_BETA]:
                            val, hit = lo, True
                        elif hi <= F[d, F_ALPHA]:
                            val, hit = hi, True
                        elif lo == hi:
                            val, hit = lo, True
                        else:
                            if lo > F[d, F_ALPHA]:
                                F[d, F_ALPHA] = lo
                            if hi < F[d, F_BETA]:
                                F[d, F_BETA] = hi
                if not hit:
                    F[d, F_A0] = F[d, F_ALPHA]
                    C[C_NODES] += 1
                    F[d, F_MARRY] = 1 if ((F[d, F_MARRY] or C[C_MARRY])
                                          and (tl or not C[C_NEED_TRICK])) else 0
                    F[d, F_BEST] = -INF
                    F[d, F_ITER] = 23
            else:
                C[C_NODES] += 1
                moves = _follow_cards(C, hf, lead)
                win = moves & _BEATS[ts, lead]
                F[d, F_ITER] = win
                F[d, F_LOSE] = moves & ~win
                F[d, F_PHASE] = 1
                F[d, F_BEST] = INF
                F[d, F_LAST] = 1 if hl == 0 and (hf & (hf - 1)) == 0 else 0
        elif back:
            back = False
            done = _fold(F, d, val)
        pushed = False
        if not done and not hit:
            if lead < 0:
                # Leads: the highest card id first.
                c = F[d, F_ITER]
                while c >= 0:
                    bit = 1 << c
                    if not hl & bit:
                        c -= 1
                        continue
                    ml2 = ml
                    if (F[d, F_MARRY] and _PARTNER[c] and hl & _PARTNER[c]
                            and (not C[C_KING_ONLY] or c % NUM_RANKS == KING)):
                        # Declaring never hurts the declarer: search it only.
                        ml2 = ml + _MARRIAGE[ts, c] * C[C_UNIT]
                        if tl and C[C_UNIT] == 1 and cl + ml2 >= go:
                            if _fold(F, d, went_out(C, 0, cl, cf, ml2, mf, tl, tf, clo)):
                                done = True
                                break
                            c -= 1
                            continue
                    F[d, F_ITER] = c - 1
                    F[d, F_NEG] = 0
                    _push(F, d + 1, hl ^ bit, hf, c, cl, cf, ml2, mf, tl, tf, clo,
                          F[d, F_ALPHA], F[d, F_BETA], 0)
                    pushed = True
                    break
            else:
                # Answers: the cheapest winning cards first, then the cheapest discards.
                lp = _POINTS[lead]
                while True:
                    m = F[d, F_ITER]
                    if m == 0:
                        if F[d, F_PHASE] == 1:
                            F[d, F_PHASE] = 0
                            F[d, F_ITER] = F[d, F_LOSE]
                            continue
                        break
                    low = m & -m
                    F[d, F_ITER] = m ^ low
                    c = 0
                    while not (low >> c) & 1:
                        c += 1
                    hf2 = hf ^ low
                    pts = lp + _POINTS[c]
                    if F[d, F_PHASE] == 1:
                        cf2 = cf + pts
                        mf2 = _redeemed(mf)
                        if cf2 + mf2 >= go:
                            v = went_out(C, 1, cl, cf2, ml, mf2, tl, tf + 1, clo)
                        elif F[d, F_LAST]:
                            v = ran_out(C, 1, cl, cf2, ml, mf2, tl, tf + 1, clo)
                        else:
                            # The follower leads next: swap sides, negate.
                            F[d, F_NEG] = 1
                            _push(F, d + 1, hf2, hl, -1, cf2, cl, mf2, ml, tf + 1, tl,
                                  (1 - clo) if clo >= 0 else -1,
                                  -F[d, F_BETA], -F[d, F_ALPHA], 0)
                            pushed = True
                            break
                    else:
                        cl2 = cl + pts
                        ml2 = _redeemed(ml)
                        if cl2 + ml2 >= go:
                            v = went_out(C, 0, cl2, cf, ml2, mf, tl + 1, tf, clo)
                        elif F[d, F_LAST]:
                            v = ran_out(C, 0, cl2, cf, ml2, mf, tl + 1, tf, clo)
                        else:
                            F[d, F_NEG] = 0
                            _push(F, d + 1, hl, hf2, -1, cl2, cf, ml2, mf, tl + 1, tf, clo,
                                  F[d, F_ALPHA], F[d, F_BETA], 0)
                            pushed = True
                            break
                    if _fold(F, d, v):
                        done = True
                        break
        if pushed:
            d += 1
            enter = True
            continue
        # Frame d is finished: its value, stored if it is a searched lead node.
        if not hit:
            val = F[d, F_BEST]
            slot = F[d, F_SLOT]
            if lead < 0 and slot >= 0:
                T[slot, _K1] = F[d, F_K1]
                T[slot, _K2] = F[d, F_K2]
                T[slot, _GEN] = C[C_GEN]
                if val <= F[d, F_A0]:
                    T[slot, _LO] = -INF
                    T[slot, _HI] = val
                elif val >= F[d, F_BETA]:
                    T[slot, _LO] = val
                    T[slot, _HI] = INF
                else:
                    T[slot, _LO] = val
                    T[slot, _HI] = val
        d -= 1
        if d < 0:
            return val
        if F[d, F_NEG]:
            val = -val
        back = True


@_jit
def after_follow(C, T, F, hl, hf, lead, c, cl, cf, ml, mf, tl, tf, clo):
    """Value for the leader once the follower answers ``lead`` with ``c`` (full window)."""
    go = C[C_GO]
    fwins = _BEATS[C[C_TRUMP], lead] >> c & 1
    hf2 = hf ^ (1 << c)
    pts = _POINTS[lead] + _POINTS[c]
    last = hl == 0 and hf2 == 0
    if fwins:
        cf2 = cf + pts
        mf = _redeemed(mf)
        if cf2 + mf >= go:
            return went_out(C, 1, cl, cf2, ml, mf, tl, tf + 1, clo)
        if last:
            return ran_out(C, 1, cl, cf2, ml, mf, tl, tf + 1, clo)
        return -node(
            C, T, F, hf2, hl, -1, cf2, cl, mf, ml, tf + 1, tl, (1 - clo) if clo >= 0 else -1,
            -INF, INF, False,
        )
    cl2 = cl + pts
    ml = _redeemed(ml)
    if cl2 + ml >= go:
        return went_out(C, 0, cl2, cf, ml, mf, tl + 1, tf, clo)
    if last:
        return ran_out(C, 0, cl2, cf, ml, mf, tl + 1, tf, clo)
    return node(C, T, F, hl, hf2, -1, cl2, cf, ml, mf, tl + 1, tf, clo, -INF, INF, False)


@_jit
def root_value(C, T, F, hl, hf, lead, cl, cf, ml, mf, tl, tf, clo, root_marry):
    """The value for the leader of a root position (``Solver.value`` before the sign)."""
    return node(C, T, F, hl, hf, lead, cl, cf, ml, mf, tl, tf, clo, -INF, INF, root_marry)


@_jit
def root_action_values(C, T, F, hl, hf, lead, cl, cf, ml, mf, tl, tf, clo, root_marry, acts, vals):
    """Every legal root action and its exact value for the leader, in the order of
    ``lead_root_moves`` / ``follow_root_moves``; returns how many."""
    n = 0
    if lead >= 0:
        m = _follow_cards(C, hf, lead)
        for c in range(NUM_CARDS):
            if m >> c & 1:
                acts[n] = c
                vals[n] = after_follow(C, T, F, hl, hf, lead, c, cl, cf, ml, mf, tl, tf, clo)
                n += 1
        return n
    go = C[C_GO]
    ts = C[C_TRUMP]
    for c in range(NUM_CARDS):
        low = 1 << c
        if not hl & low:
            continue
        k = 2 if (root_marry and _PARTNER[c] and hl & _PARTNER[c]
                  and (not C[C_KING_ONLY] or c % NUM_RANKS == KING)) else 1
        for j in range(k):
            ml2 = ml if j == 0 else ml + _MARRIAGE[ts, c] * C[C_UNIT]
            if tl and C[C_UNIT] == 1 and cl + ml2 >= go:
                val = went_out(C, 0, cl, cf, ml2, mf, tl, tf, clo)
            else:
                val = node(C, T, F, hl ^ low, hf, c, cl, cf, ml2, mf, tl, tf, clo, -INF, INF, False)
            acts[n] = c if j == 0 else _MARRIAGE_ACTION[c]
            vals[n] = val
            n += 1
    return n


# -- the solve of a lane, and the expert's rollouts on the batched engine's arrays ---------


@_jit
def solve_lane(C, T, F, S, R, i):
    """Seat 0's exact value of lane ``i`` (strict phase, or over): ``Solver.value``."""
    if S[i, kn.OVER]:
        w = S[i, kn.WINNER]
        return 0 if w < 0 else (S[i, kn.GP] if w == 0 else -S[i, kn.GP])
    if not C[C_KEEP]:
        C[C_GEN] += 1
    ld = S[i, kn.LEADER]
    f = 1 - ld
    closer = S[i, kn.CLOSED_BY]
    pen = 0
    ctotal = -1
    ctricks = -1
    if closer >= 0:
        pen = kn._failed_close_points(S, R, i)
        if R[kn.R_TOTALS_AT_CLOSE]:
            ctricks = S[i, kn.CLOSE_INFO + 2]
            ctotal = S[i, kn.CLOSE_INFO] + (S[i, kn.CLOSE_INFO + 1] if ctricks else 0)
    C[C_TRUMP] = S[i, kn.TRUMP_SUIT]
    C[C_PEN] = pen
    C[C_CTOTAL] = ctotal
    C[C_CTRICKS] = ctricks
    C[C_CTX] = pen | ((ctotal + 1) << 3) | ((ctricks + 1) << 12)
    tl = S[i, kn.TRICKS + ld]
    # rules.marriage_refusal on the lead after a close or with the stock exhausted
    root_marry = (tl > 0 or not C[C_NEED_TRICK]) and (C[C_MARRY] != 0 or S[i, kn.JUST_CLOSED] != 0)
    val = node(
        C, T, F, S[i, kn.HAND + ld], S[i, kn.HAND + f], S[i, kn.LEAD],
        S[i, kn.CARD_PTS + ld], S[i, kn.CARD_PTS + f],
        S[i, kn.MAR_PTS + ld] + (U - 1) * S[i, kn.PENDING + ld],
        S[i, kn.MAR_PTS + f] + (U - 1) * S[i, kn.PENDING + f], tl, S[i, kn.TRICKS + f],
        -1 if closer < 0 else (0 if closer == ld else 1), -INF, INF, root_marry,
    )
    return val if ld == 0 else -val


@_jit
def rollout_action(S, R, i):
    """``agents.expert.rollout_action`` on lane ``i``: the heuristic's open-phase rules."""
    legal = kn.legal_mask(S, R, i)
    # heuristic.obvious_action
    if legal & (legal - 1) == 0:
        a = 0
        while not (legal >> a) & 1:
            a += 1
        return a
    if legal >> EXCHANGE & 1:
        return EXCHANGE
    p = S[i, kn.TO_MOVE]
    hand = S[i, kn.HAND + p]
    ts = S[i, kn.TRUMP_SUIT]
    lead = S[i, kn.LEAD]
    unseen = R[kn.R_DECK_MASK] & ~hand & ~S[i, kn.PLAYED] & ~S[i, kn.PLAYED + 1]
    cards = legal & ALL_CARDS
    if lead < 0:
        m = legal >> FIRST_MARRIAGE & _MARRIAGE_ACTIONS
        if m:
            best = -1
            for k in range(EXCHANGE - FIRST_MARRIAGE):
                if m >> k & 1:
                    # the marriage card's suit is k // 2: prefer the trump marriage
                    if best < 0 or (k // 2 == ts and best // 2 != ts):
                        best = k
            k = best & ~1  # the queen of the chosen suit if legal
            return FIRST_MARRIAGE + (k if m >> k & 1 else best)
        return hb.open_lead(hand, cards, ts, unseen)
    o = 1 - p
    need_trick = S[i, kn.TRICKS + p] == 0 and hb._marriage_halves(hand) != 0
    return hb.open_follow(
        hand, cards, lead, ts, S[i, kn.CARD_PTS + p] + S[i, kn.MAR_PTS + p],
        S[i, kn.CARD_PTS + o] + S[i, kn.MAR_PTS + o], R[kn.R_GOING_OUT], need_trick, unseen,
    )


@_jit
def _rollout_close(S, R, i):
    """``agents.expert._rollout_close``: the heuristic's count of sure tricks reaches 66."""
    p = S[i, kn.TO_MOVE]
    total = hb._points(S, i, p)
    go = R[kn.R_GOING_OUT]
    if total < go - 45:
        return False
    hand = S[i, kn.HAND + p]
    gone = S[i, kn.PLAYED] | S[i, kn.PLAYED + 1]
    opp = R[kn.R_DECK_MASK] & ~hand & ~gone
    opp_trumps = kn._popcount(opp & _SUIT[S[i, kn.TRUMP_SUIT]])
    won = S[i, kn.TRICKS + p] > 0
    return hb.sure_close_total(hand, S[i, kn.TRUMP_SUIT], gone, total, won, opp_trumps, 0) >= go


@_jit
def _copy_lane(S, K, src, dst):
    for f in range(S.shape[1]):
        S[dst, f] = S[src, f]
    for f in range(K.shape[1]):
        K[dst, f] = K[src, f]


@_jit
def rollout(C, T, F, S, K, R, i, close, searcher, close_points, scratch, prior_seats):
    """``agents.expert.rollout_value`` on lane ``i`` (changed in place): the rollout rules
    while the stock is open, then exact. Returns (True, seat 0's game points) at the end,
    or (False, 0) where a seat in the bit mask ``prior_seats`` is to play a rollout move
    (the prior's: the caller applies it and calls again). ``scratch``: a lane to try
    this seat's close in."""
    while not S[i, kn.OVER]:
        if S[i, kn.CLOSED_BY] >= 0 or S[i, kn.STOCK_POS] == kn.STOCK_LEN:
            return True, solve_lane(C, T, F, S, R, i)
        p = S[i, kn.TO_MOVE]
        if close and S[i, kn.LEAD] < 0 and kn.legal_mask(S, R, i) >> CLOSE & 1:
            if p == searcher:
                if S[i, kn.CARD_PTS + p] + S[i, kn.MAR_PTS + p] >= close_points:
                    _copy_lane(S, K, i, scratch)
                    kn.apply_one(S, K, R, scratch, CLOSE)
                    val = solve_lane(C, T, F, S, R, scratch)
                    if (val if p == 0 else -val) > 0:
                        return True, val
            elif _rollout_close(S, R, i):
                kn.apply_one(S, K, R, i, CLOSE)
                continue
        if prior_seats >> p & 1:
            return False, 0
        kn.apply_one(S, K, R, i, rollout_action(S, R, i))
    w = S[i, kn.WINNER]
    return True, 0 if w < 0 else (S[i, kn.GP] if w == 0 else -S[i, kn.GP])


@_jit
def start_rollouts(C, T, F, S, K, R, bases, actions, first, n, out, close, searcher,
                   close_points, prior_seats, waiting):
    """Lane ``first + j`` := lane ``bases[j]`` after ``actions[j]``, and its rollout run
    (:func:`rollout`) into ``out[j]``; the lanes whose rollout waits for a prior's move
    go into ``waiting``. Returns how many wait. The last lane of ``S`` is the scratch lane."""
    m = 0
    scratch = S.shape[0] - 1
    for j in range(n):
        i = first + j
        _copy_lane(S, K, bases[j], i)
        kn.apply_one(S, K, R, i, actions[j])
        done, val = rollout(C, T, F, S, K, R, i, close, searcher, close_points, scratch,
                            prior_seats)
        out[j] = val
        if not done:
            waiting[m] = i
            m += 1
    return m


@_jit
def resume_rollouts(C, T, F, S, K, R, lanes, moves, k, first, out, close, searcher,
                    close_points, prior_seats, waiting):
    """Apply ``moves[j]`` in ``lanes[j]`` (the prior's) and run those rollouts on (into
    ``out[lane - first]``); the lanes that wait again go into ``waiting``. Returns how many."""
    m = 0
    scratch = S.shape[0] - 1
    for j in range(k):
        i = lanes[j]
        kn.apply_one(S, K, R, i, moves[j])
        done, val = rollout(C, T, F, S, K, R, i, close, searcher, close_points, scratch,
                            prior_seats)
        out[i - first] = val
        if not done:
            waiting[m] = i
            m += 1
    return m


def load_state(S: np.ndarray, K: np.ndarray, i: int, state: State) -> None:
    """Write ``state`` (a hand in play) into lane ``i`` of the batched engine's arrays
    (``kernels``' layout), read through the state's accessors; the stock left goes at the
    end of ``K[i]``. Cards won, marriage suits and exchanges (which only observations
    read) come from the state's public events, as ``policy.observation`` reads them."""
    if state.result is not None:
        raise ValueError("load_state needs a hand in play")
    row = [0] * kn.NUM_FIELDS  # filled as a list, written at once: numpy's items are slow
    for seat in (0, 1):
        row[kn.HAND + seat] = state.hand(seat)
        row[kn.KNOWN + seat] = state.seen_cards(seat)
        row[kn.EXCLUDED + seat] = state.excluded_cards(seat)
    row[kn.CARD_PTS:kn.CARD_PTS + 2] = state.card_points
    row[kn.MAR_PTS:kn.MAR_PTS + 2] = state.marriage_points
    row[kn.PENDING:kn.PENDING + 2] = state.pending_points
    row[kn.TRICKS:kn.TRICKS + 2] = state.tricks_won
    row[kn.PLAYED:kn.PLAYED + 2] = state.played
    stock = state.stock_cards
    row[kn.STOCK_POS] = kn.STOCK_LEN - len(stock)
    row[kn.TRUMP_CARD] = state.trump_card
    row[kn.TRUMP_SUIT] = state.trump_suit
    row[kn.DEALER] = state.dealer
    row[kn.LEADER] = state.leader
    row[kn.TO_MOVE] = state.current_player()
    lead, closer = state.lead_card, state.closed_by
    row[kn.LEAD] = -1 if lead is None else lead
    row[kn.CLOSED_BY] = -1 if closer is None else closer
    row[kn.TRICK_NO] = state.tricks_done
    row[kn.JUST_CLOSED] = int(state.just_closed)
    for e in state.events():
        kind = type(e)
        if kind is Trick:
            row[kn.WON + e.winner] |= (1 << e.lead) | (1 << e.follow)
        elif kind is Marriage:
            row[kn.MAR_SUITS + e.seat] |= 1 << e.suit
        elif kind is Exchange:
            row[kn.EXCHANGED + e.seat] = 1
    info = state.close_info
    if info is not None:
        row[kn.CLOSE_INFO:kn.CLOSE_INFO + 3] = info
        row[kn.HAS_CLOSE] = 1
    row[kn.SCORE:kn.SCORE + 2] = state.match_score
    row[kn.WINNER] = -1
    row[kn.LAST_WON] = -1
    S[i] = row
    if stock:
        K[i, kn.STOCK_LEN - len(stock):] = stock


class CompiledSolver:
    """:class:`~sixtysix_env.agents.solver.Solver`'s interface and values, compiled.

    ``keep_tables`` as there: the table is kept between calls until
    :meth:`clear` (its entries are exact bounds keyed by every constant of the
    solve, so sharing changes no value, only the work); without it every call
    starts from an empty table. ``nodes`` counts the positions searched.
    """

    def __init__(self, rules: RuleConfig, keep_tables: bool = False) -> None:
        self.rules = rules
        C = self._C = np.zeros(NUM_CONSTANTS, np.int64)
        C[C_MUST] = rules.must_beat_in_suit
        C[C_MARRY] = rules.marriage_after_close
        C[C_GO] = rules.going_out
        C[C_BONUS] = rules.last_trick_bonus
        C[C_GEN] = 1
        C[C_KEEP] = keep_tables
        C[C_LAST_WINS] = rules.last_trick_wins
        C[C_NEED_TRICK] = rules.marriage_needs_trick
        C[C_KING_ONLY] = rules.marriage_lead == "king"
        C[C_UNIT] = U if rules.marriage_points_pending else 1
        self._R = kn.rule_vector(rules)
        # Lanes (values_after_many): the sampled positions, one per (position, action),
        # and the scratch lane last; grown as needed.
        self._S = np.zeros((64, kn.NUM_FIELDS), np.int64)
        self._K = np.zeros((64, kn.STOCK_LEN), np.int64)
        self._out = np.zeros(64, np.int64)
        self._waiting = np.zeros(64, np.int64)
        self._rules_part = None  # the observation's rule part, once a prior needs it
        self._T = np.zeros((1 << TABLE_BITS, 5), np.int64)
        self._F = np.zeros((MAX_DEPTH, NUM_FRAME_FIELDS), np.int64)
        self._acts = np.zeros(40, np.int64)
        self._vals = np.zeros(40, np.int64)
        self._totals_at_close = rules.opponent_totals_at == "close"

    @property
    def keep_tables(self) -> bool:
        return bool(self._C[C_KEEP])

    @keep_tables.setter
    def keep_tables(self, keep: bool) -> None:
        self._C[C_KEEP] = bool(keep)

    @property
    def nodes(self) -> int:
        return int(self._C[C_NODES])

    @nodes.setter
    def nodes(self, value: int) -> None:
        self._C[C_NODES] = value

    def clear(self) -> None:
        """Forget the kept transposition table (``keep_tables``)."""
        self._C[C_GEN] += 1

    def _args(self, state: State) -> tuple:
        """Set the solve's constants; the root's arguments (as ``search_position``)."""
        if not state.is_strict():
            raise ValueError("the solver needs a position with the stock closed or exhausted")
        if not self.keep_tables:
            self._C[C_GEN] += 1
        C = self._C
        ld = state.leader
        f = 1 - ld
        closer = state.closed_by
        pen = 0
        ctotal = ctricks = -1
        if closer is not None:
            info = state.close_info
            pen = failed_close_points(self.rules, info[2])
            if self._totals_at_close:
                ctotal = counted_total(*info)
                ctricks = info[2]
        C[C_TRUMP] = state.trump_suit
        C[C_PEN] = pen
        C[C_CTOTAL] = ctotal
        C[C_CTRICKS] = ctricks
        C[C_CTX] = pen | ((ctotal + 1) << 3) | ((ctricks + 1) << 12)
        cp, mp, tw = state.card_points, state.marriage_points, state.tricks_won
        pend = state.pending_points  # held as counted + U * pending
        mp = (mp[0] + (U - 1) * pend[0], mp[1] + (U - 1) * pend[1])
        lead = state.lead_card
        root_marry = (
            _marriage_refusal(self.rules, tw[ld] > 0, True, 0, state.just_closed) is None
        )
        return (
            state.hand(ld), state.hand(f), -1 if lead is None else lead,
            cp[ld], cp[f], mp[ld], mp[f], tw[ld], tw[f],
            -1 if closer is None else (0 if closer == ld else 1),
            root_marry,
        )

    def value(self, state: State) -> int:
        """Game points seat 0 wins (+) or loses (-) with best play from here."""
        if state.result is not None:
            return state.returns()[0]
        args = self._args(state)
        val = root_value(self._C, self._T, self._F, *args)
        # From the leader's side; at a follow root the mover is the follower.
        return int(val) if state.leader == 0 else -int(val)

    def action_values(self, state: State) -> dict[int, int]:
        """Exact value of every legal action, in game points for the seat to move."""
        if state.result is not None:
            return {}
        args = self._args(state)
        n = root_action_values(self._C, self._T, self._F, *args, self._acts, self._vals)
        sign = -1 if args[2] >= 0 else 1  # leader's value -> follower's at a follow root
        acts, vals = self._acts, self._vals
        return {int(acts[j]): sign * int(vals[j]) for j in range(n)}

    def values_after(
        self,
        state: State,
        actions: list[int],
        close: bool,
        searcher: int,
        close_points: int,
        prior=None,
        prior_seats: tuple[int, ...] = (),
        tie: float = 0.0,
    ) -> list[int]:
        """Seat 0's value after each action: ``ExpertAgent._value_after`` without
        ``exact_last_trick``, the rollouts run compiled on the batched engine's arrays, all
        the actions' rollouts side by side. ``prior`` (the network of a
        :class:`~sixtysix_env.policy.agent.PolicyAgent` playing its argmax) plays the
        rollout moves of ``prior_seats``, one forward pass for every rollout waiting for
        it; ``tie``: the agent's ``SYMMETRY_TIE`` (for a network with a symmetry)."""
        return self.values_after_many(
            [state], actions, close, searcher, close_points, prior, prior_seats, tie
        )[0]

    def values_after_many(
        self,
        states: list[State],
        actions: list[int],
        close: bool,
        searcher: int,
        close_points: int,
        prior=None,
        prior_seats: tuple[int, ...] = (),
        tie: float = 0.0,
    ) -> list[list[int]]:
        """:meth:`values_after` for each of ``states`` (the same actions legal in each),
        every rollout side by side."""
        nb, na = len(states), len(actions)
        first = nb
        total = nb * na
        lanes = first + total + 1
        if lanes > len(self._S):
            self._S = np.zeros((lanes, kn.NUM_FIELDS), np.int64)
            self._K = np.zeros((lanes, kn.STOCK_LEN), np.int64)
            self._out = np.zeros(lanes, np.int64)
            self._waiting = np.zeros(lanes, np.int64)
        S, K = self._S, self._K
        for b, st in enumerate(states):
            load_state(S, K, b, st)
        bases = np.repeat(np.arange(nb, dtype=np.int64), na)
        acts = np.tile(np.asarray(actions, np.int64), nb)
        seats = sum(1 << p for p in prior_seats)
        waiting, out = self._waiting, self._out
        args = (self._C, self._T, self._F, S, K, self._R)
        m = start_rollouts(*args, bases, acts, first, total, out, close, searcher,
                           close_points, seats, waiting)
        while m:
            lanes = waiting[:m].copy()
            moves = self._prior_moves(prior, tie, lanes)
            m = resume_rollouts(*args, lanes, moves, m, first, out, close, searcher,
                                close_points, seats, waiting)
        return out[:total].reshape(nb, na).tolist()

    def _prior_moves(self, net, tie: float, lanes: np.ndarray) -> np.ndarray:
        """``PolicyAgent.act`` (argmax) of the network ``net`` for the seat to move in each lane, as
        :class:`~sixtysix_env.agents.batch.BatchedPolicy` computes it (exact: ``argmax_alone``)."""
        S, R = self._S, self._R
        seats = S[lanes, kn.TO_MOVE]
        masks = np.empty(len(lanes), np.int64)
        kn.legal_masks(S, R, lanes, masks)
        moves = np.empty(len(lanes), np.int64)
        forced = (masks & (masks - 1)) == 0
        for j in np.flatnonzero(forced).tolist():  # PolicyAgent.act: no network
            moves[j] = int(masks[j]).bit_length() - 1
        think = np.flatnonzero(~forced)
        if len(think):
            if self._rules_part is None:
                self._rules_part = np.array(rules_features(self.rules), np.float64)
            k = len(think)
            obs = np.empty((k, OBS_SIZE), np.float32)
            legal = np.empty((k, 34), np.int8)
            kn.observe(S, R, self._rules_part, lanes[think], seats[think], obs, legal)
            legal = legal.astype(bool)
            if net.symmetry is None:
                moves[think] = net.argmax_alone(obs, legal)
            else:
                read = legal if net.reads_mask else None
                z = np.where(legal, net.logits(obs, read), -np.inf)
                moves[think] = np.argmax(z >= z.max(axis=1, keepdims=True) - tie,
                                         axis=1)
        return moves

    def best_actions(self, state: State) -> tuple[int, list[int]]:
        """The best value for the mover and all actions that reach it."""
        vals = self.action_values(state)
        best = max(vals.values())
        return best, [a for a, x in vals.items() if x == best]
