"""The outside referee's small run: ``schnapsen-vu`` against the ``schnapsen`` package's engine.

``tools/schnapsen_referee.py`` deals through the package and plays the same random moves
in its ``SchnapsenGamePlayEngine`` and in both of this project's engines, comparing the
legal moves at every decision and the winner and game points at every hand's end (the
million-hand run and its figure: docs/rules.md §20). Skipped where the package is not
installed (``pip install "sixtysix[schnapsen]"``).
"""

from __future__ import annotations

import importlib.util
import os
import random
import sys

import pytest

pytest.importorskip("schnapsen.game", reason='the schnapsen package is not installed '
                    '(pip install "sixtysix[schnapsen]")')
pytest.importorskip("numba", reason="the batched engine needs numba")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _referee():
    spec = importlib.util.spec_from_file_location(
        "schnapsen_referee", os.path.join(ROOT, "tools", "schnapsen_referee.py")
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["schnapsen_referee"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # several seconds: the full suite, not the fast lane
def test_schnapsen_vu_agrees_with_the_package_on_300_hands():
    ref = _referee()
    report = ref.referee(300, seed=69)
    assert report.disagreements == []
    assert report.hands == 300 and report.decisions > 3000


def test_the_referee_maps_the_package_deal_and_moves():
    ref = _referee()
    engine = ref.sg.SchnapsenGamePlayEngine()
    shuffled = engine.deck_generator.shuffle_deck(
        engine.deck_generator.get_initial_deck(), random.Random(3)
    )
    cards = [ref.our_card(c) for c in shuffled.get_cards()]
    deck = ref.our_deck(shuffled.get_cards())
    state = ref.deal_from_deck(deck, dealer=1, rules="schnapsen-vu")
    assert state.hand(0) == sum(1 << c for c in cards[0:10:2])  # the first leader's hand
    assert state.hand(1) == sum(1 << c for c in cards[1:10:2])
    assert state.trump_card == cards[19] and list(state.stock_cards) == cards[10:19]
    for action in state.legal_actions():
        assert ref.our_action(ref.their_move(action)) == action


def test_a_disagreement_is_reported_with_its_deal_and_moves(monkeypatch):
    """A referee that cannot fail is no referee: a wrong rule must be caught."""
    ref = _referee()
    monkeypatch.setattr(ref, "RULES", ref.make_rules("schnapsen-vu", marriage_lead="either"))
    report = ref.referee(200, seed=1, engines=("reference",), show=1)
    assert report.disagreements and report.hands < 200  # it stops at the first hand that differs
    assert "legal moves (reference)" in report.disagreements[0]
    assert "marry-Q" in report.disagreements[0] and "deck " in report.disagreements[0]
