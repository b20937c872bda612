"""A network of near ties, for the tests that a move hanging on the last bit of a float sum is
played as the observation alone gets it (lock-step evaluation, ``argmax_alone``)."""

from __future__ import annotations

import numpy as np

from sixtysix_env.policy import read_policy
from sixtysix_env.policy.network import PolicyNetwork
from sixtysix_env.policy.shipped import shipped_policies


def near_ties_network() -> PolicyNetwork:
    """``sixtysix-ppo`` with its 24 card logits made one column each, apart by 1e-7 of
    themselves, and 50 above every other move."""
    base = read_policy(shipped_policies()["sixtysix-ppo"].path)[0]
    weights = [w.copy() for w in base.weights]
    biases = [b.copy() for b in base.biases]
    noise = np.random.default_rng(1).standard_normal(24)
    weights[-1][:, :24] = weights[-1][:, :1] * (1 + 1e-7 * noise)
    biases[-1][:24] = biases[-1][0] + 50
    return PolicyNetwork(weights, biases, base.activation)
