"""Beliefs over the hidden cards under the 20-card presets: the deal's geometry (hands of
five, the trump card at deck position 11, a stock of nine) comes from the rules, so every
sampled world replays to the same view and enumeration counts every world."""

from __future__ import annotations

import random

import pytest
from _beliefs_checks import check_enumeration

from sixtysix_env.agents import beliefs as B
from sixtysix_env.agents.heuristic import HeuristicAgent
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.view import player_view

HEURISTIC = HeuristicAgent()


def positions(seeds, rules):
    for seed in seeds:
        s = new_hand(seed, rules=rules)
        rng = random.Random(seed)
        while s.result is None:
            v = player_view(s, s.current_player())
            yield v
            legal = s.legal_actions()
            s = s.apply(HEURISTIC.act(v, rng) if rng.random() < 0.7 else rng.choice(legal))


@pytest.mark.parametrize("rules", ["schnapsen", "schnapsen-vu"])
def test_every_sampled_world_replays_to_the_same_view(rules):
    rng = random.Random(4)
    n = 0
    for v in positions(range(10), rules):
        h = B.history(v)
        for w in B.sample_worlds(v, h, rng, 3):
            assert len(w.deck) == 20
            state, _ = B.replay(v, h, w.deck)
            assert player_view(state, v.seat) == v
            assert state.hand(1 - v.seat) & ~v.opponent_known == w.hidden
            n += 1
    assert n > 300


@pytest.mark.slow  # over ten seconds: the full suite, not the fast lane
def test_enumeration_counts_and_replays_schnapsen_vu():
    assert check_enumeration(positions(range(40), "schnapsen-vu")) >= 10
