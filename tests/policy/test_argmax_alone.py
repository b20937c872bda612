"""``PolicyNetwork.argmax_alone``, the move ``BatchedPolicy`` plays in lock-step: one matrix
product for the batch, each nearly tied row computed again alone, gives every row the move
its observation alone gets, on positions of real play of the shipped plain networks; the
batch's products stay well inside the margin that decides which rows are recomputed; and
with no margin the near ties of a planted network do turn (so the test can fail)."""

from __future__ import annotations

import numpy as np
import pytest
from _near_ties import near_ties_network
from _played import batched_positions

from sixtysix_env.policy import network as network_module
from sixtysix_env.policy import read_policy
from sixtysix_env.policy.network import BATCH_ROUNDING, PolicyNetwork
from sixtysix_env.policy.shipped import shipped_policies

pytest.importorskip("numba", reason="numba (the [fast] extra) is not installed")


def _alone(net: PolicyNetwork, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Each row's logits from its own one-row product, as one observation gets them."""
    return net.layer_logits(net.features(obs, legal if net.reads_mask else None)[:, None, :])[:, 0]


PLAIN = ["sixtysix-ppo-v5", "sixtysix-ppo-schnapsen-vu"]


@pytest.mark.parametrize("name", PLAIN)
def test_every_row_gets_the_move_it_gets_alone(name):
    net, meta = read_policy(shipped_policies()[name].path)[:2]
    obs, legal = batched_positions(4_000, lanes=128, seed=3, rules=meta["rule_preset"])
    alone = np.where(legal, _alone(net, obs, legal), -np.inf)
    assert (net.argmax_alone(obs, legal) == np.argmax(alone, axis=1)).all()
    # The batch's own product is far inside the margin (100x measured on 34,385 positions).
    batch = net.layer_logits(net.features(obs, legal if net.reads_mask else None))
    scale = np.maximum(1.0, np.abs(np.where(legal, alone, 0)).max(axis=1))
    off = np.abs(np.where(legal, batch - alone, 0)).max(axis=1) / scale
    assert off.max() < BATCH_ROUNDING / 10, off.max()


def test_near_ties_are_computed_alone_and_turn_without_the_margin(monkeypatch):
    net = near_ties_network()
    obs, legal = batched_positions(2_000, lanes=64, seed=3)
    want = np.argmax(np.where(legal, _alone(net, obs, legal), -np.inf), axis=1)
    assert (net.argmax_alone(obs, legal) == want).all()
    monkeypatch.setattr(network_module, "BATCH_ROUNDING", 0.0)
    assert (net.argmax_alone(obs, legal) != want).any()


def test_an_averaged_network_is_refused():
    net = read_policy(shipped_policies()["sixtysix-ppo-v2-sym"].path)[0]
    assert net.symmetry is not None
    with pytest.raises(ValueError, match="plain network"):
        net.argmax_alone(np.zeros((1, net.input_size), np.float32), np.ones((1, 34), bool))
