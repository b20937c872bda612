"""A check the beliefs' tests share (tests/agents/test_beliefs.py for the 24-card presets,
test_beliefs_schnapsen.py for the 20-card ones)."""

from __future__ import annotations

from collections.abc import Iterable

from sixtysix_env.agents import beliefs as B


def check_enumeration(views: Iterable, most_worlds: int = 600) -> int:
    """For each view after an opponent's move with at most ``most_worlds`` worlds: enumeration
    finds as many worlds as ``count_worlds`` counts, and every one replays. Returns how many
    views were checked."""
    checked = 0
    for v in views:
        h = B.history(v)
        n = B.count_worlds(v, h)
        if not h.opponent_moves or n > most_worlds:
            continue
        found = B.enumerate_worlds(v, h)
        assert len(found) == n
        assert B.replay_failures(v, h, found) == 0
        checked += 1
    return checked
