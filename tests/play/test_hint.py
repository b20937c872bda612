"""The hint a person may ask for: the cards the computer likely holds, from their own view."""

from __future__ import annotations

import io
import random

import pytest

from sixtysix_env.agents import beliefs
from sixtysix_env.cli import main
from sixtysix_env.game.view import hidden_places, player_view
from sixtysix_env.play.session import HUMAN, GameSession, opponent_hint


def _played_session(seed: int, moves: int) -> GameSession:
    s = GameSession("heuristic", seed=seed, min_think_seconds=0)
    s.start()
    rng = random.Random(seed)
    for _ in range(moves):
        if s.is_hand_over():
            break
        s.act(rng.choice(s.moves()).action)
    return s


def test_the_hint_lists_every_unseen_card_with_its_probability():
    s = _played_session(4, 3)
    view = s.view()
    hint = s.hint()
    candidates, need = hidden_places(view)
    assert sorted(c for c, _ in hint) == sorted(candidates)
    assert sum(p for _, p in hint) == pytest.approx(need)
    assert [p for _, p in hint] == sorted((p for _, p in hint), reverse=True)


def test_another_deal_with_the_same_view_gives_the_same_hint():
    s = _played_session(9, 4)
    view = s.view()
    h = beliefs.history(view)
    assert h.opponent_moves
    for w in beliefs.sample_worlds(view, h, random.Random(1), 3):
        state, _ = beliefs.replay(view, h, w.deck)
        assert opponent_hint(player_view(state, HUMAN)) == s.hint()


def test_no_hint_once_every_place_is_known_or_the_hand_is_over():
    s = _played_session(2, 40)
    while not s.is_hand_over():
        s.act(s.moves()[0].action)
    assert s.hint() == []


def test_the_terminal_shows_the_hint_only_when_asked(monkeypatch):
    def play(*flags: str, typed: str = "1\n1\nq\n") -> str:
        out = io.StringIO()
        monkeypatch.setattr("sys.stdin", io.StringIO(typed))
        monkeypatch.setattr("sys.stdout", out)
        main(["play", "--seed", "3", "--opponent", "heuristic", "--min-think", "0", *flags])
        return out.getvalue()

    assert "Hint (read from the computer's moves)" not in play()
    assert play("--hints").count("Hint (read from the computer's moves)") >= 2
    assert play(typed="hint\nq\n").count("Hint (read from the computer's moves)") == 1
