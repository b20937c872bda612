"""The observation: what one seat may know, as a fixed-size vector.

Built only from :func:`sixtysix_env.game.view.player_view` (a
:class:`~sixtysix_env.game.view.PlayerView`), so it cannot carry anything the seat
may not know. Everything is told from the observer's side: "my" is the
observing seat, "opp" the other one, so one policy can play either seat.

Card planes have 24 entries indexed by card id (``suit * 6 + rank``; suits
C D H S, ranks 9 J Q K T A); suit blocks have 4 entries in suit order. All
values lie in [0, 1]: flags are 0/1 and counts are divided by their maximum.

=======  ==================  ===================================================
index    name                meaning
=======  ==================  ===================================================
0-23     hand                my hand
24-47    trump_card          the trump card lying under the stock (face up, or
                             turned down by a close); all zero once the stock
                             is gone
48-71    lead                the card on the table, led to the current trick
72-95    my_played           cards I have played (the card on the table too)
96-119   opp_played          cards the opponent has played
120-143  my_won              cards in the tricks I have won
144-167  opp_won             cards in the tricks the opponent has won
168-191  opp_known           cards I know are in the opponent's hand (shown
                             with a marriage, taken by an exchange, the trump
                             card it drew, its whole hand once the stock is
                             exhausted)
192-215  opp_excluded        cards the opponent cannot hold (strict-phase
                             deductions)
216-239  unseen              cards whose place I do not know (the opponent's
                             unknown cards and the face-down stock)
240-263  my_known            cards of my hand the opponent has seen
264-287  my_excluded         cards the opponent knows I cannot hold
288-291  trump_suit          the trump suit (one-hot)
292-295  opp_void            suits the opponent is known to hold no card of
296-299  my_marriages        suits in which I have declared a marriage
300-303  opp_marriages       suits in which the opponent has declared one
304      my_turn             I am to act
305      i_lead              I lead the current trick
306      i_deal              I dealt this hand
307      open                the stock is open (drawing, any card may be played)
308      closed              the stock has been closed
309      exhausted           the stock has been drawn out
310      closed_by_me        I closed the stock
311      closed_by_opp       the opponent closed the stock
312      just_closed         a close was just made; its maker may still declare
                             a marriage on this lead
313      my_trick            I have won a trick
314      opp_trick           the opponent has won a trick
315      my_exchange         I exchanged the trump 9
316      opp_exchange        the opponent exchanged the trump 9
317      hand_over           the hand has ended
318-324  stock_left          face-down cards left in the stock: one-hot of
                             0, 1, 3, 5, 7, 9, 11 (the counts a hand can have)
325      my_card_points      my card points / 120
326      opp_card_points     the opponent's card points / 120
327      my_marriage_points  my marriage points / 100 (declared, less those still
                             pending under marriage_points_pending)
328      opp_marriage_pts    the opponent's marriage points / 100 (the same)
329      my_tricks           tricks I have won / 12
330      opp_tricks          tricks the opponent has won / 12
331      opp_hand_size       cards in the opponent's hand / 6
332      my_score            my game points in the match / the match target
333      opp_score           the opponent's game points / the match target
334      close_card_points   when the stock was closed: the card points of the
                             closer's opponent then / 120 (0 if not closed)
335      close_marriage_pts  ... its marriage points then / 100
336      close_had_trick     ... whether it had won a trick then
337      must_beat_in_suit   rule switch (see docs/rules.md §17)
338      marriage_after_close  rule switch
339      close_on_first_lead   rule switch
340      min_stock_to_close     rule switch / 11; 0 under closing=False (no closing)
341      min_stock_to_exchange  rule switch / 11
342-344  failed_close_penalty   rule switch, one-hot "2", "2-or-3", "3"
345      totals_at_close     rule switch opponent_totals_at == "close"
346      tie_carry_over      rule switch tie_rule == "carry-over"
347      going_out           rule switch / 200
348      last_trick_bonus    rule switch / 100
=======  ==================  ===================================================

One layout serves every preset. Under the 20-card deck (``schnapsen``,
``schnapsen-vu``) the nines are never dealt: no card plane ever holds one
(``unseen`` is the deck's cards only), ``stock_left`` takes 0, 1, 3, 5, 7, 9,
the trump jack takes the 9's place in ``my_exchange``/``opp_exchange``. The
switches ``deck``, ``marriage_needs_trick``, ``exchange_needs_trick``,
``marriage_points_pending``, ``marriage_lead`` and ``last_trick_wins`` are not
in the rule part: presets that differ only in them look alike to a network
(the deck shows in the card planes).

The action mask (a separate int8 vector of 34, 1 = legal) is the view's
``legal_mask``: all zero unless the observing seat is to act.

``OBS_VERSION`` changes whenever this table does; an exported policy records
the version it was trained on and must refuse any other
(:func:`check_obs_version`). The batched engine writes the same vector
(``sixtysix_env/batched/kernels.py``, ``observe_one``; its tests compare the two
bit for bit), so a change here is made there too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..game.actions import NUM_ACTIONS
from ..game.cards import NUM_RANKS, NUM_SUITS, SUIT_MASK
from ..game.engine import Exchange, Marriage, Trick
from ..game.rules import FAILED_CLOSE_PENALTIES, RuleConfig
from ..game.view import PlayerView

#: Version of the observation layout documented above.
OBS_VERSION = 1

#: What the numbers of the table are divided by (the batched engine's kernels read the same).
CARD_POINTS_SCALE = 120
MARRIAGE_POINTS_SCALE = 100
TRICKS_SCALE = 12
HAND_SIZE_SCALE = 6
#: The one-hot of stock_left: 0, 1, 3, 5, 7, 9, 11 face-down cards.
STOCK_LEFT_SLOTS = 7


#: (name, length) of every field, in the table's order.
_FIELD_LENGTHS = (
    ("hand", 24),
    ("trump_card", 24),
    ("lead", 24),
    ("my_played", 24),
    ("opp_played", 24),
    ("my_won", 24),
    ("opp_won", 24),
    ("opp_known", 24),
    ("opp_excluded", 24),
    ("unseen", 24),
    ("my_known", 24),
    ("my_excluded", 24),
    ("trump_suit", 4),
    ("opp_void", 4),
    ("my_marriages", 4),
    ("opp_marriages", 4),
    ("my_turn", 1),
    ("i_lead", 1),
    ("i_deal", 1),
    ("open", 1),
    ("closed", 1),
    ("exhausted", 1),
    ("closed_by_me", 1),
    ("closed_by_opp", 1),
    ("just_closed", 1),
    ("my_trick", 1),
    ("opp_trick", 1),
    ("my_exchange", 1),
    ("opp_exchange", 1),
    ("hand_over", 1),
    ("stock_left", STOCK_LEFT_SLOTS),
    ("my_card_points", 1),
    ("opp_card_points", 1),
    ("my_marriage_points", 1),
    ("opp_marriage_pts", 1),
    ("my_tricks", 1),
    ("opp_tricks", 1),
    ("opp_hand_size", 1),
    ("my_score", 1),
    ("opp_score", 1),
    ("close_card_points", 1),
    ("close_marriage_pts", 1),
    ("close_had_trick", 1),
    ("must_beat_in_suit", 1),
    ("marriage_after_close", 1),
    ("close_on_first_lead", 1),
    ("min_stock_to_close", 1),
    ("min_stock_to_exchange", 1),
    ("failed_close_penalty", 3),
    ("totals_at_close", 1),
    ("tie_carry_over", 1),
    ("going_out", 1),
    ("last_trick_bonus", 1),
)


def _build_fields() -> tuple[tuple[str, int, int], ...]:
    out, i = [], 0
    for name, n in _FIELD_LENGTHS:
        out.append((name, i, n))
        i += n
    return tuple(out)


#: (name, first index, length) of every field, in order.
FIELDS: tuple[tuple[str, int, int], ...] = _build_fields()
#: Index of the first entry of each field.
INDEX: dict[str, int] = {name: start for name, start, _ in FIELDS}
#: Length of the observation vector.
OBS_SIZE = FIELDS[-1][1] + FIELDS[-1][2]  # 349

# Everything up to the numbers is 0/1 and is packed into one int, unpacked in
# one numpy call; the action mask rides in the same int from a byte boundary.
_N_BITS = INDEX["my_card_points"]  # 325
_MASK_BIT = (_N_BITS + 7) // 8 * 8  # 328
_N_BYTES = (_MASK_BIT + NUM_ACTIONS + 7) // 8

# The first index of each field the packing writes, from INDEX (the table above
# is the one place the layout is written); module constants for the hot path.
(
    _TRUMP, _LEAD, _MY_PLAYED, _OPP_PLAYED, _MY_WON, _OPP_WON, _OPP_KNOWN, _OPP_EXCL,
    _UNSEEN, _MY_KNOWN, _MY_EXCL, _TRUMP_SUIT, _OPP_VOID, _MY_MAR, _OPP_MAR, _STOCK,
) = (
    INDEX[name]
    for name in (
        "trump_card", "lead", "my_played", "opp_played", "my_won", "opp_won", "opp_known",
        "opp_excluded", "unseen", "my_known", "my_excluded", "trump_suit", "opp_void",
        "my_marriages", "opp_marriages", "stock_left",
    )
)
assert INDEX["hand"] == 0  # the hand is the packed int's lowest bits, unshifted
# The one-bit flags my_turn ... hand_over (packed together, then shifted once).
_FLAGS = INDEX["my_turn"]
(
    _F_LEAD, _F_DEAL, _F_OPEN, _F_CLOSED, _F_EXHAUSTED, _F_CLOSED_BY_ME, _F_CLOSED_BY_OPP,
    _F_JUST_CLOSED, _F_MY_TRICK, _F_OPP_TRICK, _F_MY_EXCHANGE, _F_OPP_EXCHANGE, _F_OVER,
) = (
    INDEX[name] - _FLAGS
    for name in (
        "i_lead", "i_deal", "open", "closed", "exhausted", "closed_by_me", "closed_by_opp",
        "just_closed", "my_trick", "opp_trick", "my_exchange", "opp_exchange", "hand_over",
    )
)
assert INDEX["my_turn"] - _FLAGS == 0 and _F_OVER == INDEX["stock_left"] - _FLAGS - 1

# Keyed by id: hashing a RuleConfig (a dataclass) costs more than the rest of a
# lookup; the entry keeps its config alive and is checked by identity.
_RULES_CACHE: dict[int, tuple[RuleConfig, tuple[float, ...]]] = {}


def rules_features(rules: RuleConfig) -> tuple[float, ...]:
    """The observation's rule part (fields must_beat_in_suit to last_trick_bonus) for
    ``rules``: the one encoding of a rule configuration, read by this module and by the
    batched engine's kernels."""
    entry = _RULES_CACHE.get(id(rules))
    if entry is not None and entry[0] is rules:
        return entry[1]
    pen = [0.0, 0.0, 0.0]
    pen[FAILED_CLOSE_PENALTIES.index(rules.failed_close_penalty)] = 1.0
    part = (
        float(rules.must_beat_in_suit),
        float(rules.marriage_after_close),
        float(rules.close_on_first_lead),
        rules.min_stock_to_close / 11 if rules.closing else 0.0,
        rules.min_stock_to_exchange / 11,
        *pen,
        float(rules.opponent_totals_at == "close"),
        float(rules.tie_rule == "carry-over"),
        rules.going_out / 200,
        rules.last_trick_bonus / 100,
    )
    if len(_RULES_CACHE) > 1000:
        _RULES_CACHE.clear()
    _RULES_CACHE[id(rules)] = (rules, part)
    return part


