"""Exact solver for the strict phase of a hand (perfect information).

Once the stock is exhausted both hands are known to both seats; once it is
closed, a *determinized* state (the opponent's hand dealt by
:func:`~sixtysix_env.game.view.determinize`) is one too. Either way no card is
drawn any more, at most six tricks remain, and the hand is a small
two-player zero-sum game that alpha-beta search solves exactly.

The value of a position is the game-point outcome of the hand, signed:
``+g`` when seat 0 wins ``g`` game points, ``-g`` when seat 1 does, 0 for a
tie (or, with the ``carry-over`` tie rule, a hand nobody wins).

The search works on plain integers (hands as card bit masks) relative to the
seat leading the trick (negamax): no :class:`~sixtysix_env.game.engine.State` is
built inside it. :func:`brute_force_value` is the reference it is tested
against: plain minimax over :meth:`State.apply`.
"""

from __future__ import annotations

from typing import NamedTuple

from ..game.actions import marriage_action
from ..game.cards import (
    CARD_POINTS,
    HIGHER_IN_SUIT,
    KING,
    NUM_CARDS,
    NUM_RANKS,
    PARTNER_BIT,
    SUIT_MASK,
)
from ..game.engine import State
from ..game.rules import (
    BEATS,
    RuleConfig,
    counted_total,
    failed_close_points,
    follow_mask,
    game_points,
    marriage_points,
    marriage_refusal,
)

__all__ = ["Solver", "action_values", "brute_force_value", "is_solvable", "solve"]

_INF = 1000
#: Under ``marriage_points_pending`` a side's marriage points are held as
#: ``counted + PENDING_UNIT * pending`` (one integer, so the search's arguments stay as
#: they are): a won trick redeems them (:func:`redeemed`); only ``% PENDING_UNIT`` counts.
PENDING_UNIT = 1000


def redeemed(m: int) -> int:
    """A side's marriage points (held as above) once it wins a trick."""
    return m if m < PENDING_UNIT else m % PENDING_UNIT + m // PENDING_UNIT


class SearchPosition(NamedTuple):
    """A position as the integers the search works on (:func:`search_position`).

    Sides are relative to the seat leading the trick ("l" the leader, "f" the
    follower); hands are card masks; ``closer`` is -1 (stock not closed), 0
    (the leader closed) or 1 (the follower closed); ``lead`` is the card on
    the table or -1.
    """

    leader: int
    hand_l: int
    hand_f: int
    card_points_l: int
    card_points_f: int
    marriage_points_l: int
    marriage_points_f: int
    tricks_l: int
    tricks_f: int
    closer: int
    lead: int
    just_closed: int
    trump_suit: int


def search_position(state: State) -> SearchPosition:
    """``state`` as the search's integers, read once through its accessors."""
    ld = state.leader
    f = 1 - ld
    closer = state.closed_by
    cp, mp, tw = state.card_points, state.marriage_points, state.tricks_won
    pend = state.pending_points  # held as counted + PENDING_UNIT * pending
    ml, mf = mp[ld] + (PENDING_UNIT - 1) * pend[ld], mp[f] + (PENDING_UNIT - 1) * pend[f]
    lead = state.lead_card
    return SearchPosition(
        ld, state.hand(ld), state.hand(f), cp[ld], cp[f], ml, mf, tw[ld], tw[f],
        -1 if closer is None else (0 if closer == ld else 1),
        -1 if lead is None else lead,
        int(state.just_closed),
        state.trump_suit,
    )


def is_solvable(state: State) -> bool:
    """True when no card will be drawn any more (stock closed or exhausted)."""
    return state.is_strict()


