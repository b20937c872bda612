"""research/endgame_mistakes.py: the exhausted-stock mistakes it counts."""

from __future__ import annotations

import pytest


def test_counts_are_consistent_and_seeded():
    from research.endgame_mistakes import measure

    a = measure("random", "heuristic", hands=12, seed=3, rules="altmisalti")
    b = measure("random", "heuristic", hands=12, seed=3, rules="altmisalti")
    a.pop("solver_ms"), b.pop("solver_ms")  # a time
    assert a == b
    assert a["decisions"] > 0
    # a random player picks a losing move somewhere in twelve hands of endgames
    assert 0 < a["mistakes"] <= a["decisions"]
    assert a["gp_lost_per_hand"] > 0


@pytest.mark.slow
def test_the_expert_makes_none():
    """The expert solves exhausted-stock positions exactly, so it never errs there."""
    from research.endgame_mistakes import measure

    r = measure("expert", "heuristic", hands=8, seed=3, rules="altmisalti")
    assert r["decisions"] > 0
    assert r["mistakes"] == 0 and r["gp_lost_per_hand"] == 0


def test_main_prints_one_line_per_agent(capsys):
    from research.endgame_mistakes import main

    main(["random", "heuristic", "--hands", "4", "--seed", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["random", "heuristic"]
    with pytest.raises(SystemExit):
        main(["random", "--hands", "0"])
