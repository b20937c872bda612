"""Derived features: facts a network would otherwise have to work out from the planes.

Every entry is a fixed function of the observation vector (numpy only, batched
over any leading axes), so a policy that reads them sees nothing the
observation does not already carry; it is spared learning the arithmetic.

=======  ================  =====================================================
index    name              meaning
=======  ================  =====================================================
0-23     my_top            cards of my hand that no card still out ranks in
                           their suit (out: unseen, known in the opponent's
                           hand, or the trump card under the stock)
24-47    beats_lead        cards of my hand that would beat the card led
                           (higher in its suit, or a trump on a plain lead)
48-71    out_over_mine     cards still out that rank above my best card of
                           their suit (all out cards of a suit I lack)
72-75    my_suit_count     my cards per suit / 6
76-79    out_suit_count    cards still out per suit / 6
80       my_total          my card and marriage points / 66 (at most 1)
81       opp_total         the opponent's card and marriage points / 66 (at most 1)
82       lead_points       the led card's points / 11
83       my_top_count      my top cards / 6
84       my_trumps         my trumps / 6
85       out_trumps        trumps still out / 6
=======  ================  =====================================================
"""

from __future__ import annotations

import numpy as np

from ..cards import NUM_RANKS, NUM_SUITS, RANK_POINTS
from .observation import INDEX, OBS_SIZE

#: The names a network may declare for these features (``PolicyNetwork(features=...)``).
FEATURES = ("derived",)
FEATURES_SIZE = 86

_RANK_POINTS = np.asarray(RANK_POINTS, np.float32)


def _plane(x: np.ndarray, name: str) -> np.ndarray:
    i = INDEX[name]
    return x[..., i : i + 24].reshape(*x.shape[:-1], NUM_SUITS, NUM_RANKS)


def _above(cards: np.ndarray) -> np.ndarray:
    """For each (suit, rank): whether ``cards`` holds a higher rank of that suit."""
    # reverse cumulative max over ranks, shifted by one (strictly higher)
    rev = np.maximum.accumulate(cards[..., ::-1], axis=-1)[..., ::-1]
    out = np.zeros_like(cards)
    out[..., :-1] = rev[..., 1:]
    return out


def _below(cards: np.ndarray) -> np.ndarray:
    """For each (suit, rank): whether ``cards`` holds a lower rank of that suit."""
    fwd = np.maximum.accumulate(cards, axis=-1)
    out = np.zeros_like(cards)
    out[..., 1:] = fwd[..., :-1]
    return out


def derived_features(obs: np.ndarray) -> np.ndarray:
    """The ``FEATURES_SIZE`` derived features of observations ``(..., OBS_SIZE)``."""
    x = np.asarray(obs, dtype=np.float32)
    if x.shape[-1] != OBS_SIZE:
        raise ValueError(f"an observation has {OBS_SIZE} entries, not {x.shape[-1]}")
    lead_shape = x.shape[:-1]
    hand = _plane(x, "hand")
    out = np.minimum(_plane(x, "unseen") + _plane(x, "opp_known") + _plane(x, "trump_card"), 1.0)
    lead = _plane(x, "lead")
    trump = x[..., INDEX["trump_suit"] : INDEX["trump_suit"] + 4]
    my_top = hand * (1.0 - _above(out))
    lead_suit = lead.max(axis=-1)  # (..., 4)
    any_lead = lead_suit.max(axis=-1, keepdims=True)  # (..., 1)
    lead_trump = (lead_suit * trump).sum(axis=-1, keepdims=True)
    by_trump = trump * (1.0 - lead_trump) * any_lead  # (..., 4)
    beats = hand * np.maximum(_below(lead), by_trump[..., None])
    # my best card per suit: a card of mine with none of mine above it
    my_best = hand * (1.0 - _above(hand))
    over_mine = out * (1.0 - _at_or_above(my_best))
    p = _RANK_POINTS
    f = np.empty((*lead_shape, FEATURES_SIZE), np.float32)
    f[..., 0:24] = my_top.reshape(*lead_shape, 24)
    f[..., 24:48] = beats.reshape(*lead_shape, 24)
    f[..., 48:72] = over_mine.reshape(*lead_shape, 24)
    f[..., 72:76] = hand.sum(axis=-1) / 6.0
    f[..., 76:80] = out.sum(axis=-1) / 6.0
    my_pts = x[..., INDEX["my_card_points"]] * 120 + x[..., INDEX["my_marriage_points"]] * 100
    opp_pts = x[..., INDEX["opp_card_points"]] * 120 + x[..., INDEX["opp_marriage_pts"]] * 100
    f[..., 80] = np.minimum(my_pts / 66.0, 1.0)
    f[..., 81] = np.minimum(opp_pts / 66.0, 1.0)
    f[..., 82] = (lead * p).sum(axis=(-1, -2)) / 11.0
    f[..., 83] = my_top.sum(axis=(-1, -2)) / 6.0
    f[..., 84] = (hand.sum(axis=-1) * trump).sum(axis=-1) / 6.0
    f[..., 85] = (out.sum(axis=-1) * trump).sum(axis=-1) / 6.0
    return f


def _at_or_above(best: np.ndarray) -> np.ndarray:
    """For each (suit, rank): whether ``best`` (at most one card a suit) is at or above it."""
    # 1 where a card of best lies at this rank or higher
    return np.maximum.accumulate(best[..., ::-1], axis=-1)[..., ::-1]


__all__ = ["FEATURES", "FEATURES_SIZE", "derived_features"]