def _suit_bits(mask: int) -> int:
    """Bit ``s`` set for each suit ``s`` that ``mask`` has a card of."""
    return sum(1 << s for s in range(4) if mask & SUIT_MASK[s])


# Suits present in the low and high 12 cards of a mask (clubs+diamonds, hearts+spades).
_SUITS_LO = tuple(_suit_bits(m) for m in range(1 << 12))
_SUITS_HI = tuple(_suit_bits(m << 12) for m in range(1 << 12))


def _public_events(view: PlayerView) -> tuple[list[int], list[int], list[int]]:
    """Per seat: the cards of the tricks it won, its marriage suits (bits), its exchange (0/1)."""
    won = [0, 0]
    mar = [0, 0]
    exch = [0, 0]
    for e in view.events:
        t = type(e)
        if t is Trick:
            won[e[4]] |= (1 << e[2]) | (1 << e[3])
        elif t is Marriage:
            mar[e[0]] |= 1 << e[1]
        elif t is Exchange:
            exch[e[0]] = 1
    return won, mar, exch


def _flags(view: PlayerView, exch: list[int]) -> int:
    """The one-bit flags my_turn ... hand_over, from bit 0."""
    s = view.seat
    o = 1 - s
    tricks = view.tricks_won
    closed_by = view.closed_by
    flags = (
        (view.to_move == s)
        | (view.leader == s) << _F_LEAD
        | (view.dealer == s) << _F_DEAL
        | view.just_closed << _F_JUST_CLOSED
        | (tricks[s] > 0) << _F_MY_TRICK
        | (tricks[o] > 0) << _F_OPP_TRICK
        | exch[s] << _F_MY_EXCHANGE
        | exch[o] << _F_OPP_EXCHANGE
        | (view.result is not None) << _F_OVER
    )
    if closed_by is None:
        return flags | 1 << (_F_OPEN if view.stock_left else _F_EXHAUSTED)
    return flags | 1 << _F_CLOSED | 1 << (_F_CLOSED_BY_ME if closed_by == s else _F_CLOSED_BY_OPP)


