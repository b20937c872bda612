"""The rule battery on both engines (the engine contract, ``sixtysix_env/batched/lane.py``).

``tests/rules/``'s scenarios and properties are written against the reference
:class:`State`. Under the ``batched`` engine (the ``engine`` fixture of
``conftest.py``) every hand they deal is a :class:`TwinState`: the reference state
together with a one-lane :class:`BatchedLane` dealt from the same deck, advanced
by the same actions. After every action the two must agree on everything the
contract answers (the legal actions, the seat to act, both seats' observations,
the result and the returns), or the test fails with the actions that led there.
So each scenario's asserted values hold for the batched engine too.
"""

from __future__ import annotations

import copy

import numpy as np

from sixtysix_env.batched.lane import BatchedLane, ReferenceHand
from sixtysix_env.game.actions import NUM_ACTIONS, parse_action
from sixtysix_env.game.cards import cards_of
from sixtysix_env.game.engine import DEALER, HAND, TRUMP_CARD, State
from sixtysix_env.util.errors import IllegalActionError


class EnginesDisagree(AssertionError):
    """The batched engine answered otherwise than the reference."""


def deck_of(state: State) -> list[int]:
    """A deck order that deals ``state`` (a hand before its first action)."""
    d = state.v[DEALER]
    hands = [cards_of(state.v[HAND + s]) for s in (0, 1)]
    non, dealer = hands[1 - d], hands[d]
    return non[:3] + dealer[:3] + non[3:] + dealer[3:] + [state.v[TRUMP_CARD], *state.stock]


def check_agree(ref: State, lane: BatchedLane, moves: tuple) -> None:
    def differ(what, a, b):
        raise EnginesDisagree(
            f"the batched engine disagrees with the reference on {what} after the actions "
            f"{list(moves)} (rules {ref.rules.name}): reference {a!r}, batched {b!r}")

    if lane.legal_mask() != ref.legal_mask():
        differ("the legal actions", ref.legal_actions(), lane.legal_actions())
    if lane.current_player() != ref.current_player():
        differ("the seat to act", ref.current_player(), lane.current_player())
    if lane.result != ref.result:
        differ("the result", ref.result, lane.result)
    if lane.returns() != ref.returns():
        differ("the returns", ref.returns(), lane.returns())
    for seat in (0, 1):
        o1, m1 = ReferenceHand(ref).observe(seat)
        o2, m2 = lane.observe(seat)
        if not (np.array_equal(o1, o2) and np.array_equal(m1, m2)):
            bad = np.flatnonzero(o1 != o2)[:8].tolist()
            differ(f"seat {seat}'s observation (indices {bad})", o1[bad], o2[bad])


class TwinState(State):
    """A reference state with its batched twin; ``apply`` advances and checks both."""

    __slots__ = ("lane", "moves")

    def apply(self, action):
        try:
            new = State.apply(self, action)
        except IllegalActionError:
            if type(action) is int and 0 <= action < NUM_ACTIONS:
                try:
                    self.lane.apply(action)
                except IllegalActionError:
                    pass
                else:
                    raise EnginesDisagree(
                        f"the batched engine takes action {action}, which the reference "
                        f"refuses, after {list(self.moves)}") from None
            raise
        a = action if type(action) is int else parse_action(action)
        return twin(new, self.lane.apply(a), (*self.moves, a))

    def _copy(self) -> State:
        return twin(State._copy(self), self.lane, self.moves, check=False)

    def __copy__(self):
        return self._copy()

    def __deepcopy__(self, memo):
        return self._copy()

    def __reduce__(self):
        # Pickled as the plain reference state it carries.
        return (copy.copy, (State._copy(self),))


def twin(ref: State, lane: BatchedLane, moves: tuple = (), check: bool = True) -> TwinState:
    t = TwinState.__new__(TwinState)
    for k in State.__slots__:
        setattr(t, k, getattr(ref, k))
    t.lane, t.moves = lane, moves
    if check:
        check_agree(ref, lane, moves)
    return t


def twin_of(state: State) -> TwinState:
    """``state`` (freshly dealt) with a batched lane dealt from the same deck."""
    lane = BatchedLane.deal(deck_of(state), dealer=state.v[DEALER], rules=state.rules,
                            match_score=state.match_score)
    return twin(state, lane)


def twinned(deal):
    """``deal`` (``deal_from_deck``, ``new_hand``, ...) returning twins."""

    def dealt(*args, **kwargs):
        return twin_of(deal(*args, **kwargs))

    dealt.__name__ = getattr(deal, "__name__", "deal")
    return dealt
