"""N hands in arrays: deal, legal masks, apply, observe, results, for any set of lanes.

:class:`BatchedHands` is the Python face of :mod:`.kernels`. Every method
takes the lanes it works on (an int array; all lanes where omitted), so a
caller can advance only the games whose player is to act. Illegal actions are
refused with :class:`~sixtysix_env.util.errors.IllegalActionError` naming the lane,
the action and the legal ones, before any lane changes.
"""

from __future__ import annotations

import numpy as np

from . import require_numba

require_numba()

from ..game.actions import NUM_ACTIONS, action_name  # noqa: E402
from ..game.cards import NUM_CARDS, bits_of  # noqa: E402
from ..game.engine import HandResult  # noqa: E402
from ..game.rules import RuleConfig, make_rules  # noqa: E402
from ..policy.observation import OBS_SIZE, rules_features  # noqa: E402
from ..util.errors import DeckError, IllegalActionError  # noqa: E402
from . import heuristic as hk  # noqa: E402
from . import kernels as kn  # noqa: E402

#: The hidden cards of :meth:`BatchedHands.hidden_cards`: four blocks of ``NUM_CARDS`` (the other
#: hand, the face-down stock, its next card, the one after).
HIDDEN_SIZE = 4 * NUM_CARDS
#: The hand-end reasons of :meth:`BatchedHands.outcomes` by index ("" while the hand goes on).
REASONS = kn.REASONS
_CARD_IDS = np.arange(NUM_CARDS, dtype=np.int64)


