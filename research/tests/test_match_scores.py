"""research/match_scores.py: two agents' choices on the same positions at chosen match scores."""

from __future__ import annotations

import pytest


def test_an_agent_against_itself_agrees_everywhere_and_breaks_even_at_level_scores():
    from research.match_scores import measure

    rows = measure("sixtysix-ppo", "sixtysix-ppo", deals=6, seed=3, scores=("0-0", "6-6", "5-6"))
    assert [r["score"] for r in rows] == ["0-0", "6-6", "5-6"]
    for r in rows:
        assert r["agree"] == 1.0 and r["closes"] == r["opponent_would_close"]
        assert r["hands"] == 12
    for r in rows[:2]:  # level: each deal played from both seats by the same player
        assert r["gp"] == (0.0, 0.0, 0.0) and r["equity_after"] == pytest.approx(0.5)
    assert rows[2]["equity_before"] < 0.5  # 5-6 behind in a match to 7


def test_different_players_disagree_somewhere():
    from research.match_scores import measure

    (r,) = measure("heuristic", "sixtysix-ppo", deals=4, seed=1, scores=("6-6",))
    assert 0 < r["agree"] < 1


def test_a_bad_score_names_what_is_allowed():
    from research.match_scores import measure

    with pytest.raises(ValueError, match="MINE-THEIRS"):
        measure("random", "random", deals=2, scores=("6:6",))
    with pytest.raises(ValueError, match="0 to 6"):
        measure("random", "random", deals=2, scores=("7-0",))
