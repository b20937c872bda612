"""Positions for the agents' tests, found in hands the heuristic plays: hands dealt one
after another from one generator, until enough are found."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from sixtysix_env import new_hand, player_view
from sixtysix_env.agents.heuristic import HeuristicAgent, obvious_action


def found_in_hands(count: int, seed: int, rules: str,
                   find: Callable[[random.Random, object], Iterator]) -> list:
    """What ``find(rng, state)`` yields from each new hand ``state`` dealt from the generator
    of ``seed`` (``find`` draws on it too), until ``count`` or more are found."""
    rng = random.Random(seed)
    out: list = []
    while len(out) < count:
        out.extend(find(rng, new_hand(rng, dealer=rng.randrange(2), rules=rules)))
    return out


def open_views(count: int, seed: int, rules: str = "altmisalti", choices: int = 1) -> list:
    """Views of the seat to move in the open phase with a real choice (heuristic play), of
    ``choices`` legal actions or more."""
    h = HeuristicAgent()

    def find(rng, s):
        while not s.is_terminal() and s.closed_by is None and s.stock_left > 0:
            view = player_view(s, s.current_player())
            searched = obvious_action(view.legal_mask) is None
            if searched and len(view.legal_actions()) >= choices and rng.random() < 0.3:
                yield view
            s = s.apply(h.act(view, rng))

    return found_in_hands(count, seed, rules, find)


def solved_positions(count: int, seed: int, preset: str = "altmisalti") -> list:
    """Positions with the stock exhausted (perfect information), seat to move has a choice."""
    h = HeuristicAgent()

    def find(rng, s):
        while not s.is_terminal():
            p = s.current_player()
            if s.is_exhausted() and len(s.legal_actions()) > 1:
                yield s
                if rng.random() < 0.5:
                    break
            s = s.apply(h.act(player_view(s, p), rng) if rng.random() < 0.7
                        else rng.choice(s.legal_actions()))

    return found_in_hands(count, seed, preset, find)