def _pack(view: PlayerView) -> tuple[int, list[float]]:
    """The 0/1 part (with the action mask) as one int, and the numbers."""
    s = view.seat
    o = 1 - s
    hand = view.hand
    my_played, opp_played = view.played[s], view.played[o]
    opp_known = view.opponent_known
    opp_excl = view.opponent_excluded
    won, mar, exch = _public_events(view)

    unseen = view.rules.deck_mask & ~(hand | my_played | opp_played | opp_known)
    trump = 0
    if view.stock_left:
        unseen &= ~(1 << view.trump_card)
        trump = 1 << (_TRUMP + view.trump_card)
    # A suit is void if the opponent has no known card of it and no unseen card
    # of it is possible for the opponent.
    maybe = opp_known | (unseen & ~opp_excl)
    void = 15 & ~(_SUITS_LO[maybe & 4095] | _SUITS_HI[maybe >> 12])
    lead = view.lead_card
    big = (
        hand
        | trump
        | (1 << (_LEAD + lead) if lead is not None else 0)
        | my_played << _MY_PLAYED
        | opp_played << _OPP_PLAYED
        | won[s] << _MY_WON
        | won[o] << _OPP_WON
        | opp_known << _OPP_KNOWN
        | opp_excl << _OPP_EXCL
        | unseen << _UNSEEN
        | view.own_known << _MY_KNOWN
        | view.own_excluded << _MY_EXCL
        | 1 << (_TRUMP_SUIT + view.trump_suit)
        | void << _OPP_VOID
        | mar[s] << _MY_MAR
        | mar[o] << _OPP_MAR
        | _flags(view, exch) << _FLAGS
        # stock_left's one-hot: 0, 1, 3, 5, 7, 9, 11 cards
        | 1 << (_STOCK + (view.stock_left + 1 >> 1))
        | view.legal_mask << _MASK_BIT
    )
    return big, _numbers(view)


