"""The reason a person is given for each refused action
agrees with the engine's legal mask, in every position random play reaches, in every preset."""

from __future__ import annotations

import random

import pytest
from _lanes import HALF_IN_THE_FAST_LANE, two_presets_in_the_fast_lane

from sixtysix_env.game.actions import NUM_ACTIONS, action_name
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.rules import PRESETS
from sixtysix_env.game.view import player_view
from sixtysix_env.play.session import explain_illegal


# The fast lane the first half of the hands; the full suite all of them.
@pytest.mark.parametrize("share", HALF_IN_THE_FAST_LANE)
@pytest.mark.parametrize("preset", two_presets_in_the_fast_lane(sorted(PRESETS)))
def test_explanations_agree_with_the_legal_mask(preset, share):
    rng = random.Random(f"explain/{preset}")
    positions = 0
    for _ in range(150 // share):
        s = new_hand(rng, rng.randrange(2), preset)
        while not s.is_terminal():
            seat = s.current_player()
            view = player_view(s, seat)
            mask = s.legal_mask()
            for a in range(NUM_ACTIONS):
                generic = f"{action_name(a)} is not a legal move now."
                why = explain_illegal(view, a)
                if mask >> a & 1:
                    # a legal action: the explainer must not find a reason to refuse it
                    assert why == generic, (preset, s, action_name(a), why)
                else:
                    # a refused action: the person is told a specific reason
                    assert why != generic, (preset, s, action_name(a))
            # the waiting seat is told it is not its turn
            other = player_view(s, 1 - seat)
            assert explain_illegal(other, mask.bit_length() - 1).startswith("It is not your turn")
            positions += 1
            legal = s.legal_actions()
            s = s.apply(legal[rng.randrange(len(legal))])
    assert positions > 1000 // share
