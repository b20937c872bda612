"""The rule configuration: one named switch per row of the preset table.

``docs/rules.md`` describes the rules these switches select: the default
rule set, ``altmisalti``, two published families, ``pagat66`` and
``santase``, and the 20-card game Schnapsen, ``schnapsen`` (the standard
game) and ``schnapsen-vu`` (the ``schnapsen`` package's engine); the table of
every switch per preset is docs/rules.md §17.
Any switch can be overridden by name::

    rules = make_rules("pagat66", match_target=11)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ..util.errors import RuleConfigError
from .cards import (
    ALL_CARDS,
    CARD_POINTS,
    HIGHER_IN_SUIT,
    JACK,
    NINE,
    NUM_CARDS,
    NUM_RANKS,
    NUM_SUITS,
    QUEEN_KING,
    SUIT_MASK,
)

FAILED_CLOSE_PENALTIES = ("2", "2-or-3", "3")
OPPONENT_TOTALS_AT = ("end", "close")
TIE_RULES = ("no-points", "carry-over")
#: Deck sizes: the 24-card deck, or the 20-card one (the same without the nines).
DECKS = (24, 20)
#: How a marriage is declared: by leading its queen or its king, or its king only.
MARRIAGE_LEADS = ("either", "king")
#: The switches added with the 20-card presets, and their defaults: ``to_dict`` writes them
#: only where they differ, so the records written before them read the same.
_LATER_SWITCHES = {
    "deck": 24,
    "closing": True,
    "marriage_needs_trick": True,
    "exchange_needs_trick": True,
    "marriage_points_pending": False,
    "marriage_lead": "either",
    "last_trick_wins": False,
}
#: Marriage action ids 24-31 as a mask: all, or those leading a king (odd ids).
_MARRIAGE_ACTIONS = {"either": 0xFF << 24, "king": 0xAA << 24}
#: The nines' bits (cards not in the 20-card deck).
_NINES = sum(1 << (s * NUM_RANKS + NINE) for s in range(NUM_SUITS))


@dataclass(frozen=True)
class RuleConfig:
    """Switches of a Sixty-Six rule set (see the preset table in docs/rules.md §17)."""

    name: str = "altmisalti"
    #: Strict phase: a follower who can follow suit must beat the led card if able.
    must_beat_in_suit: bool = False
    #: Marriages may still be declared once the stock is closed or exhausted.
    marriage_after_close: bool = False
    #: The stock may be closed on the very first lead of a hand.
    close_on_first_lead: bool = True
    #: Fewest face-down cards left in the stock for closing.
    min_stock_to_close: int = 1
    #: Fewest face-down cards left in the stock for exchanging the trump 9.
    min_stock_to_exchange: int = 1
    #: What a closer who fails gives the opponent: "2", "3", or "2-or-3"
    #: (3 if the opponent had won no trick when the stock was closed).
    failed_close_penalty: str = "2"
    #: When a closer goes out, the opponent's totals are taken at the "end"
    #: of the hand or at the moment of the "close".
    opponent_totals_at: str = "end"
    #: A 65-65 hand: "no-points", or "carry-over" (each tied hand adds one
    #: game point for the winner of the next hand that is not tied).
    tie_rule: str = "no-points"
    #: Game points that win a match.
    match_target: int = 7
    #: Points that win a hand at once (card points plus marriages).
    going_out: int = 66
    #: Bonus for the last trick when the hand runs out without a close.
    last_trick_bonus: int = 10
    #: Cards in the deck: 24 (9 J Q K 10 A), or 20 (the same without the nines: hands
    #: of 5, the trump jack exchanged for the face-up trump).
    deck: int = 24
    #: The stock may be closed at all.
    closing: bool = True
    #: A marriage may be declared only by a side that has won a trick (without one its
    #: points count once a trick is won, as always).
    marriage_needs_trick: bool = True
    #: The exchange of the trump 9 (or jack) needs a trick won.
    exchange_needs_trick: bool = True
    #: A marriage's points wait until its declarer next wins a trick (points never
    #: redeemed never count; a declaration never ends the hand by itself).
    marriage_points_pending: bool = False
    #: How a marriage is declared: "either" (leading its queen or its king) or "king".
    marriage_lead: str = "either"
    #: A hand played out without a close is won by the last trick's winner, for one
    #: game point (no last-trick bonus, no tie).
    last_trick_wins: bool = False

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            want = {"bool": bool, "int": int, "str": str}[f.type]
            if type(value) is not want:
                raise RuleConfigError(
                    f"rule switch {f.name!r} must be a {want.__name__}, got {value!r}"
                )
        for key, allowed in (
            ("failed_close_penalty", FAILED_CLOSE_PENALTIES),
            ("opponent_totals_at", OPPONENT_TOTALS_AT),
            ("tie_rule", TIE_RULES),
            ("deck", DECKS),
            ("marriage_lead", MARRIAGE_LEADS),
        ):
            if getattr(self, key) not in allowed:
                raise RuleConfigError(
                    f"rule switch {key!r} got {getattr(self, key)!r}; "
                    f"allowed values: {', '.join(map(repr, allowed))}"
                )
        for key, lo, hi in (
            ("min_stock_to_close", 1, 11),
            ("min_stock_to_exchange", 1, 11),
            ("match_target", 1, 1000),
            ("going_out", 1, 200),
            ("last_trick_bonus", 0, 100),
        ):
            if not lo <= getattr(self, key) <= hi:
                raise RuleConfigError(
                    f"rule switch {key!r} got {getattr(self, key)!r}; allowed: {lo} to {hi}"
                )

    # -- what the deck implies (derived, not switches) ---------------------------

    @property
    def hand_size(self) -> int:
        """Cards in a hand after the deal: 6 (24-card deck) or 5 (20-card deck)."""
        return 6 if self.deck == 24 else 5

    @property
    def deck_mask(self) -> int:
        """The deck's cards as a card mask (the 20-card deck has no nines)."""
        return ALL_CARDS if self.deck == 24 else ALL_CARDS & ~_NINES

    @property
    def deck_cards(self) -> tuple[int, ...]:
        """The deck's card ids, ascending."""
        m = self.deck_mask
        return tuple(c for c in range(NUM_CARDS) if m >> c & 1)

    @property
    def exchange_rank(self) -> int:
        """The rank exchanged for the face-up trump: the deck's lowest (the 9, or the jack)."""
        return NINE if self.deck == 24 else JACK

    @property
    def stock_start(self) -> int:
        """Face-down cards in the stock after the deal: 11, or 9."""
        return self.deck - 2 * self.hand_size - 1

    @property
    def exchange_bits(self) -> tuple[int, ...]:
        """For each trump suit, the bit of the card exchanged for the face-up trump."""
        r = self.exchange_rank
        return tuple(1 << (s * NUM_RANKS + r) for s in range(NUM_SUITS))

    @property
    def marriage_actions(self) -> int:
        """The marriage actions (ids 24-31, as a mask) these rules allow at all: all eight,
        or under ``marriage_lead="king"`` the four that lead a king."""
        return _MARRIAGE_ACTIONS[self.marriage_lead]

    @property
    def num_tricks(self) -> int:
        """Tricks in a hand played out: 12, or 10."""
        return self.deck // 2

    def replace(self, **changes: Any) -> RuleConfig:
        """A copy with some switches changed (unknown names are an error)."""
        _check_switch_names(changes)
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The switches by name (with ``name``); those added with the 20-card presets only
        where they differ from their defaults, so that every record written before them
        (eval results, benchmark pairs, policy metadata) still reads as the same rules."""
        d = dataclasses.asdict(self)
        for key, default in _LATER_SWITCHES.items():
            if d[key] == default:
                del d[key]
        return d


SWITCHES = tuple(f.name for f in dataclasses.fields(RuleConfig) if f.name != "name")

PRESETS: dict[str, RuleConfig] = {
    "altmisalti": RuleConfig(),
    "pagat66": RuleConfig(
        name="pagat66",
        must_beat_in_suit=True,
        close_on_first_lead=False,
        failed_close_penalty="2-or-3",
    ),
    "santase": RuleConfig(
        name="santase",
        must_beat_in_suit=True,
        marriage_after_close=True,
        close_on_first_lead=False,
        min_stock_to_close=2,
        min_stock_to_exchange=2,
        failed_close_penalty="3",
        match_target=11,
    ),
    # The standard game of Schnapsen, as the published rules give it (our reading where
    # they differ: docs/rules.md §17).
    "schnapsen": RuleConfig(
        name="schnapsen",
        deck=20,
        must_beat_in_suit=True,
        marriage_after_close=True,
        min_stock_to_close=2,
        min_stock_to_exchange=2,
        marriage_needs_trick=False,
        exchange_needs_trick=False,
        failed_close_penalty="2-or-3",
        opponent_totals_at="close",
        last_trick_wins=True,
        last_trick_bonus=0,
    ),
    # Schnapsen as the ``schnapsen`` package (0.0.5) plays it (docs/rules.md §20).
    "schnapsen-vu": RuleConfig(
        name="schnapsen-vu",
        deck=20,
        closing=False,
        must_beat_in_suit=True,
        marriage_after_close=True,
        marriage_needs_trick=False,
        exchange_needs_trick=False,
        marriage_points_pending=True,
        marriage_lead="king",
        last_trick_wins=True,
        last_trick_bonus=0,
    ),
}


def _check_switch_names(changes: dict[str, Any]) -> None:
    unknown = sorted(set(changes) - set(SWITCHES) - {"name"})
    if unknown:
        raise RuleConfigError(
            f"unknown rule switch {', '.join(map(repr, unknown))}; "
            f"allowed switches: {', '.join(SWITCHES)}"
        )


def make_rules(rules: str | RuleConfig | dict | None = None, **overrides: Any) -> RuleConfig:
    """Resolve a preset name, a ``RuleConfig`` or a dict of switches.

    A dict may name its base preset under ``"preset"`` (or ``"name"``); its
    other keys are switches. Keyword overrides are applied last.
    """
    if rules is None:
        base = PRESETS["altmisalti"]
    elif isinstance(rules, RuleConfig):
        base = rules
    elif isinstance(rules, str):
        try:
            base = PRESETS[rules]
        except KeyError:
            raise RuleConfigError(
                f"unknown rule preset {rules!r}; allowed presets: {', '.join(PRESETS)}"
            ) from None
    elif isinstance(rules, dict):
        d = dict(rules)
        preset = d.pop("preset", None)
        name = d.get("name")
        if preset is None and name in PRESETS:
            preset = d.pop("name")
        base = make_rules(preset)
        _check_switch_names(d)
        overrides = {**d, **overrides}
    else:
        raise RuleConfigError(
            f"rules must be a preset name ({', '.join(PRESETS)}), a RuleConfig or a dict, "
            f"got {type(rules).__name__}"
        )
    if overrides:
        _check_switch_names(overrides)
        if "name" not in overrides:
            overrides["name"] = base.name + "+custom" if not base.name.endswith("+custom") else base.name
        base = dataclasses.replace(base, **overrides)
    return base


# -- the rules as small functions on plain integers ---------------------------
#
# One statement of each rule, used by the engine, the solver's search, the
# agents, the explanations given to people and the narration. Cards and hands
# are card ids and bit masks (:mod:`sixtysix_env.game.cards`); nothing here builds a
# state, so the search can call these on its own integers.

#: A hand's loser with this total (card points and counted marriages) or more
#: gives the winner 1 game point, under it 2 (docs/rules.md §15). Fixed: it
#: does not follow the ``going_out`` switch.
ONE_POINT_TOTAL = 33
#: A marriage's points: in the trump suit, and in another suit (docs/rules.md §8).
TRUMP_MARRIAGE_POINTS, MARRIAGE_POINTS = 40, 20


def marriage_points(suit: int, trump_suit: int) -> int:
    """Points a marriage in ``suit`` is worth."""
    return TRUMP_MARRIAGE_POINTS if suit == trump_suit else MARRIAGE_POINTS


def best_marriage_points(hand: int, trump_suit: int) -> int:
    """The most a marriage held in ``hand`` is worth (0 without one)."""
    best = 0
    for s in range(NUM_SUITS):
        if hand & QUEEN_KING[s] == QUEEN_KING[s]:
            best = max(best, marriage_points(s, trump_suit))
    return best


def counted_total(card_points: int, marriage_points: int, tricks: int) -> int:
    """A side's total: card points, plus marriage points once it has won a trick (§8)."""
    return card_points + (marriage_points if tricks else 0)


