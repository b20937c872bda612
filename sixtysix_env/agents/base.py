"""The one agent interface used everywhere.

An agent gets a :class:`~sixtysix_env.game.view.PlayerView` (never the full
state) and a seeded :class:`random.Random`, and returns a legal action id.
Environments, the single-agent wrapper's opponent, evaluation and play
against a person all call ``act`` the same way.
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from ..game.view import PlayerView


@runtime_checkable
class Agent(Protocol):
    #: Short name used in tables and error messages.
    name: str

    def act(self, view: PlayerView, rng: random.Random) -> int:
        """A legal action id for ``view.seat`` (``view.to_move == view.seat``)."""
        ...


class RandomAgent:
    """Uniform over the legal actions."""

    name = "random"

    def act(self, view: PlayerView, rng: random.Random) -> int:
        legal = view.legal_actions()
        return legal[rng.randrange(len(legal))]