class BatchedHands:
    """``n`` hands of one rule set, each in its own lane.

    Its arrays (``S`` the lanes' fields, ``K`` their stocks, ``R`` the rule vector) are the
    kernels' and private to :mod:`sixtysix_env.batched`: code outside reads the lanes through
    the named methods below (``tests/project`` checks that nothing outside indexes them)."""

    def __init__(self, n: int, rules: str | RuleConfig | dict | None = "altmisalti") -> None:
        if type(n) is not int or n < 1:
            raise ValueError(f"the number of lanes must be an int >= 1, got {n!r}")
        self.n = n
        self.rules = make_rules(rules)
        self.S = np.zeros((n, kn.NUM_FIELDS), np.int64)
        self.S[:, kn.OVER] = 1  # nothing dealt yet
        self.K = np.zeros((n, kn.STOCK_LEN), np.int64)
        self.R = kn.rule_vector(self.rules)
        self.rules_part = np.array(rules_features(self.rules), np.float64)
        self.all_lanes = np.arange(n, dtype=np.int64)

    def _lanes(self, lanes) -> np.ndarray:
        if lanes is None:
            return self.all_lanes
        return np.ascontiguousarray(lanes, dtype=np.int64)

    # -- dealing ---------------------------------------------------------------------

    def random_decks(self, rng: np.random.Generator, k: int) -> np.ndarray:
        """``k`` shuffled decks of the rules' cards (24, or 20 without the nines), (k, deck):
        one uniform draw per card from ``rng``, ordered (under 24-card rules the card ids are
        the order itself)."""
        order = np.argsort(rng.random((k, self.rules.deck)), axis=1)
        if self.rules.deck == NUM_CARDS:
            return order
        return np.asarray(self.rules.deck_cards, np.int64)[order]

    def deal(self, lanes, decks, dealers, scores=None) -> None:
        """Start a hand in each of ``lanes``: ``decks`` (k, 24) card ids, top card first,
        dealt as :func:`~sixtysix_env.game.engine.deal_from_deck` ((k, 20) under a 20-card
        deck's rules); ``dealers`` (k,) seats; ``scores`` (k, 2) the match score (game points)
        the hand is dealt at."""
        lanes = self._lanes(lanes)
        decks = np.ascontiguousarray(decks, dtype=np.int64)
        if decks.size != len(lanes) * self.rules.deck:
            raise DeckError(
                f"{len(lanes)} decks of {self.rules.deck} cards are needed for the "
                f"{self.rules.name} rules, got an array of shape {decks.shape}"
            )
        decks = decks.reshape(len(lanes), self.rules.deck)
        check_decks(decks, self.rules)
        dealers = np.ascontiguousarray(dealers, dtype=np.int64).reshape(len(lanes))
        if ((dealers != 0) & (dealers != 1)).any():
            raise ValueError(f"dealers must be seats 0 or 1, got {sorted(set(dealers.tolist()))}")
        if scores is None:
            scores = np.zeros((len(lanes), 2), np.int64)
        scores = np.ascontiguousarray(scores, dtype=np.int64).reshape(len(lanes), 2)
        kn.deal(self.S, self.K, self.R, lanes, decks, dealers, scores)

    # -- reading ---------------------------------------------------------------------

    def legal_masks(self, lanes=None) -> np.ndarray:
        """Each lane's legal actions as an int64 bit mask (0 once its hand is over)."""
        lanes = self._lanes(lanes)
        out = np.empty(len(lanes), np.int64)
        kn.legal_masks(self.S, self.R, lanes, out)
        return out

    def to_move(self, lanes=None) -> np.ndarray:
        """The seat to act in each lane, -1 where the hand is over."""
        lanes = self._lanes(lanes)
        return np.where(self.S[lanes, kn.OVER] != 0, -1, self.S[lanes, kn.TO_MOVE])

    def over(self, lanes=None) -> np.ndarray:
        return self.S[self._lanes(lanes), kn.OVER] != 0

    def dealers(self, lanes=None) -> np.ndarray:
        """The seat that dealt each lane's hand."""
        return self.S[self._lanes(lanes), kn.DEALER].copy()

    def outcomes(self, lanes=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each lane's finished hand: its winner (-1 for none yet or a tie), the game points
        the winner scores, and the reason as an index into :data:`REASONS`."""
        v = self.S[self._lanes(lanes)]
        return v[:, kn.WINNER].copy(), v[:, kn.GP].copy(), v[:, kn.REASON].copy()

    def hidden_cards(self, lanes, seats) -> np.ndarray:
        """What ``seats[j]``'s information set hides in ``lanes[j]``, (k, :data:`HIDDEN_SIZE`)
        float32 in four blocks of card indicators: the other seat's hand, the face-down stock,
        its next card and the one after (``privileged_features`` of the training's critic)."""
        lanes = self._lanes(lanes)
        seats = np.asarray(seats, np.int64)
        S, K = self.S, self.K
        out = np.zeros((len(lanes), HIDDEN_SIZE), np.float32)
        opp = np.where(seats == 0, S[lanes, kn.HAND + 1], S[lanes, kn.HAND])
        out[:, :NUM_CARDS] = (opp[:, None] >> _CARD_IDS) & 1
        pos = S[lanes, kn.STOCK_POS]
        rows = np.arange(len(lanes))
        for p in range(kn.STOCK_LEN):
            left = pos <= p
            out[rows[left], NUM_CARDS + K[lanes[left], p]] = 1.0
        for slot, offset in ((0, 2 * NUM_CARDS), (1, 3 * NUM_CARDS)):
            has = pos + slot < kn.STOCK_LEN
            out[rows[has], offset + K[lanes[has], pos[has] + slot]] = 1.0
        return out

    def returns(self, lanes, seats) -> np.ndarray:
        """Game points won (+) or lost (-) by ``seats[j]`` in each lane (0 before the end)."""
        lanes = self._lanes(lanes)
        out = np.empty(len(lanes), np.int64)
        kn.returns(self.S, lanes, np.ascontiguousarray(seats, dtype=np.int64), out)
        return out

    def observe(self, lanes=None, seats=None, obs=None, masks=None):
        """The observation vectors (k, 349) float32 and masks (k, 34) int8 of ``seats[j]`` in
        ``lanes[j]``, as :func:`~sixtysix_env.policy.observation.observe_view` builds them; written
        into ``obs`` and ``masks`` where given (their first k rows)."""
        lanes = self._lanes(lanes)
        k = len(lanes)
        if seats is None:
            seats = self.to_move(lanes)
            if (seats < 0).any():
                raise ValueError("observe: a lane's hand is over; give the seats to observe")
        seats = np.ascontiguousarray(seats, dtype=np.int64).reshape(k)
        if obs is None:
            obs = np.empty((k, OBS_SIZE), np.float32)
        if masks is None:
            masks = np.empty((k, NUM_ACTIONS), np.int8)
        kn.observe(self.S, self.R, self.rules_part, lanes, seats, obs, masks)
        return obs, masks

    def result(self, lane: int) -> HandResult | None:
        """Lane ``lane``'s hand result, as the scalar engine's ``State.result`` (None before the end)."""
        v = self.S[lane]
        if not v[kn.OVER]:
            return None
        r = self.rules
        last = int(v[kn.LAST_WON])
        closed = int(v[kn.CLOSED_BY])
        return HandResult(
            winner=None if v[kn.WINNER] < 0 else int(v[kn.WINNER]),
            game_points=int(v[kn.GP]),
            reason=kn.REASONS[int(v[kn.REASON])],
            card_points=(int(v[kn.CARD_PTS]), int(v[kn.CARD_PTS + 1])),
            marriage_points=(int(v[kn.MAR_PTS]), int(v[kn.MAR_PTS + 1])),
            tricks_won=(int(v[kn.TRICKS]), int(v[kn.TRICKS + 1])),
            totals=(int(v[kn.TOTALS]), int(v[kn.TOTALS + 1])),
            closed_by=None if closed < 0 else closed,
            last_trick_winner=None if last < 0 else last,
            going_out=r.going_out,
            last_trick_bonus=0 if r.last_trick_wins else r.last_trick_bonus,
            last_trick_wins=r.last_trick_wins,
        )

    # -- acting ------------------------------------------------------------------------

    def legality(self, lanes, actions) -> tuple[np.ndarray, np.ndarray]:
        """Whether each ``actions[j]`` is legal in ``lanes[j]`` (bools), and the lanes' legal
        masks."""
        legal = self.legal_masks(lanes)
        acts = np.asarray(actions)
        inside = (acts >= 0) & (acts < NUM_ACTIONS)
        return inside & ((legal >> np.clip(acts, 0, NUM_ACTIONS - 1)) & 1 == 1), legal

    def apply(self, lanes, actions, who: str = "the player") -> None:
        """Play ``actions[j]`` in ``lanes[j]``; every action is checked first, and an illegal one
        raises :class:`IllegalActionError` (naming the lane) with no lane changed."""
        lanes = self._lanes(lanes)
        actions = np.ascontiguousarray(actions, dtype=np.int64).reshape(len(lanes))
        ok, legal = self.legality(lanes, actions)
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            raise self.illegal(int(lanes[bad]), int(actions[bad]), int(legal[bad]), who)
        kn.apply_actions(self.S, self.K, self.R, lanes, actions)

    def apply_unchecked(self, lanes, actions) -> None:
        """:meth:`apply` for actions known to be legal (drawn from the lanes' own masks)."""
        kn.apply_actions(self.S, self.K, self.R, lanes, actions)

    # -- the compiled players ----------------------------------------------------------

    def random_actions(self, lane_rng: np.ndarray, lanes) -> np.ndarray:
        """A uniformly drawn legal action in each lane, from the lane's own generator in
        ``lane_rng`` (one uint64 xorshift state per lane of the engine)."""
        lanes = self._lanes(lanes)
        out = np.empty(len(lanes), np.int64)
        kn.random_actions(self.S, self.R, lane_rng, lanes, out)
        return out

    def play_random_until(self, lane_rng: np.ndarray, lanes, seats) -> None:
        """In each lane a random player moves for the other seat than ``seats[j]`` until
        ``seats[j]`` is to act or the hand is over."""
        lanes = self._lanes(lanes)
        kn.play_random_until(self.S, self.K, self.R, lane_rng, lanes,
                             np.ascontiguousarray(seats, np.int64))

    def heuristic_actions(self, lanes, seats, per_trick: int) -> np.ndarray:
        """The compiled ``heuristic``'s move for ``seats[j]`` in each lane (``per_trick``: its
        ``likely_points_per_trick``)."""
        lanes = self._lanes(lanes)
        out = np.empty(len(lanes), np.int64)
        hk.heuristic_actions(self.S, self.R, lanes, np.ascontiguousarray(seats, np.int64),
                             int(per_trick), out)
        return out

    def play_heuristic_until(self, lanes, seats, per_trick: int) -> None:
        """In each lane the compiled ``heuristic`` moves for the other seat than ``seats[j]``
        until ``seats[j]`` is to act or the hand is over."""
        lanes = self._lanes(lanes)
        hk.play_heuristic_until(self.S, self.K, self.R, lanes,
                                np.ascontiguousarray(seats, np.int64), int(per_trick))

    def illegal(self, lane: int, action, legal_mask: int, who: str) -> IllegalActionError:
        legal = bits_of(legal_mask)
        try:
            name = f"{action_name(int(action))} (id {action})"
        except (ValueError, TypeError):
            name = f"{action!r} (not an action id 0-{NUM_ACTIONS - 1})"
        if not legal:
            msg = f"illegal action {name} by {who} in game {lane}: its hand is over"
        else:
            msg = (f"illegal action {name} by {who} in game {lane}; legal actions: "
                   + ", ".join(f"{action_name(a)} ({a})" for a in legal))
        return IllegalActionError(msg, action, legal)


def check_decks(decks: np.ndarray, rules: RuleConfig | None = None) -> None:
    """Refuse a deck that is not the rules' cards once each (the 24 card ids 0-23, or the 20
    without the nines), naming the row."""
    cards = np.arange(NUM_CARDS) if rules is None else np.array(rules.deck_cards)
    ok = (decks.shape[1] == len(cards)) and (np.sort(decks, axis=1) == cards).all(axis=1)
    if not np.all(ok):
        row = 0 if np.ndim(ok) == 0 else int(np.flatnonzero(~ok)[0])
        if len(cards) == NUM_CARDS:
            raise DeckError(
                f"deck {row} is not the 24 card ids 0-23 once each: {decks[row].tolist()}"
            )
        raise DeckError(
            f"deck {row} is not the {rules.name} rules' {len(cards)} card ids once each "
            f"(0-23 without the nines 0 6 12 18): {decks[row].tolist()}"
        )

