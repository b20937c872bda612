"""The batched engine against the reference engine: same deals, same moves, same everything.

``compare_random_hands`` plays random hands on both engines and compares, at
every decision, the legal masks and both seats' observations bit for bit, and at
the end the results and returns. The fast lane plays a few hundred hands per rule
set; the full suite 100,000 per preset (``slow``).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba", reason="numba (the [fast] extra) is not installed")

from sixtysix_env import IllegalActionError, deal_from_deck, make_rules  # noqa: E402
from sixtysix_env.batched.check import Mismatch, compare_random_hands  # noqa: E402
from sixtysix_env.batched.engine import BatchedHands  # noqa: E402
from sixtysix_env.game.rules import PRESETS  # noqa: E402
from sixtysix_env.util.errors import DeckError  # noqa: E402

# Every switch away from the presets' values at least once: totals taken at the close,
# closing and exchanging only on a longer stock, a lower target, no last-trick bonus.
CUSTOM = [
    make_rules("altmisalti", opponent_totals_at="close", going_out=50, last_trick_bonus=0),
    make_rules("pagat66", min_stock_to_close=5, min_stock_to_exchange=3, going_out=40),
    make_rules("santase", marriage_after_close=False, failed_close_penalty="2-or-3",
               last_trick_bonus=20, match_target=3),
    # The 20-card presets' switches on the 24-card deck, and the 20-card deck with closing
    # and pending points together (a pending declarer's figures at a close).
    make_rules("altmisalti", marriage_needs_trick=False, exchange_needs_trick=False,
               marriage_points_pending=True, marriage_lead="king", last_trick_wins=True),
    make_rules("schnapsen-vu", closing=True, min_stock_to_exchange=3, going_out=50,
               opponent_totals_at="close", failed_close_penalty="3"),
]


# The presets in the fast lane (30 s) on 100 hands each; the custom switches, and the
# presets on 300 hands (the same seed, so the same first 64-hand batch), in the full suite.
@pytest.mark.parametrize(
    "hands", [pytest.param(100, id="100"), pytest.param(300, id="300", marks=pytest.mark.slow)]
)
@pytest.mark.parametrize(
    "rules",
    list(PRESETS) + [pytest.param(r, marks=pytest.mark.slow) for r in CUSTOM],
    ids=lambda r: getattr(r, "name", r),
)
def test_same_game_as_the_reference_engine(rules, hands):
    assert compare_random_hands(hands, rules, seed=1, lanes=64) > hands * 10


@pytest.mark.slow
@pytest.mark.parametrize("rules", list(PRESETS))
def test_same_game_over_100000_hands(rules):
    # 100,000 hands: every decision's legal mask, every result and return; the
    # observations (the reference encoder is most of the time) on 10,000 of them, both
    # seats' on 3,000. `python -m sixtysix_env.batched.check` compares every observation.
    compare_random_hands(3_000, rules, seed=2, observe="both")
    compare_random_hands(7_000, rules, seed=3, observe="acting")
    # 15 decisions a hand at least with 24 cards (12 tricks), 13 with 20 (10 tricks).
    least = PRESETS[rules].num_tricks + 3
    assert compare_random_hands(90_000, rules, seed=4, observe="none") > 90_000 * least


def test_the_comparison_can_fail():
    # A lane given another deck than the reference's must be found out.
    batch = BatchedHands(1)
    deck = list(range(24))
    batch.deal(None, np.array([deck]), np.array([1]))
    state = deal_from_deck(deck[::-1], dealer=1)
    assert batch.legal_masks()[0] != state.legal_mask()
    with pytest.raises(Mismatch):
        from sixtysix_env.batched import check

        original = check.BatchedHands

        class Shifted(original):
            def deal(self, lanes, decks, dealers, scores=None):
                super().deal(lanes, np.roll(decks, 1, axis=1), dealers, scores)

        check.BatchedHands = Shifted
        try:
            compare_random_hands(5, "altmisalti", seed=0)
        finally:
            check.BatchedHands = original


def test_illegal_actions_are_refused_naming_the_game_and_nothing_changes():
    batch = BatchedHands(3)
    decks = np.array([list(range(24))] * 3)
    batch.deal(None, decks, np.array([1, 1, 1]))
    before = batch.S.copy()
    legal = batch.legal_masks()
    bad = [int(np.flatnonzero([(legal[0] >> a) & 1 for a in range(34)])[0])] * 3
    bad[2] = 33 if not legal[2] >> 33 & 1 else 32
    with pytest.raises(IllegalActionError, match="in game 2; legal actions: "):
        batch.apply(None, np.array(bad))
    assert np.array_equal(batch.S, before)


def test_a_deck_of_the_wrong_size_for_the_rules_is_refused():
    batch = BatchedHands(1, "schnapsen")
    with pytest.raises(DeckError, match="1 decks of 20 cards are needed for the schnapsen rules"):
        batch.deal(None, np.array([list(range(24))]), np.array([0]))
    nine = [c for c in range(24) if c % 6][:19] + [0]
    with pytest.raises(DeckError, match="deck 0 is not the schnapsen rules' 20 card ids"):
        batch.deal(None, np.array([nine]), np.array([0]))
    batch.deal(None, np.array([[c for c in range(24) if c % 6]]), np.array([0]))
    assert bin(int(batch.S[0, 0])).count("1") == 5 and not batch.over()[0]


def test_bad_decks_are_refused():
    batch = BatchedHands(2)
    with pytest.raises(DeckError, match="deck 1 is not the 24 card ids"):
        batch.deal(None, np.array([list(range(24)), [0] * 24]), np.array([0, 1]))
    with pytest.raises(ValueError, match="dealers must be seats 0 or 1"):
        batch.deal(None, np.array([list(range(24))] * 2), np.array([0, 2]))
    with pytest.raises(ValueError, match="number of lanes"):
        BatchedHands(0)
