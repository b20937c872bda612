"""Hands played in the experiments: the studied seat's decisions, the opponent's moves
played in between, and the interval of a per-deal figure."""

from __future__ import annotations

import math
import random
from typing import Any

from sixtysix_env.game.engine import State
from sixtysix_env.game.view import player_view


def opponent_moves(state: State, seat: int, opponent: Any, rng: random.Random) -> State:
    """``state`` once ``opponent`` (drawing on ``rng``) has played its moves, up to
    ``seat``'s turn or the end of the hand."""
    while state.result is None:
        p = state.current_player()
        if p == seat:
            break
        state = state.apply(opponent.act(player_view(state, p), rng))
    return state


def mean_interval(xs: list[float]) -> tuple[float, float, float]:
    """Mean and a normal 95% interval of per-deal figures."""
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    h = 1.96 * math.sqrt(var / n)
    return m, m - h, m + h
