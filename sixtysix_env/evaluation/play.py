"""Playing the games of an evaluation: paired deals and paired matches.

A pair of agents plays each deal (or match seed) twice with the seats
swapped; the deck, the dealer and every agent's random generator depend only
on the evaluation seed, the pair, the deal and the seat, so the same seed
gives the same games in any process.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..agents.base import Agent
from ..game.actions import NUM_ACTIONS, action_name
from ..game.cards import bits_of
from ..game.engine import State, deal_from_deck, random_deck
from ..game.match import Match
from ..game.rules import RuleConfig
from ..game.view import player_view
from ..util.checks import is_int
from ..util.errors import SixtySixError

#: The units an evaluation plays, named as the environments' modes: paired
#: deals (two hands each) or paired match seeds (two matches each).
HAND = "hand"
MATCH = "match"
MODES = (HAND, MATCH)
_MODE_SPELLINGS = {"hand": HAND, "hands": HAND, "match": MATCH, "matches": MATCH}


def normalize_mode(mode: object) -> str:
    """``"hand"`` or ``"match"`` from either spelling (``"hands"``/``"matches"`` too)."""
    if isinstance(mode, str) and mode in _MODE_SPELLINGS:
        return _MODE_SPELLINGS[mode]
    raise ValueError(
        f"unknown evaluation mode {mode!r}; allowed: 'hand' (or 'hands'), 'match' (or 'matches')"
    )


class IllegalAgentActionError(SixtySixError, ValueError):
    """An agent answered with an action that is not legal where it was asked."""

    def __init__(self, agent: str, action: Any, legal: Sequence[int], seat: int | None = None):
        self.agent = agent
        self.action = action
        self.legal_actions = tuple(legal)
        self.seat = seat
        try:
            what = f"{action_name(action)} (id {action})"
        except (ValueError, TypeError):
            what = repr(action)
        where = f" at seat {seat}" if seat is not None else ""
        super().__init__(
            f"agent {agent!r}{where} returned the illegal action {what}; legal actions: "
            + ", ".join(f"{action_name(a)} ({a})" for a in self.legal_actions)
        )

    def __reduce__(self):  # survive the trip back from a worker process
        return (type(self), (self.agent, self.action, self.legal_actions, self.seat))


def deal_deck(seed: int, index: int, rules: RuleConfig | None = None) -> list[int]:
    """The deck of deal ``index`` of an evaluation seeded ``seed`` (shared by all pairs): the
    rules' deck (the 24-card presets' decks are the same with or without ``rules``)."""
    return random_deck(random.Random(f"sixtysix-eval-deal:{seed}:{index}"), rules)


def _agent_rng(seed: int, pair: int, index: int, game: int, seat: int) -> random.Random:
    return random.Random(f"sixtysix-eval-agent:{seed}:{pair}:{index}:{game}:{seat}")


def _act(
    agent: Agent, name: str, state: State, rng: random.Random, times: list[float] | None
) -> int:
    seat = state.current_player()
    view = player_view(state, seat)
    t0 = time.perf_counter()
    action = agent.act(view, rng)
    if times is not None:
        times.append((time.perf_counter() - t0) * 1000.0)
    if type(action) is not int:
        if not is_int(action):  # numpy integers yes; bools, floats no (sixtysix_env.util.checks)
            raise IllegalAgentActionError(name, action, state.legal_actions(), seat)
        action = int(action)
    if not (0 <= action < NUM_ACTIONS and view.legal_mask >> action & 1):
        raise IllegalAgentActionError(name, action, state.legal_actions(), seat)
    return action


def play_hand(
    agents: Sequence[Agent],
    state: State,
    rngs: Sequence[random.Random],
    names: Sequence[str] | None = None,
    times: Sequence[list[float]] | None = None,
) -> State:
    """Play ``state`` to its end with ``agents[seat]``; returns the final state.

    ``times[seat]``, if given, collects each decision's milliseconds.
    """
    names = names or [getattr(a, "name", type(a).__name__) for a in agents]
    while state.result is None:
        p = state.current_player()
        state = state.apply(_act(agents[p], names[p], state, rngs[p], times[p] if times else None))
    return state


@dataclass(frozen=True)
class DealRecord:
    """One deal played twice; ``gp`` holds A's game points in each game."""

    pair: int
    index: int
    gp: tuple[int, int]  # game 0: A at seat 0; game 1: A at seat 1


