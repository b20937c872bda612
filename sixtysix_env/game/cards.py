"""Cards as small integers, sets of cards as bit masks.

A card id is ``suit * 6 + rank`` with suits in the order C D H S and ranks in
the order 9 J Q K T A (so rank order is id order within a suit). A set of
cards is an ``int`` whose bit ``card`` is set. Names (``"TH"``, ``"9S"``) are
only for display and parsing at the edges.
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "CDHS"
RANKS = "9JQKTA"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS = ("\u2663", "\u2666", "\u2665", "\u2660")
RANK_NAMES = ("9", "jack", "queen", "king", "10", "ace")

NUM_SUITS = 4
NUM_RANKS = 6
NUM_CARDS = 24

NINE, JACK, QUEEN, KING, TEN, ACE = range(6)
RANK_POINTS = (0, 2, 3, 4, 10, 11)
#: Card points of each card id.
CARD_POINTS = tuple(RANK_POINTS[c % NUM_RANKS] for c in range(NUM_CARDS))
TOTAL_CARD_POINTS = sum(CARD_POINTS)  # 120

ALL_CARDS = (1 << NUM_CARDS) - 1
#: Mask of each suit's six cards.
SUIT_MASK = tuple(((1 << NUM_RANKS) - 1) << (s * NUM_RANKS) for s in range(NUM_SUITS))
#: For each card, the mask of the cards of its suit that beat it.
HIGHER_IN_SUIT = tuple(
    SUIT_MASK[c // NUM_RANKS] & ~((1 << (c + 1)) - 1) for c in range(NUM_CARDS)
)


#: For each suit, the mask of its queen and king (the two cards of a marriage).
QUEEN_KING = tuple(
    (1 << (s * NUM_RANKS + QUEEN)) | (1 << (s * NUM_RANKS + KING)) for s in range(NUM_SUITS)
)
#: For each suit, the bit of its 9 (the card exchanged for the face-up trump).
NINE_BIT = tuple(1 << (s * NUM_RANKS + NINE) for s in range(NUM_SUITS))
#: For each card, the bit of its marriage partner (the king of a queen, the queen of a king),
#: 0 for the other ranks.
PARTNER_BIT = tuple(
    1 << (c + (1 if c % NUM_RANKS == QUEEN else -1)) if c % NUM_RANKS in (QUEEN, KING) else 0
    for c in range(NUM_CARDS)
)


def marriage_halves(hand: int) -> int:
    """Queens and kings in ``hand`` whose partner is in ``hand`` too."""
    m = 0
    for qk in QUEEN_KING:
        if hand & qk == qk:
            m |= qk
    return m


def card(suit: int, rank: int) -> int:
    """The id of the card of ``suit`` (0-3) and ``rank`` (0-5)."""
    return suit * NUM_RANKS + rank


def suit_of(c: int) -> int:
    return c // NUM_RANKS


def rank_of(c: int) -> int:
    return c % NUM_RANKS


def card_code(c: int) -> str:
    """Two-letter code of a card: rank ``9 J Q K T A`` then suit ``C D H S``."""
    if not 0 <= c < NUM_CARDS:
        raise ValueError(f"card id {c!r} is out of range; card ids are 0-23")
    return RANKS[c % NUM_RANKS] + SUITS[c // NUM_RANKS]


def card_label(c: int) -> str:
    """A friendlier label: ``10\u2665`` for ``TH``."""
    r = RANKS[c % NUM_RANKS]
    return ("10" if r == "T" else r) + SUIT_SYMBOLS[c // NUM_RANKS]


_CODE_TO_CARD = {card_code(c): c for c in range(NUM_CARDS)}


def parse_card(code: str) -> int:
    """Card id of a code such as ``"TH"``, ``"th"`` or ``"10H"``."""
    if not isinstance(code, str):
        raise TypeError(f"a card code must be a string, got {code!r}")
    key = code.strip().upper()
    if key.startswith("10"):
        key = "T" + key[2:]
    try:
        return _CODE_TO_CARD[key]
    except KeyError:
        raise ValueError(
            f"unknown card code {code!r}; a card is a rank of {' '.join(RANKS)} "
            f"followed by a suit of {' '.join(SUITS)}, e.g. 'TH' or '9S'"
        ) from None


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


# Bit positions of every byte value, offset for each byte of a 40-bit mask:
# listing the set bits of a mask is five table lookups.
BYTE_BITS = tuple(
    tuple(tuple(8 * k + i for i in range(8) if b >> i & 1) for b in range(256)) for k in range(5)
)
_B0, _B1, _B2, _B3, _B4 = BYTE_BITS


def bits_of(mask: int) -> list[int]:
    """Set bits of a mask below 2**40 (cards, or legal action ids), ascending."""
    return list(
        _B0[mask & 255]
        + _B1[mask >> 8 & 255]
        + _B2[mask >> 16 & 255]
        + _B3[mask >> 24 & 255]
        + _B4[mask >> 32 & 255]
    )


def cards_of(mask: int) -> list[int]:
    """Card ids in a mask, ascending."""
    return list(_B0[mask & 255] + _B1[mask >> 8 & 255] + _B2[mask >> 16 & 255])


def count(mask: int) -> int:
    return mask.bit_count()


def mask_points(mask: int) -> int:
    return sum(CARD_POINTS[c] for c in cards_of(mask))


def codes(mask_or_cards: int | Iterable[int]) -> str:
    """Space-separated codes of a mask or a list of cards, for display."""
    cs = cards_of(mask_or_cards) if isinstance(mask_or_cards, int) else list(mask_or_cards)
    return " ".join(card_code(c) for c in cs)