def _numbers(view: PlayerView) -> list[float]:
    """The fields from my_card_points on: points, tricks, scores, the close, the rules."""
    s = view.seat
    o = 1 - s
    cp = view.card_points
    mp = view.marriage_points
    pend = view.pending_points
    tricks = view.tricks_won
    score = view.match_score
    target = view.rules.match_target
    ci = view.close_info
    nums = [
        cp[s] / CARD_POINTS_SCALE,
        cp[o] / CARD_POINTS_SCALE,
        (mp[s] - pend[s]) / MARRIAGE_POINTS_SCALE,
        (mp[o] - pend[o]) / MARRIAGE_POINTS_SCALE,
        tricks[s] / TRICKS_SCALE,
        tricks[o] / TRICKS_SCALE,
        view.opponent_hand_size / HAND_SIZE_SCALE,
        min(score[s] / target, 1.0),
        min(score[o] / target, 1.0),
    ]
    if ci is None:
        nums += _NO_CLOSE
    else:
        nums += (ci[0] / CARD_POINTS_SCALE, ci[1] / MARRIAGE_POINTS_SCALE, float(ci[2] > 0))
    nums += rules_features(view.rules)
    return nums


_NO_CLOSE = (0.0, 0.0, 0.0)


def encode_with_mask(view: PlayerView) -> tuple[np.ndarray, np.ndarray]:
    """Observation vector (float32) and action mask (int8), freshly allocated."""
    big, nums = _pack(view)
    bits = np.unpackbits(
        np.frombuffer(big.to_bytes(_N_BYTES, "little"), np.uint8), bitorder="little"
    )
    obs = np.empty(OBS_SIZE, np.float32)
    obs[:_N_BITS] = bits[:_N_BITS]
    obs[_N_BITS:] = nums
    return obs, bits[_MASK_BIT : _MASK_BIT + NUM_ACTIONS].view(np.int8)