@dataclass(frozen=True)
class MatchRecord:
    """One match seed played twice; A's match wins and A's game points per hand."""

    pair: int
    index: int
    won: tuple[bool, bool]
    hand_gp: tuple[tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class _Seating:
    """Who sits where in one game of a pair: A at seat ``game``."""

    agents: tuple[Agent, Agent]
    names: tuple[str, str]
    times: tuple[list[float], list[float]] | None
    rngs: tuple[random.Random, random.Random]


def _seating(
    game: int,
    a: Agent,
    b: Agent,
    names: tuple[str, str],
    times: tuple[list[float], list[float]] | None,
    seed: int,
    pair: int,
    index: int,
) -> _Seating:
    swap = game == 1
    return _Seating(
        agents=(b, a) if swap else (a, b),
        names=(names[1], names[0]) if swap else names,
        times=None if times is None else ((times[1], times[0]) if swap else times),
        rngs=(_agent_rng(seed, pair, index, game, 0), _agent_rng(seed, pair, index, game, 1)),
    )


def play_paired_deal(
    a: Agent,
    b: Agent,
    seed: int,
    index: int,
    rules: RuleConfig,
    pair: int = 0,
    names: tuple[str, str] = ("A", "B"),
    times: tuple[list[float], list[float]] | None = None,
    keep_states: list | None = None,
) -> DealRecord:
    """Deal ``index`` played by A at seat 0 and then, same deck, by A at seat 1."""
    deck = deal_deck(seed, index, rules)
    dealer = index % 2
    gp = []
    for game in (0, 1):
        start = deal_from_deck(deck, dealer=dealer, rules=rules)
        s = _seating(game, a, b, names, times, seed, pair, index)
        end = play_hand(s.agents, start, s.rngs, s.names, s.times)
        if keep_states is not None:
            keep_states.append((start, end))
        gp.append(end.returns()[game])  # A sits at seat ``game``
    return DealRecord(pair, index, (gp[0], gp[1]))


def play_paired_match(
    a: Agent,
    b: Agent,
    seed: int,
    index: int,
    rules: RuleConfig,
    pair: int = 0,
    names: tuple[str, str] = ("A", "B"),
    times: tuple[list[float], list[float]] | None = None,
) -> MatchRecord:
    """Match seed ``index`` played by A at seat 0 and then by A at seat 1."""
    won, hand_gp = [], []
    for game in (0, 1):
        m = Match(rules, seed=random.Random(f"sixtysix-eval-match:{seed}:{index}"),
                  first_dealer=index % 2)
        s = _seating(game, a, b, names, times, seed, pair, index)
        while not m.is_over():
            p = m.current_player()
            m.apply(_act(s.agents[p], s.names[p], m.hand, s.rngs[p],
                         s.times[p] if s.times else None))
        won.append(m.winner == game)
        hand_gp.append(tuple(g[game] - g[1 - game] for g in m.scored))
    return MatchRecord(pair, index, (won[0], won[1]), (hand_gp[0], hand_gp[1]))


def play_paired_deals_batched(
    a: Any,
    b: Any,
    seed: int,
    start: int,
    stop: int,
    rules: RuleConfig,
    pair: int = 0,
    names: tuple[str, str] = ("A", "B"),
    times: tuple[list[float], list[float]] | None = None,
) -> list[DealRecord]:
    """Deals ``start..stop-1`` as :func:`play_paired_deal` plays them, all in lock-step on the
    vector environment's driver (:class:`~sixtysix_env.env.vector.LockStepGames`): the same
    decks, dealers, agents' generators and so the same games.

    ``a`` and ``b`` are batched agents (:func:`sixtysix_env.agents.batch.batched`) that
    need no reference states. Lane ``2 * k + game`` holds game ``game`` of deal ``start + k``;
    A sits at seat ``game``. ``times[who]`` (0 for A, 1 for B) gets each decision's share of
    its batch's time.
    """
    from ..env.vector import LockStepGames

    indices = range(start, stop)
    n = 2 * len(indices)
    lanes = np.arange(n, dtype=np.int64)
    game = lanes % 2
    decks = [deal_deck(seed, index, rules) for index in indices for _ in (0, 1)]
    games = LockStepGames(n, rules)
    games.deal(lanes, np.array(decks), np.array([index % 2 for index in indices for _ in (0, 1)]))
    # Each lane's generator of A (at seat ``game``) and of B (at the other seat).
    rngs = tuple(
        [_agent_rng(seed, pair, index, g, g if who == 0 else 1 - g)
         for index in indices for g in (0, 1)]
        for who in (0, 1)
    )

    def timed(who: int, seconds: float, count: int) -> None:
        times[who].extend([seconds * 1000.0 / count] * count)

    def illegal(who: int, action: int, legal: int, seat: int) -> IllegalAgentActionError:
        return IllegalAgentActionError(names[who], action, bits_of(legal), seat)

    # Seat s of lane i: A (agent 0) where s is the lane's game, else B (agent 1).
    players = np.stack([game != 0, game != 1], axis=1).astype(np.int64)
    games.play_out((a, b), players, rngs, timed if times is not None else None, illegal)
    gp = games.hands.returns(lanes, game)  # A's game points in each game
    return [DealRecord(pair, index, (int(gp[2 * k]), int(gp[2 * k + 1])))
            for k, index in enumerate(indices)]


#: The function that plays one paired item of each mode.
PLAY = {HAND: play_paired_deal, MATCH: play_paired_match}
