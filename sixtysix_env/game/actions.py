"""Fixed action ids (the environment uses them unchanged).

======  ===============================================================
id      meaning
======  ===============================================================
0-23    play the card with that id (``suit * 6 + rank``; suits C D H S,
        ranks 9 J Q K T A), no declaration
24-31   lead a queen or king while declaring its marriage:
        ``24 + 2 * suit + (0 for the queen, 1 for the king)``
32      exchange the trump 9 for the face-up trump card (turn not passed)
33      close the stock (turn not passed)
======  ===============================================================

Names: a card code (``"QH"``), ``"marry-QH"``, ``"exchange"``, ``"close"``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..util.checks import ALLOWED, is_int
from .cards import (
    KING,
    NUM_CARDS,
    NUM_RANKS,
    NUM_SUITS,
    QUEEN,
    QUEEN_KING,
    card,
    card_code,
    parse_card,
)

NUM_ACTIONS = 34
FIRST_MARRIAGE = 24
EXCHANGE = 32
CLOSE = 33

#: Card led by each marriage action.
MARRIAGE_CARD = tuple(card(i // 2, KING if i % 2 else QUEEN) for i in range(8))


def marriage_mask(hand: int) -> int:
    """The marriage actions (bits 24-31) of the queen-king pairs held in ``hand``."""
    m = 0
    for s in range(NUM_SUITS):
        if hand & QUEEN_KING[s] == QUEEN_KING[s]:
            m |= 3 << (FIRST_MARRIAGE + 2 * s)
    return m


def marriage_action(c: int) -> int:
    """The marriage action that leads card ``c`` (a queen or king)."""
    r = c % NUM_RANKS
    if r not in (QUEEN, KING):
        raise ValueError(f"only a queen or king can be led with a marriage, not {card_code(c)}")
    return FIRST_MARRIAGE + 2 * (c // NUM_RANKS) + (1 if r == KING else 0)


def action_card(action: int) -> int | None:
    """The card an action puts on the table, or None for exchange and close."""
    if 0 <= action < NUM_CARDS:
        return action
    if FIRST_MARRIAGE <= action < EXCHANGE:
        return MARRIAGE_CARD[action - FIRST_MARRIAGE]
    return None


def suit_relabelled_actions(perm: Sequence[int]) -> tuple[int, ...]:
    """Each action's id once the suits are renamed: ``perm[s]`` is suit ``s``'s new name.

    Entry ``a`` is the action that does what ``a`` does with every suit renamed:
    a card play or a marriage moves to its renamed suit; the exchange and the
    close stay as they are.
    """
    perm = tuple(int(p) for p in perm)
    if sorted(perm) != list(range(NUM_SUITS)):
        raise ValueError(f"a renaming of the suits is a permutation of 0-3, got {perm}")
    out = list(range(NUM_ACTIONS))
    for s in range(NUM_SUITS):
        for r in range(NUM_RANKS):
            out[s * NUM_RANKS + r] = perm[s] * NUM_RANKS + r
        for k in range(2):  # the queen, the king
            out[FIRST_MARRIAGE + 2 * s + k] = FIRST_MARRIAGE + 2 * perm[s] + k
    return tuple(out)


def action_name(action: int) -> str:
    if type(action) is not int:
        if not is_int(action):
            raise ValueError(f"not an action id: {action!r}; an action id is {ALLOWED}, 0-33")
        action = int(action)
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action!r} is out of range; action ids are 0-{NUM_ACTIONS - 1}")
    if action < NUM_CARDS:
        return card_code(action)
    if action < EXCHANGE:
        return "marry-" + card_code(MARRIAGE_CARD[action - FIRST_MARRIAGE])
    return "exchange" if action == EXCHANGE else "close"


def parse_marriage(low: str, read_card: Callable[[str], int]) -> int | None:
    """The marriage action of lower-case ``low`` written as ``marry`` or ``m``, then the king
    or queen (``read_card`` reads it) after any of `` -:`` (``marry-qh``, ``m qh``); None
    where ``low`` is not such a marriage."""
    for prefix in ("marry", "m"):
        if low.startswith(prefix):
            rest = low[len(prefix):].lstrip(" -:")
            if rest:
                try:
                    return marriage_action(read_card(rest))
                except ValueError:
                    return None
    return None


def parse_action(text: str | int) -> int:
    """Action id from an id (a Python or numpy integer) or a name (``"QH"``, ``"marry-QH"``,
    ``"exchange"``, ``"close"``); ``ValueError`` for anything else, bools and floats included."""
    if type(text) is int or (not isinstance(text, str) and is_int(text)):
        a = int(text)
        action_name(a)  # range check
        return a
    if not isinstance(text, str):
        raise ValueError(
            f"not an action: {text!r} ({type(text).__name__}); an action is an id 0-"
            f"{NUM_ACTIONS - 1} ({ALLOWED}) or a name such as 'QH', 'marry-QH', 'close'"
        )
    t = text.strip().lower()
    if t.isdigit():
        return parse_action(int(t))
    if t in ("exchange", "x"):
        return EXCHANGE
    if t in ("close", "c"):
        return CLOSE
    marriage = parse_marriage(t, parse_card)
    if marriage is not None:
        return marriage
    try:
        return parse_card(t)
    except ValueError:
        raise ValueError(
            f"unknown action {text!r}; an action is a card code such as 'QH', "
            f"'marry-QH' (lead with a marriage), 'exchange', 'close', or an id 0-{NUM_ACTIONS - 1}"
        ) from None


ALL_ACTION_NAMES = tuple(action_name(a) for a in range(NUM_ACTIONS))
