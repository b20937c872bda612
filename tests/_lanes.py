"""How a test shares its cases between the fast lane and the full suite (``slow`` marks the
cases the fast lane leaves out; the full suite runs them all)."""

from __future__ import annotations

import pytest

from sixtysix_env.game.rules import PRESETS

#: The presets the fast lane plays where a test runs over every one: a 24-card and a 20-card.
FAST_PRESETS = ("altmisalti", "schnapsen")

#: ``share``: the fast lane takes the first half of a test's seeded cases (``n // share``),
#: the full suite all of them.
HALF_IN_THE_FAST_LANE = [pytest.param(2, id="half"),
                         pytest.param(1, id="all", marks=pytest.mark.slow)]


def two_presets_in_the_fast_lane(names) -> list:
    """Rule set names, each preset but :data:`FAST_PRESETS` marked slow (a rule set that is
    no preset, such as a test's own variant, stays in the fast lane)."""
    return [pytest.param(n, marks=pytest.mark.slow)
            if n in PRESETS and n not in FAST_PRESETS else n for n in names]
