"""A protocol small enough for tests, registered for the test that asks for it (``tiny``)."""

from __future__ import annotations

import pytest

from sixtysix_env.benchmark import PROTOCOLS, Protocol

#: Three rungs, a few deals (the "search" rung is a network here, to exercise the smaller
#: counts without a slow search).
TINY = Protocol(
    name="test-tiny", rules="altmisalti", ladder=("random", "heuristic", "sixtysix-ppo"),
    search=frozenset({"sixtysix-ppo"}), deals=6, matches=2, search_deals=4, search_matches=1,
    hand_seed=5, match_seed=6,
)


@pytest.fixture
def tiny(monkeypatch) -> Protocol:
    monkeypatch.setitem(PROTOCOLS, TINY.name, TINY)
    return TINY