class Solver:
    """Alpha-beta over the remaining tricks of a strict-phase position.

    One solver serves one rule configuration; ``nodes`` counts the positions
    searched (for benchmarks). The transposition table lives for one call,
    unless ``keep_tables``: then each table (one per trump suit and closing
    situation) is kept and shared by later calls until :meth:`clear`. Its
    entries are exact bounds on a position's value, so sharing them changes
    no value, only the work (a search bot solving many related positions for
    one decision clears it once per decision).
    """

    def __init__(self, rules: RuleConfig, keep_tables: bool = False) -> None:
        self.rules = rules
        self.nodes = 0
        self.keep_tables = keep_tables
        self._tables: dict[tuple, _Search] = {}

    def clear(self) -> None:
        """Forget the kept transposition tables (``keep_tables``)."""
        self._tables.clear()

    # -- public -------------------------------------------------------------

    def value(self, state: State) -> int:
        """Game points seat 0 wins (+) or loses (-) with best play from here."""
        if state.result is not None:
            return state.returns()[0]
        if not state.is_strict():
            raise ValueError("the solver needs a position with the stock closed or exhausted")
        search = self._search_for(state)
        if search.lead >= 0:
            val = search.follow_root(-_INF, _INF)
        else:
            val = search.lead_root(-_INF, _INF)
        # Values are from the leader's side; the mover at a follow node is the follower.
        return val if search.leader == 0 else -val

    def action_values(self, state: State) -> dict[int, int]:
        """Exact value of every legal action, in game points for the seat to move."""
        if state.result is not None:
            return {}
        if not state.is_strict():
            raise ValueError("the solver needs a position with the stock closed or exhausted")
        search = self._search_for(state)
        out = {}
        if search.lead >= 0:
            for a, val in search.follow_root_moves():
                out[a] = -val  # leader's value -> follower's
        else:
            for a, val in search.lead_root_moves():
                out[a] = val
        return out

    def best_actions(self, state: State) -> tuple[int, list[int]]:
        """The best value for the mover and all actions that reach it."""
        vals = self.action_values(state)
        best = max(vals.values())
        return best, [a for a, x in vals.items() if x == best]

    # -- the search -----------------------------------------------------------

    def _search_for(self, state: State) -> _Search:
        rules = self.rules
        fail_pen = 0
        close_total = close_tricks = -1
        if state.closed_by is not None:
            info = state.close_info
            fail_pen = failed_close_points(rules, info[2])
            if rules.opponent_totals_at == "close":
                close_total = counted_total(*info)
                close_tricks = info[2]
        if not self.keep_tables:
            return _Search(self, state, fail_pen, close_total, close_tricks)
        key = (state.trump_suit, fail_pen, close_total, close_tricks)
        prev = self._tables.get(key)
        search = _Search(self, state, fail_pen, close_total, close_tricks, prev)
        if prev is None:
            self._tables[key] = search
        return search