#: ``BEATS[trump_suit][lead]``: the cards that win a trick against ``lead``
#: (higher in its suit, or any trump when a side suit was led; docs/rules.md §4).
BEATS = tuple(
    tuple(
        HIGHER_IN_SUIT[lead] | (SUIT_MASK[ts] if lead // NUM_RANKS != ts else 0)
        for lead in range(NUM_CARDS)
    )
    for ts in range(NUM_SUITS)
)


def follower_wins(lead: int, follow: int, trump_suit: int) -> bool:
    """Whether ``follow`` wins the trick against ``lead``."""
    return bool(BEATS[trump_suit][lead] >> follow & 1)


def follow_mask(hand: int, lead: int, trump_suit: int, must_beat: bool) -> int:
    """The cards of ``hand`` that may answer ``lead`` in the strict phase (docs/rules.md §7).

    Follow suit (beating the lead if able, when ``must_beat``); without the
    suit, trump; without either, any card. In the open phase any card may be
    played.
    """
    follow = hand & SUIT_MASK[lead // NUM_RANKS]
    if follow:
        if must_beat:
            return follow & HIGHER_IN_SUIT[lead] or follow
        return follow
    return hand & SUIT_MASK[trump_suit] or hand


# Why an action is refused: the codes below, or None when the rule allows it.
# ``sixtysix_env.game.wording.explain_illegal`` words them for people; the
# engine's legal mask is built from the same functions.
NOT_HELD = "not_held"  # the card (or the 9 of trumps, or a marriage half) is not in hand
MUST_FOLLOW = "must_follow"  # strict phase: a card of the led suit must be played
MUST_BEAT = "must_beat"  # strict phase, must_beat_in_suit: a higher card of the suit
MUST_TRUMP = "must_trump"  # strict phase, void in the led suit: a trump must be played
NO_TRICK_YET = "no_trick_yet"  # marriages and the exchange need a trick won
STOCK_CLOSED = "stock_closed"
STOCK_EXHAUSTED = "stock_exhausted"
STOCK_TOO_SMALL = "stock_too_small"  # fewer face-down cards than the switch asks
FIRST_LEAD = "first_lead"  # close_on_first_lead is off and no trick is done
MARRIAGE_PHASE = "marriage_phase"  # strict phase without marriage_after_close
NO_CLOSING = "no_closing"  # the rules have no closing (closing=False)
KING_ONLY = "king_only"  # marriage_lead="king": a marriage is declared by leading its king
REFUSALS = (
    NOT_HELD,
    MUST_FOLLOW,
    MUST_BEAT,
    MUST_TRUMP,
    NO_TRICK_YET,
    STOCK_CLOSED,
    STOCK_EXHAUSTED,
    STOCK_TOO_SMALL,
    FIRST_LEAD,
    MARRIAGE_PHASE,
    NO_CLOSING,
    KING_ONLY,
)


def follow_refusal(
    hand: int, lead: int, card: int, trump_suit: int, must_beat: bool, strict: bool
) -> str | None:
    """Why ``card`` may not answer ``lead`` (None if it may): derived from :func:`follow_mask`."""
    if not hand >> card & 1:
        return NOT_HELD
    if not strict or follow_mask(hand, lead, trump_suit, must_beat) >> card & 1:
        return None
    if hand & SUIT_MASK[lead // NUM_RANKS]:
        return MUST_BEAT if card // NUM_RANKS == lead // NUM_RANKS else MUST_FOLLOW
    return MUST_TRUMP


def marriage_refusal(
    rules: RuleConfig, won_trick: bool, closed: bool, stock_left: int, just_closed: bool
) -> str | None:
    """Why the leader may not declare a marriage it holds (None if it may; docs/rules.md §8)."""
    if not won_trick and rules.marriage_needs_trick:
        return NO_TRICK_YET
    if (closed or not stock_left) and not (rules.marriage_after_close or just_closed):
        return MARRIAGE_PHASE
    return None


def exchange_refusal(
    rules: RuleConfig, hand: int, trump_suit: int, won_trick: bool, closed: bool, stock_left: int
) -> str | None:
    """Why the leader may not exchange the trump 9 (the jack with 20 cards; None if it may;
    docs/rules.md §9)."""
    if not hand >> (trump_suit * NUM_RANKS + rules.exchange_rank) & 1:
        return NOT_HELD
    if not won_trick and rules.exchange_needs_trick:
        return NO_TRICK_YET
    if closed:
        return STOCK_CLOSED
    if not stock_left:
        return STOCK_EXHAUSTED
    if stock_left < rules.min_stock_to_exchange:
        return STOCK_TOO_SMALL
    return None


def close_refusal(
    rules: RuleConfig, closed: bool, stock_left: int, tricks_done: int
) -> str | None:
    """Why the leader may not close the stock (None if it may; docs/rules.md §10)."""
    if not rules.closing:
        return NO_CLOSING
    if closed:
        return STOCK_CLOSED
    if not stock_left:
        return STOCK_EXHAUSTED
    if not tricks_done and not rules.close_on_first_lead:
        return FIRST_LEAD
    if stock_left < rules.min_stock_to_close:
        return STOCK_TOO_SMALL
    return None


#: Reasons a hand ends (``HandResult.reason``; re-exported by :mod:`sixtysix_env.game.events`).
WENT_OUT, FAILED_CLOSE, LAST_TRICK, TIE = "went_out", "failed_close", "last_trick", "tie"


def trick_points(t) -> int:
    """Card points a trick takes: its lead's and its follow's (``t``: a ``Trick``)."""
    return CARD_POINTS[t.lead] + CARD_POINTS[t.follow]


def game_points(loser_total: int, loser_tricks: int) -> int:
    """The hand winner's game points from the loser's total and tricks (docs/rules.md §15)."""
    if loser_tricks == 0:
        return 3
    return 1 if loser_total >= ONE_POINT_TOTAL else 2


def failed_close_points(rules: RuleConfig, opponent_tricks_at_close: int) -> int:
    """What a closer who fails gives the opponent (docs/rules.md §13)."""
    pen = rules.failed_close_penalty
    if pen == "2-or-3":
        return 3 if opponent_tricks_at_close == 0 else 2
    return int(pen)
