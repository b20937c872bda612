"""``sixtysix eval`` under the 20-card presets: the evaluation deals the rules' deck."""

from __future__ import annotations

import pytest

from sixtysix_env.evaluation import evaluate
from sixtysix_env.evaluation.play import deal_deck
from sixtysix_env.game.rules import make_rules


@pytest.mark.parametrize("rules", ["schnapsen", "schnapsen-vu"])
def test_eval_plays_the_20_card_presets(rules):
    res = evaluate(["random", "heuristic"], deals=3, rules=rules, seed=1)
    assert res.pairs[0].hands == 6


def test_the_24_card_decks_are_unchanged():
    for preset in ("altmisalti", "santase"):
        assert deal_deck(4, 7, make_rules(preset)) == deal_deck(4, 7)
    assert len(deal_deck(4, 7, make_rules("schnapsen-vu"))) == 20