class _Search:
    """One solve: constants bound once, recursion over plain ints."""

    def __init__(
        self, solver: Solver, state: State, fail_pen, close_total, close_tricks, tables=None
    ):
        """``tables``: an earlier search with the same constants whose functions (and
        transposition table) this one reuses instead of building its own."""
        self.solver = solver
        rules = solver.rules
        pos = search_position(state)
        self.leader = pos.leader
        self.args = pos[1:10]  # hands, card points, marriage points, tricks (l, f), closer
        self.lead = pos.lead
        # The leader may still declare: santase rules, or the closer's own lead.
        self.root_marry = (
            marriage_refusal(rules, pos.tricks_l > 0, True, 0, bool(pos.just_closed)) is None
        )
        #: The functions and constants of :meth:`_build`: this search's own, or those of
        #: ``tables``.
        self.built = (
            tables.built if tables is not None
            else self._build(pos.trump_suit, fail_pen, close_total, close_tricks)
        )
        (self.follow, self.lead_node, self.went_out, self.ran_out, self.trump_suit,
         self.marriage_points, self.unit, self.king_only) = self.built

    def _build(self, trump_suit, fail_pen, close_total, close_tricks) -> tuple:
        """The search's node functions (``follow``, ``lead_node``, ``went_out``,
        ``ran_out``, sharing one transposition table) and constants (the trump suit, each
        card's marriage points, the pending unit, ``king_only``)."""
        rules = self.solver.rules
        must_beat, marry_any = rules.must_beat_in_suit, rules.marriage_after_close
        going_out, bonus = rules.going_out, rules.last_trick_bonus
        # The 20-card presets' switches (docs/rules.md §17): the last trick wins the hand;
        # a marriage without a trick, by its king only; pending points (PENDING_UNIT).
        last_wins = rules.last_trick_wins
        needs_trick = rules.marriage_needs_trick
        king_only = rules.marriage_lead == "king"
        pending = rules.marriage_points_pending
        unit = PENDING_UNIT if pending else 1
        U = PENDING_UNIT
        # The rules of docs/rules.md bound to locals: the hot path reads no global.
        BT = BEATS[trump_suit]
        PTS = CARD_POINTS
        PB = PARTNER_BIT
        MP = [marriage_points(c // NUM_RANKS, trump_suit) for c in range(NUM_CARDS)]
        SM = SUIT_MASK
        HIS = HIGHER_IN_SUIT
        trump = SM[trump_suit]
        gpts = game_points
        tt: dict = {}
        solver = self.solver

        def went_out(w, cl, cf, ml, mf, tl, tf, clo):
            """Value for the leader when side ``w`` (0 leader, 1 follower) goes out."""
            if clo >= 0 and clo != w:
                return fail_pen if w == 0 else -fail_pen
            if w == 0:
                if clo == 0 and close_tricks >= 0:
                    tot, tr = close_total, close_tricks
                else:
                    tot, tr = cf + (mf % U if tf else 0), tf
                return gpts(tot, tr)
            if clo == 1 and close_tricks >= 0:
                tot, tr = close_total, close_tricks
            else:
                tot, tr = cl + (ml % U if tl else 0), tl
            return -gpts(tot, tr)

        def ran_out(last, cl, cf, ml, mf, tl, tf, clo):
            """Value for the leader when the last trick (won by ``last``) is played."""
            if clo >= 0:
                return -fail_pen if clo == 0 else fail_pen
            if last_wins:
                return 1 if last == 0 else -1
            tl_ = cl + (ml % U if tl else 0)
            tf_ = cf + (mf % U if tf else 0)
            if last == 0:
                tl_ += bonus
            else:
                tf_ += bonus
            if tl_ > tf_:
                return gpts(tf_, tf)
            if tf_ > tl_:
                return -gpts(tl_, tl)
            return 0

        def follow(hl, hf, lead, cl, cf, ml, mf, tl, tf, clo, alpha, beta):
            """Follower to answer ``lead``; value for the leader (follower minimises)."""
            solver.nodes += 1
            # rules.follow_mask, inlined: the search's hottest line (tests/agents/test_solver.py checks
            # the search against plain minimax over State.apply, whose mask calls follow_mask).
            moves = hf & SM[lead // 6]
            if moves:
                if must_beat:
                    moves = moves & HIS[lead] or moves
            else:
                moves = hf & trump or hf
            win = moves & BT[lead]
            lose = moves & ~win
            lp = PTS[lead]
            best = _INF
            last = not (hl or (hf & (hf - 1)))  # this is the last trick
            # Cheapest winning cards first, then the cheapest discards.
            for group, fwins in ((win, True), (lose, False)):
                m = group
                while m:
                    low = m & -m
                    m ^= low
                    c = low.bit_length() - 1
                    hf2 = hf ^ low
                    pts = lp + PTS[c]
                    if fwins:
                        cf2 = cf + pts
                        mf2 = mf if mf < U else mf % U + mf // U  # redeemed
                        if cf2 + mf2 >= going_out:
                            val = went_out(1, cl, cf2, ml, mf2, tl, tf + 1, clo)
                        elif last:
                            val = ran_out(1, cl, cf2, ml, mf2, tl, tf + 1, clo)
                        else:
                            # The follower leads next: swap sides, negate.
                            val = -lead_node(
                                hf2, hl, cf2, cl, mf2, ml, tf + 1, tl,
                                (1 - clo) if clo >= 0 else -1, -beta, -alpha,
                            )
                    else:
                        cl2 = cl + pts
                        ml2 = ml if ml < U else ml % U + ml // U
                        if cl2 + ml2 >= going_out:
                            val = went_out(0, cl2, cf, ml2, mf, tl + 1, tf, clo)
                        elif last:
                            val = ran_out(0, cl2, cf, ml2, mf, tl + 1, tf, clo)
                        else:
                            val = lead_node(
                                hl, hf2, cl2, cf, ml2, mf, tl + 1, tf, clo, alpha, beta
                            )
                    if val < best:
                        best = val
                        if val < beta:
                            beta = val
                            if beta <= alpha:
                                return best
            return best

        def lead_node(hl, hf, cl, cf, ml, mf, tl, tf, clo, alpha, beta, marry=False):
            """Leader to play; value for the leader."""
            key = None
            if not marry:
                key = (hl, hf, cl, cf, ml, mf, tl > 0, tf > 0, clo)
                e = tt.get(key)
                if e is not None:
                    lo, hi = e
                    if lo >= beta:
                        return lo
                    if hi <= alpha:
                        return hi
                    if lo == hi:
                        return lo
                    if lo > alpha:  # noqa: PLR1730 - plain compares are faster here
                        alpha = lo
                    if hi < beta:  # noqa: PLR1730
                        beta = hi
            a0 = alpha
            solver.nodes += 1
            can_marry = (marry or marry_any) and (tl or not needs_trick)
            best = -_INF
            m = hl
            while m:
                c = m.bit_length() - 1
                bit = 1 << c
                m ^= bit
                hl2 = hl ^ bit
                # Declaring never hurts the declarer: search it only.
                marries = can_marry and PB[c] and hl & PB[c] and (not king_only or c % 6 == KING)
                ml2 = ml + MP[c] * unit if marries else ml
                if marries and tl and not pending and cl + ml2 >= going_out:
                    val = went_out(0, cl, cf, ml2, mf, tl, tf, clo)
                else:
                    val = follow(hl2, hf, c, cl, cf, ml2, mf, tl, tf, clo, alpha, beta)
                if val > best:
                    best = val
                    if val > alpha:
                        alpha = val
                        if alpha >= beta:
                            break
            if key is not None:
                if best <= a0:
                    tt[key] = (-_INF, best)
                elif best >= beta:
                    tt[key] = (best, _INF)
                else:
                    tt[key] = (best, best)
            return best

        return follow, lead_node, went_out, ran_out, trump_suit, MP, unit, king_only

    # -- roots ----------------------------------------------------------------

    def lead_root(self, alpha, beta):
        return self.lead_node(*self.args, alpha, beta, marry=self.root_marry)

    def follow_root(self, alpha, beta):
        hl, hf, cl, cf, ml, mf, tl, tf, clo = self.args
        return self.follow(hl, hf, self.lead, cl, cf, ml, mf, tl, tf, clo, alpha, beta)

    def lead_root_moves(self):
        """(action, exact value for the leader) for every legal lead."""
        hl, hf, cl, cf, ml, mf, tl, tf, clo = self.args
        out = []
        m = hl
        while m:
            low = m & -m
            m ^= low
            c = low.bit_length() - 1
            options = [(c, ml)]
            if (self.root_marry and PARTNER_BIT[c] and hl & PARTNER_BIT[c]
                    and (not self.king_only or c % NUM_RANKS == KING)):
                options.append((marriage_action(c), ml + self.marriage_points[c] * self.unit))
            for a, ml2 in options:
                if self.unit == 1 and tl and cl + ml2 >= self.solver.rules.going_out:
                    val = self.went_out(0, cl, cf, ml2, mf, tl, tf, clo)
                else:
                    val = self.follow(hl ^ low, hf, c, cl, cf, ml2, mf, tl, tf, clo, -_INF, _INF)
                out.append((a, val))
        return out

    def follow_root_moves(self):
        """(action, exact value for the leader) for every legal answer."""
        hl, hf, cl, cf, ml, mf, tl, tf, clo = self.args
        lead = self.lead
        out = []
        # One reply at a time: a follow node restricted to a single card.
        m = follow_mask(hf, lead, self.trump_suit, self.solver.rules.must_beat_in_suit)
        while m:
            low = m & -m
            m ^= low
            c = low.bit_length() - 1
            out.append((c, self._after_follow(hl, hf, lead, c, cl, cf, ml, mf, tl, tf, clo)))
        return out

    def _after_follow(self, hl, hf, lead, c, cl, cf, ml, mf, tl, tf, clo):
        rules = self.solver.rules
        fwins = BEATS[self.trump_suit][lead] >> c & 1
        hf2 = hf ^ (1 << c)
        pts = CARD_POINTS[lead] + CARD_POINTS[c]
        last = not (hl or hf2)
        if fwins:
            cf2 = cf + pts
            mf = redeemed(mf)
            if cf2 + mf >= rules.going_out:
                return self.went_out(1, cl, cf2, ml, mf, tl, tf + 1, clo)
            if last:
                return self.ran_out(1, cl, cf2, ml, mf, tl, tf + 1, clo)
            return -self.lead_node(
                hf2, hl, cf2, cl, mf, ml, tf + 1, tl, (1 - clo) if clo >= 0 else -1, -_INF, _INF
            )
        cl2 = cl + pts
        ml = redeemed(ml)
        if cl2 + ml >= rules.going_out:
            return self.went_out(0, cl2, cf, ml, mf, tl + 1, tf, clo)
        if last:
            return self.ran_out(0, cl2, cf, ml, mf, tl + 1, tf, clo)
        return self.lead_node(hl, hf2, cl2, cf, ml, mf, tl + 1, tf, clo, -_INF, _INF)


def brute_force_value(state: State) -> int:
    """Plain minimax over :meth:`State.apply` (the reference for tests; slow)."""
    if state.result is not None:
        return state.returns()[0]
    vals = [brute_force_value(state.apply(a)) for a in state.legal_actions()]
    return max(vals) if state.current_player() == 0 else min(vals)


def solve(state: State) -> int:
    """Seat 0's exact value of a strict-phase position (see :class:`Solver`)."""
    return Solver(state.rules).value(state)


def action_values(state: State) -> dict[int, int]:
    """Exact value of each legal action for the seat to move."""
    return Solver(state.rules).action_values(state)
