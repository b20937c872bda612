"""A match: hands dealt in turn until one seat reaches the target game points."""

from __future__ import annotations

import random

from .engine import HandResult, State, new_hand
from .rules import RuleConfig, make_rules


class Match:
    """Hands to ``rules.match_target`` game points, the deal alternating.

    ``apply`` plays an action in the current hand; when the hand ends its
    result is recorded and, unless the match is over, the next hand is dealt
    from the match's seeded generator. The finished hand stays readable as
    ``last_hand``.
    """

    def __init__(
        self,
        rules: str | RuleConfig | dict | None = None,
        seed: int | random.Random | None = None,
        first_dealer: int | None = None,
    ) -> None:
        self.rules = make_rules(rules)
        self.rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        if first_dealer is None:
            first_dealer = self.rng.randrange(2)
        if first_dealer not in (0, 1):
            raise ValueError(f"first_dealer must be 0, 1 or None, got {first_dealer!r}")
        self.score = [0, 0]
        self.results: list[HandResult] = []
        #: Game points added to each seat's score by each finished hand.
        self.scored: list[tuple[int, int]] = []
        self.carry = 0  # game points carried over from tied hands ("carry-over" rule)
        self.last_hand: State | None = None
        self.hand = new_hand(self.rng, first_dealer, self.rules, (0, 0))

    @property
    def target(self) -> int:
        return self.rules.match_target

    def is_over(self) -> bool:
        return max(self.score) >= self.rules.match_target

    @property
    def winner(self) -> int | None:
        if not self.is_over():
            return None
        return 0 if self.score[0] >= self.rules.match_target else 1

    def current_player(self) -> int:
        return -1 if self.is_over() else self.hand.current_player()

    def legal_actions(self) -> list[int]:
        return [] if self.is_over() else self.hand.legal_actions()

    def apply(self, action: int | str) -> HandResult | None:
        """Play ``action``; returns the hand's result if it ended the hand."""
        if self.is_over():
            raise ValueError("the match is over; start a new Match")
        hand = self.hand.apply(action)
        self.hand = hand
        if hand.result is None:
            return None
        res = hand.result
        self.results.append(res)
        self.last_hand = hand
        gained = [0, 0]
        if res.winner is None:
            if self.rules.tie_rule == "carry-over":
                self.carry += 1
        else:
            gained[res.winner] = res.game_points + self.carry
            self.score[res.winner] += gained[res.winner]
            self.carry = 0
        self.scored.append((gained[0], gained[1]))
        if not self.is_over():
            self.hand = new_hand(
                self.rng, 1 - hand.dealer, self.rules, (self.score[0], self.score[1])
            )
        return res
