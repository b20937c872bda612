"""The engine contract (sixtysix_env/batched/lane.py) and the battery that guards it."""

from __future__ import annotations

import numba
import pytest
import test_rules_scenarios as scenarios
from _engines import EnginesDisagree, twinned

from sixtysix_env.batched import kernels as kn
from sixtysix_env.batched.lane import ENGINES, BatchedLane, deal_hand
from sixtysix_env.game.engine import random_deck
from sixtysix_env.util.errors import DeckError, IllegalActionError


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_both_engines_meet_the_contract_on_the_same_deal(engine):
    h = deal_hand(engine, random_deck(3), dealer=0, rules="santase")
    assert h.current_player() == 1 and h.result is None and h.returns() == (0, 0)
    obs, mask = h.observe(1)
    assert obs.shape == (349,) and mask.sum() == h.legal_mask().bit_count()
    first = min(a for a in range(34) if h.legal_mask() >> a & 1)
    after = h.apply(first)
    assert h.current_player() == 1 and after.current_player() == 0  # apply left h as it was
    with pytest.raises(IllegalActionError, match="legal actions"):
        h.apply(33 if not h.legal_mask() >> 33 & 1 else 32)


def test_deal_hand_names_the_engines():
    with pytest.raises(ValueError, match="engines: reference, batched"):
        deal_hand("numpy", random_deck(0))


def test_a_batched_lane_refuses_a_bad_deck_and_dealer():
    with pytest.raises(DeckError, match="duplicate card"):
        BatchedLane.deal([0] * 24)
    with pytest.raises(ValueError, match="dealer"):
        BatchedLane.deal(random_deck(0), dealer=2)


@pytest.mark.slow  # compiles two kernels afresh (a few seconds)
def test_a_planted_difference_in_the_batched_engine_fails_the_battery(monkeypatch):
    """The kernels recompiled with a plain marriage worth 30: the battery's marriage
    scenario, run on both engines, names the difference."""
    monkeypatch.setattr(kn, "MARRIAGE_POINTS", 30)
    monkeypatch.setattr(kn, "_declare", numba.njit(kn._declare.py_func))
    monkeypatch.setattr(kn, "apply_one", numba.njit(kn.apply_one.py_func))
    monkeypatch.setattr(kn, "apply_actions", numba.njit(kn.apply_actions.py_func))
    monkeypatch.setattr(scenarios, "deal_from_deck", twinned(scenarios.deal_from_deck))
    with pytest.raises(EnginesDisagree, match="observation"):
        scenarios.test_rule8_marriage_after_a_trick("altmisalti", "marry-QC", 20, "KC")
    # A trump marriage (40, unchanged) still agrees: the check is specific.
    scenarios.test_rule8_marriage_after_a_trick("altmisalti", "marry-QH", 40, "KH")
