"""Golden values: fixed data written down once, so that a change of the
dealing code, of the observation layout or of the shipped policy's strength
shows up as a failing test rather than as silently different figures.

If a change is meant (a new dealing scheme, a new observation layout), bump
what guards it (``OBS_VERSION`` and the env's changelog for the observation)
and write the new values here in the same commit.
"""

from __future__ import annotations

import hashlib
import random

import pytest

from sixtysix_env import new_hand, player_view
from sixtysix_env.game.cards import card_code, codes
from sixtysix_env.policy.observation import OBS_VERSION, action_mask, encode_view


def test_the_deal_of_seed_zero_is_pinned():
    s = new_hand(0, dealer=1)
    assert codes(s.hand(0)) == "9C TD QH AH KS TS"
    assert codes(s.hand(1)) == "QC TC 9D JD AD QS"
    assert card_code(s.trump_card) == "KC"
    assert [card_code(c) for c in s.stock_cards] == (
        "JS AC 9S KD AS KH TH QD JC JH 9H".split()
    )
    assert s.current_player() == 0


def _observation_digest(rules: str, seed: int) -> str:
    """Both seats' observations and masks at every position of one seeded random hand."""
    rng = random.Random(seed)
    s = new_hand(seed, dealer=seed % 2, rules=rules)
    h = hashlib.sha256()
    while not s.is_terminal():
        for seat in (0, 1):
            view = player_view(s, seat)
            h.update(encode_view(view).astype("<f4").tobytes())
            h.update(action_mask(view).astype("<i1").tobytes())
        legal = s.legal_actions()
        s = s.apply(legal[rng.randrange(len(legal))])
    return h.hexdigest()[:16]


# Observation layout version 1.
GOLDEN_OBSERVATIONS = {
    "altmisalti": ["b38b2fbb7b1cf2ef", "d1460d3afbda3668", "578dde7e21c2a8d4"],
    "pagat66": ["4f5996235c175614", "b194717c23fb6eb5", "277b60fe9e91c2e0"],
    "santase": ["d0ea23f16bb0cb39", "da6af5751799d5f8", "6b3d4e86f17a9f4f"],
}


@pytest.mark.parametrize("rules", sorted(GOLDEN_OBSERVATIONS))
def test_observations_match_the_golden_hashes_of_their_version(rules):
    assert OBS_VERSION == 1, "a new layout: write its golden hashes here"
    got = [_observation_digest(rules, seed) for seed in range(3)]
    assert got == GOLDEN_OBSERVATIONS[rules]


def test_the_shipped_policy_still_beats_the_heuristic():
    """A small fixed evaluation (300 paired deals, seed 5): the card says +0.335 over 10,000."""
    from sixtysix_env.evaluation import evaluate

    res = evaluate(["sixtysix-ppo", "heuristic"], deals=300, seed=5)
    (pair,) = res.pairs
    assert pair.deals == 300
    assert pair.gp_ci95[0] > 0.0, pair
