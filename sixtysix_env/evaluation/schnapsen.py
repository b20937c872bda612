"""Paired deals played in the ``schnapsen`` package's engine (``sixtysix eval --referee schnapsen``).

The deals are this evaluation's own (:func:`~.play.deal_deck`: the same seeded decks and
dealers as with this project's engine) under ``schnapsen-vu``, each given to the package's
``SchnapsenGamePlayEngine`` as its ``GameState`` (the first leader is our non-dealer; its
talon our stock in drawing order, the face-up trump card at its bottom), and played there
twice, seats swapped. The package's own bots (``schnapsen:NAME``, ``schnapsen:module:Class``)
play there as themselves; every other agent through
:class:`~sixtysix_env.agents.schnapsen_bot.SixtySixBot`. Each game's bots draw from the
generators the evaluation gives that seat (a ``random.Random`` the package's bot keeps is
reseeded from it before each game, so the figures do not depend on the order the games
are played in). A bot's move the package's rules do not allow stops the run with an
error naming the bot, the move and the legal moves, as an illegal action does in
``sixtysix eval``.
"""

from __future__ import annotations

import random
import time
from typing import Any

from ..agents.base import Agent
from ..agents.schnapsen import (
    RULES_NAME,
    SchnapsenAgent,
    SchnapsenBridgeError,
    check_rules,
    move_text,
    our_action,
    require_schnapsen,
    reseed,
    sg,
    their_card,
)
from ..agents.schnapsen_bot import SixtySixBot
from ..game.cards import bits_of
from ..game.engine import deal_from_deck
from ..game.rules import RuleConfig
from .play import DealRecord, _seating, deal_deck

#: The engines ``sixtysix eval --referee`` plays in: this project's, the package's.
REFEREES = ("sixtysix", "schnapsen")


def check_referee(referee: str, rules: RuleConfig, mode: str) -> None:
    """A clear error for a referee this run cannot use (unknown, the package missing,
    rules other than ``schnapsen-vu``, matches)."""
    if referee not in REFEREES:
        raise ValueError(f"unknown referee {referee!r}; allowed: {', '.join(REFEREES)}")
    if referee == "schnapsen":
        require_schnapsen("--referee schnapsen")
        check_rules(rules, "--referee schnapsen")
        if mode != "hand":
            raise ValueError(
                "--referee schnapsen plays paired deals (the package's engine plays single "
                "games, not matches): give --deals or --hands"
            )


def _action(move) -> int:
    """Our action id of a move (-1 for anything else; the package's Marriage.__eq__ cannot
    tell marriages apart)."""
    try:
        return our_action(move)
    except (AttributeError, KeyError, TypeError):
        return -1


class _Seat:
    """A seat's bot in the package's engine, timed and checked."""

    def __init__(self, bot: Any, name: str, times: list[float] | None) -> None:
        self.bot, self.name, self.times = bot, name, times
        self._Bot__name = name  # the package's Bot.__str__ reads it

    def __str__(self) -> str:
        return self.name

    def get_move(self, perspective, leader_move):
        t0 = time.perf_counter()
        move = self.bot.get_move(perspective, leader_move)
        if self.times is not None:
            self.times.append((time.perf_counter() - t0) * 1000.0)
        legal = perspective.valid_moves()
        if _action(move) not in {_action(m) for m in legal}:
            raise SchnapsenBridgeError(
                f"agent {self.name!r} returned the illegal move {move_text(move)}; legal moves: "
                + ", ".join(move_text(m) for m in legal)
            )
        return move

    def notify_trump_exchange(self, move) -> None:
        self.bot.notify_trump_exchange(move)

    def notify_game_end(self, won: bool, perspective) -> None:
        self.bot.notify_game_end(won, perspective)


def _bot(agent: Agent, rng: random.Random, rules: RuleConfig):
    """The package's bot for ``agent`` in one game, drawing from ``rng``."""
    if isinstance(agent, SchnapsenAgent):
        reseed(agent.bot, rng)  # RandBot's rng, RdeepBot's __rand, ...
        return agent.bot
    bot = SixtySixBot(agent, rules=rules.name)
    bot.rng = rng
    return bot


def _game_state(deck: list[int], dealer: int, rules: RuleConfig, bots: tuple[Any, Any]):
    """The package's first ``GameState`` of our deal; ``bots[seat]`` at our seat."""
    state = deal_from_deck(deck, dealer=dealer, rules=rules)
    lead = 1 - dealer

    def hand(seat: int):
        return sg.Hand([their_card(c) for c in bits_of(state.hand(seat))], max_size=5)

    talon = sg.Talon([their_card(c) for c in (*state.stock_cards, state.trump_card)])
    return sg.GameState(
        leader=sg.BotState(implementation=bots[lead], hand=hand(lead)),
        follower=sg.BotState(implementation=bots[dealer], hand=hand(dealer)),
        talon=talon,
        previous=None,
    )


def play_paired_deal_schnapsen(
    a: Agent,
    b: Agent,
    seed: int,
    index: int,
    rules: RuleConfig,
    pair: int = 0,
    names: tuple[str, str] = ("A", "B"),
    times: tuple[list[float], list[float]] | None = None,
) -> DealRecord:
    """Deal ``index`` played in the package's engine by A at seat 0, then by A at seat 1
    (as :func:`~.play.play_paired_deal` plays it in ours)."""
    if rules.name != RULES_NAME:
        check_rules(rules, "--referee schnapsen")
    engine = sg.SchnapsenGamePlayEngine()
    deck = deal_deck(seed, index, rules)
    dealer = index % 2
    gp = []
    for game in (0, 1):
        s = _seating(game, a, b, names, times, seed, pair, index)  # as play_paired_deal seats them
        seat_times = s.times or (None, None)
        bots = tuple(
            _Seat(_bot(s.agents[i], s.rngs[i], rules), s.names[i], seat_times[i]) for i in (0, 1)
        )
        winner, points, _ = engine.play_game_from_state(
            _game_state(deck, dealer, rules, bots), leader_move=None)
        gp.append(points if winner is bots[game] else -points)
    return DealRecord(pair, index, (gp[0], gp[1]))


__all__ = ["REFEREES", "check_referee", "play_paired_deal_schnapsen"]
