"""A small policy network for the policy-file tests (test_policy_file_reader.py,
test_written_files.py): one hidden layer of 8, fixed random weights."""

from __future__ import annotations

import itertools

import numpy as np

from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.policy import PolicyNetwork
from sixtysix_env.policy.observation import OBS_SIZE


def small_network() -> PolicyNetwork:
    rng = np.random.default_rng(0)
    sizes = [OBS_SIZE, 8, NUM_ACTIONS]
    ws = [rng.normal(0, 0.5, (a, b)).astype(np.float32) for a, b in itertools.pairwise(sizes)]
    bs = [rng.normal(0, 0.1, (b,)).astype(np.float32) for b in sizes[1:]]
    return PolicyNetwork(ws, bs, "relu")
