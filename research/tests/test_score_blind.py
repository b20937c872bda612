"""research/score_blind.py: a network with the match score hidden, against itself in matches."""

from __future__ import annotations

import random

from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.view import player_view


class _Recorder:
    name = "recorder"

    def __init__(self) -> None:
        self.scores = []

    def act(self, view, rng):
        self.scores.append(view.match_score)
        return view.legal_actions()[0]


def test_the_blind_copy_sees_0_0_and_nothing_else_changes():
    from research.score_blind import ScoreBlind

    inner = _Recorder()
    state = new_hand(random.Random(1), 0, match_score=(5, 6))
    view = player_view(state, state.current_player())
    assert view.match_score == (5, 6)
    assert ScoreBlind(inner).act(view, random.Random(0)) == view.legal_actions()[0]
    assert inner.scores == [(0, 0)]
    assert ScoreBlind(inner).name == "blind:recorder"


def test_a_few_matches_are_counted_from_the_blind_side():
    from research.score_blind import measure

    r = measure("heuristic", matches=3, seed=2)
    assert r["matches"] == 6 and 0 <= r["won"] <= 6
    lo, hi = r["ci95"]
    assert lo <= r["rate"] <= hi