def encode_view(view: PlayerView) -> np.ndarray:
    """The observation vector (float32, length ``OBS_SIZE``) of a player view."""
    return encode_with_mask(view)[0]


def action_mask(view: PlayerView) -> np.ndarray:
    """The action mask (int8, length 34, 1 = legal) of a player view."""
    return encode_with_mask(view)[1]


def observe_view(view: PlayerView) -> dict[str, np.ndarray]:
    """The environments' ``Dict`` observation: ``observation`` and ``action_mask``."""
    obs, mask = encode_with_mask(view)
    return {"observation": obs, "action_mask": mask}


def check_obs_version(version: int) -> None:
    """Raise if a policy trained on observation format ``version`` cannot read this one."""
    if version != OBS_VERSION:
        raise ValueError(
            f"observation format mismatch: the policy expects observation version "
            f"{version}, this sixtysix builds version {OBS_VERSION} ({OBS_SIZE} values); "
            "retrain or export the policy with a matching version"
        )


#: The fields indexed by card id (``suit * 6 + rank``) and those indexed by suit: the
#: entries a renaming of the suits moves. Every other entry is the same for all suits.
CARD_FIELDS = (
    "hand", "trump_card", "lead", "my_played", "opp_played", "my_won", "opp_won",
    "opp_known", "opp_excluded", "unseen", "my_known", "my_excluded",
)  # fmt: skip
SUIT_FIELDS = ("trump_suit", "opp_void", "my_marriages", "opp_marriages")


def suit_relabelling(perm: Sequence[int]) -> np.ndarray:
    """The observation's index map for a renaming of the suits.

    ``perm[s]`` is the new name of suit ``s`` (a permutation of 0-3, suits
    C D H S). For the observation ``x`` of any position, ``x[suit_relabelling(perm)]``
    is the observation of the same position with every suit ``s`` renamed
    ``perm[s]``: card entries move from ``s * 6 + rank`` to ``perm[s] * 6 + rank``,
    suit entries from ``s`` to ``perm[s]``, and nothing else changes. The rules
    treat the four suits alike (the trump suit is the one the deal turns up), so
    both positions are the same game under other names.
    """
    perm = tuple(int(p) for p in perm)
    if sorted(perm) != list(range(NUM_SUITS)):
        raise ValueError(f"a renaming of the suits is a permutation of 0-3, got {perm}")
    src = np.arange(OBS_SIZE)
    fields = {name: (start, n) for name, start, n in FIELDS}
    for name in CARD_FIELDS:
        start, n = fields[name]
        assert n == NUM_SUITS * NUM_RANKS, name
        for s in range(NUM_SUITS):
            for r in range(NUM_RANKS):
                src[start + perm[s] * NUM_RANKS + r] = start + s * NUM_RANKS + r
    for name in SUIT_FIELDS:
        start, n = fields[name]
        assert n == NUM_SUITS, name
        for s in range(NUM_SUITS):
            src[start + perm[s]] = start + s
    return src


def describe(obs: np.ndarray) -> dict[str, np.ndarray]:
    """Split an observation vector into its named fields (for debugging)."""
    return {name: obs[start : start + n] for name, start, n in FIELDS}


__all__ = [
    "CARD_FIELDS",
    "FIELDS",
    "INDEX",
    "OBS_SIZE",
    "OBS_VERSION",
    "SUIT_FIELDS",
    "action_mask",
    "check_obs_version",
    "describe",
    "encode_view",
    "observe_view",
    "suit_relabelling",
]
