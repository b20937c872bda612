"""The engine contract: one hand, as both engines play it.

A hand of either engine meets :class:`Hand`: dealt from a given deck under given
rules (:func:`deal_hand`), it answers the legal actions, the seat to act, the
observation of either seat, the result and the returns, and ``apply`` gives the
hand after one more action, leaving this one as it was.

* :class:`ReferenceHand` is the pure-Python :class:`~sixtysix_env.game.engine.State`
  seen through the contract (its observation is
  :func:`~sixtysix_env.policy.observation.encode_with_mask` of the seat's view);
* :class:`BatchedLane` is one lane of :class:`~.engine.BatchedHands`.

The rule battery (``tests/rules/``) plays every scenario and property on both
engines through this contract, so that a rule written in one engine and not in
the other fails a test that names the scenario (``docs/architecture.md``, "Where
a rule change goes").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from ..game.actions import NUM_ACTIONS, parse_action
from ..game.engine import HandResult, State, as_match_score, deal_from_deck, parse_deck
from ..game.rules import RuleConfig, make_rules
from ..game.view import player_view
from ..policy.observation import encode_with_mask
from ..util.checks import as_seat
from ..util.errors import IllegalActionError
from .engine import BatchedHands

__all__ = ["ENGINES", "BatchedLane", "Hand", "ReferenceHand", "deal_hand"]


class Hand(Protocol):
    """One hand of an engine, as the rule battery and the drivers read it."""

    @property
    def result(self) -> HandResult | None: ...

    def legal_mask(self) -> int: ...

    def current_player(self) -> int: ...

    def apply(self, action: int) -> Hand: ...

    def observe(self, seat: int) -> tuple[np.ndarray, np.ndarray]: ...

    def returns(self) -> tuple[int, int]: ...


class ReferenceHand:
    """The reference :class:`State` through the contract."""

    __slots__ = ("state",)

    def __init__(self, state: State) -> None:
        self.state = state

    @property
    def result(self) -> HandResult | None:
        return self.state.result

    def legal_mask(self) -> int:
        return self.state.legal_mask()

    def current_player(self) -> int:
        return self.state.current_player()

    def apply(self, action: int) -> ReferenceHand:
        return ReferenceHand(self.state.apply(action))

    def observe(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        return encode_with_mask(player_view(self.state, seat))

    def returns(self) -> tuple[int, int]:
        return self.state.returns()


class BatchedLane:
    """One hand of the batched engine (a one-lane :class:`BatchedHands`) with the
    reference's verbs. ``apply`` copies the lane's arrays, so a position can be
    branched as a :class:`State` can."""

    __slots__ = ("_hands",)

    def __init__(self, hands: BatchedHands) -> None:
        if hands.n != 1:
            raise ValueError(f"a BatchedLane is one lane, got {hands.n}")
        self._hands = hands

    @classmethod
    def deal(
        cls,
        deck: Sequence[int | str] | str,
        dealer: int = 1,
        rules: str | RuleConfig | dict | None = "altmisalti",
        match_score: tuple[int, int] = (0, 0),
    ) -> BatchedLane:
        rules = make_rules(rules)
        cards = parse_deck(deck, rules)
        dealer = as_seat(dealer, "dealer")
        hands = BatchedHands(1, rules)
        hands.deal(None, np.array([cards], np.int64), np.array([dealer], np.int64),
                   np.array([as_match_score(match_score)], np.int64))
        return cls(hands)

    @property
    def rules(self) -> RuleConfig:
        return self._hands.rules

    @property
    def result(self) -> HandResult | None:
        return self._hands.result(0)

    def legal_mask(self) -> int:
        return int(self._hands.legal_masks()[0])

    def legal_actions(self) -> list[int]:
        m = self.legal_mask()
        return [a for a in range(NUM_ACTIONS) if m >> a & 1]

    def current_player(self) -> int:
        return int(self._hands.to_move()[0])

    def apply(self, action: int | str) -> BatchedLane:
        if type(action) is not int:
            try:
                action = parse_action(action)
            except ValueError as e:
                raise IllegalActionError(str(e), action, self.legal_actions()) from None
        new = BatchedHands.__new__(BatchedHands)
        new.__dict__.update(self._hands.__dict__)
        new.S, new.K = self._hands.S.copy(), self._hands.K.copy()
        new.apply(None, np.array([action], np.int64))
        return BatchedLane(new)

    def observe(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        obs, mask = self._hands.observe(None, np.array([seat], np.int64))
        return obs[0], mask[0]

    def returns(self) -> tuple[int, int]:
        r = self._hands.returns(None, np.array([0], np.int64))
        return int(r[0]), -int(r[0])


def _reference(deck, dealer=1, rules="altmisalti", match_score=(0, 0)) -> ReferenceHand:
    return ReferenceHand(deal_from_deck(deck, dealer=dealer, rules=rules,
                                        match_score=match_score))


#: The engines that meet the contract, by name: each deals a hand from
#: ``(deck, dealer, rules, match_score)``.
ENGINES = {"reference": _reference, "batched": BatchedLane.deal}


def deal_hand(engine: str, deck, dealer: int = 1, rules="altmisalti",
              match_score=(0, 0)) -> Hand:
    """A hand of ``engine`` ("reference" or "batched") dealt from ``deck``."""
    try:
        deal = ENGINES[engine]
    except KeyError:
        raise ValueError(f"unknown engine {engine!r}; engines: {', '.join(ENGINES)}") from None
    return deal(deck, dealer=dealer, rules=rules, match_score=match_score)

