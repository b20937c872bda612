"""The shipped checkpoint: loads with numpy alone and plays only legal moves."""

from __future__ import annotations

import glob
import os
import random

import pytest

from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.view import player_view
from sixtysix_env.policy import load_policy
from sixtysix_env.policy.observation import OBS_VERSION

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECKPOINTS = sorted(glob.glob(os.path.join(ROOT, "checkpoints", "*.npz")))


def test_a_checkpoint_is_shipped():
    assert CHECKPOINTS, "checkpoints/ holds no policy file"
    for path in CHECKPOINTS:
        assert os.path.getsize(path) < 5 * 1024 * 1024, path
        card = os.path.splitext(path)[0] + ".md"
        assert os.path.exists(card) or os.path.exists(
            os.path.join(ROOT, "checkpoints", "README.md")
        )


@pytest.mark.parametrize("path", CHECKPOINTS, ids=os.path.basename)
def test_checkpoint_metadata(path):
    agent = load_policy(path)
    meta = agent.metadata
    assert meta["obs_version"] == OBS_VERSION
    assert meta["training"]["steps"] > 0
    # A trained policy records its run's config; an ensemble (averaged over members or
    # over the suit renamings) records each member's.
    runs = [m["config"] for m in meta["training"].get("members", [])] or [
        meta["training"]["config"]
    ]
    assert all(run["total_timesteps"] > 0 for run in runs)
    assert "heuristic" in meta["evaluation"]["at_export"]["against"]


@pytest.mark.slow  # over a second: the full run, not the fast lane
@pytest.mark.parametrize("path", CHECKPOINTS, ids=os.path.basename)
def test_checkpoint_plays_legal_moves_in_every_position(path):
    """A thousand random hands (250 for a network averaged over the 24 renamings, 24 times
    the work per decision); at every position both the argmax and the sampling agent answer."""
    greedy = load_policy(path)
    sampler = load_policy(path, deterministic=False)
    rng = random.Random(66)
    agent_rng = random.Random(1)
    positions = 0
    hands = 250 if greedy.network.symmetry else 1000
    for i in range(hands):
        state = new_hand(rng, i % 2)
        while not state.is_terminal():
            view = player_view(state, state.current_player())
            legal = view.legal_actions()
            for agent in (greedy, sampler):
                a = agent.act(view, agent_rng)
                assert a in legal, (agent, a, legal)
            positions += 1
            # Half the hands follow the policy, half random play, for varied positions.
            state = state.apply(a if i % 2 else legal[rng.randrange(len(legal))])
    assert positions > 10 * hands
