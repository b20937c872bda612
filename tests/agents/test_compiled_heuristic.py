"""The compiled ``heuristic`` makes HeuristicAgent's move at every decision (many positions:
its own games and random ones), in every preset and with another close margin."""

from __future__ import annotations

import pytest

pytest.importorskip("numba", reason="numba (the [fast] extra) is not installed")

from sixtysix_env import make_rules  # noqa: E402
from sixtysix_env.agents.check import compare_heuristic  # noqa: E402
from sixtysix_env.batched.check import Mismatch  # noqa: E402
from sixtysix_env.game.rules import PRESETS  # noqa: E402


@pytest.mark.parametrize("rules", list(PRESETS) + [make_rules("altmisalti", going_out=50)],
                         ids=str)
def test_same_moves_as_heuristic_agent(rules):
    assert compare_heuristic(200, rules, seed=1, lanes=64) > 200 * 10


def test_other_close_margin():
    compare_heuristic(200, "pagat66", seed=2, per_trick=0)


@pytest.mark.slow
@pytest.mark.parametrize("rules", list(PRESETS))
def test_same_moves_over_many_positions(rules):
    # At least 15 decisions a hand compared with 12 tricks; with 10 (20-card decks), 12.
    per_hand = 15 if make_rules(rules).deck == 24 else 12
    assert compare_heuristic(10_000, rules, seed=3) > 10_000 * per_hand


def test_the_comparison_can_fail(monkeypatch):
    # A reference agent with another close margin is another player: some move must differ.
    import sixtysix_env.agents.check as check
    from sixtysix_env.agents.heuristic import HeuristicAgent

    class Other(HeuristicAgent):
        def __init__(self, likely_points_per_trick=4):
            super().__init__(likely_points_per_trick=20)

    monkeypatch.setattr(check, "HeuristicAgent", Other)
    with pytest.raises(Mismatch, match="the heuristic's move"):
        compare_heuristic(300, "altmisalti", seed=4)
