"""The time estimate's first deal is dealt from the protocol's rules' deck."""

from __future__ import annotations

from sixtysix_env.benchmark import Protocol
from sixtysix_env.benchmark.estimates import time_pairs


def test_the_time_estimate_deals_the_rules_deck():
    """Under the 20-card ``schnapsen-vu`` rules the estimate's first deal has 20 cards: it
    dealt 24, which those rules refuse (a DeckError before anything was played)."""
    protocol = Protocol(name="test-estimate-vu", rules="schnapsen-vu",
                        ladder=("random", "heuristic"), search=frozenset(), deals=2,
                        matches=1, search_deals=1, search_matches=1, hand_seed=5, match_seed=6)
    timed, ms, _ = time_pairs([("random", "heuristic")], protocol)
    # 20 cards, 5-card hands: 10 tricks, 20 cards played, and an exchange or marriage or two.
    assert 10 <= timed[("random", "heuristic")].decisions_per_hand <= 24
    assert set(ms) == {"random", "heuristic"}
