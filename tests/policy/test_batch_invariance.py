"""A row's logits do not depend on the batch it is computed in: ``BatchedPolicy``'s exact
logits (what a sampling or suit-averaged agent plays in lock-step, and what
``argmax_alone`` recomputes a near tie with) give every row, in any batch, at any place,
bit for bit the logits the agent's single-observation path gives it, for a plain network,
one that reads the action mask and one averaged over the suits; and the BLAS's thread count
does not change them either (an evaluation worker runs one thread, ``sixtysix play`` as
many as the BLAS likes).

The batch sizes include 7, 8, 9, 12 and 13: on the machines this was measured on, a
matrix product over many rows computes its rows in tiles of 8 or 12 whose float sums run
in different orders, so that a row's logits there depend on its place in the batch
(docs/performance.md, "What it does not do").
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sixtysix_env.agents.batch import BatchedPolicy
from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.policy import read_policy
from sixtysix_env.policy.agent import PolicyAgent
from sixtysix_env.policy.network import PolicyNetwork
from sixtysix_env.policy.observation import OBS_SIZE
from sixtysix_env.policy.shipped import shipped_policies

POOL = 40  # distinct rows; every batch is drawn from them
SIZES = (1, 2, 7, 8, 9, 12, 13, 1000)


def _shipped(name: str) -> PolicyNetwork:
    return read_policy(shipped_policies()[name].path)[0]


def _mask_reader() -> PolicyNetwork:
    rng = np.random.default_rng(7)
    sizes = (OBS_SIZE + NUM_ACTIONS, 256, 256, NUM_ACTIONS)
    weights = [rng.normal(0, 1 / np.sqrt(a), (a, b)) for a, b in itertools.pairwise(sizes)]
    biases = [rng.normal(0, 0.1, b) for b in sizes[1:]]
    return PolicyNetwork(weights, biases, "tanh", inputs=("observation", "action_mask"))


NETWORKS = {
    "plain (sixtysix-ppo)": lambda: _shipped("sixtysix-ppo"),
    "reads the mask": _mask_reader,
    "suits (sixtysix-ppo-v2-sym)": lambda: _shipped("sixtysix-ppo-v2-sym"),
}


def _rows(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    obs = (rng.random((POOL, OBS_SIZE)) < 0.3).astype(np.float32)
    obs[:, :8] = rng.random((POOL, 8), dtype=np.float32)  # some values between 0 and 1
    legal = rng.random((POOL, NUM_ACTIONS)) < 0.4
    legal[:, 0] = True
    return obs, legal


def _single(net: PolicyNetwork, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Each row's logits as PolicyAgent.act computes them for its one observation."""
    mask = legal.astype(np.float32)
    return np.stack([
        net.logits(o, m) if net.reads_mask else net.logits(o) for o, m in zip(obs, mask)
    ])


def _batches(rng: np.random.Generator, size: int):
    """Row indices of batches of ``size``: in order, shuffled, and the first row moved
    through the batch (first, last, and a place in between)."""
    picks = rng.integers(POOL, size=size)
    yield picks
    yield rng.permutation(picks)
    for place in {0, size - 1, size // 2}:
        moved = rng.permutation(picks)
        moved[[0, place]] = moved[[place, 0]]
        yield moved


@pytest.mark.parametrize("kind", NETWORKS)
def test_a_rows_logits_are_the_same_in_any_batch_as_alone(kind):
    net = NETWORKS[kind]()
    policy = BatchedPolicy(PolicyAgent(net, name=kind))
    obs, legal = _rows()
    alone = _single(net, obs, legal)
    rng = np.random.default_rng(1)
    sizes = SIZES if net.symmetry is None else SIZES[:-1] + (100,)  # 24 passes a row
    for size in sizes:
        for picks in _batches(rng, size):
            got = policy.logits(obs[picks], legal[picks])
            differ = np.flatnonzero((got != alone[picks]).any(axis=1))
            assert differ.size == 0, (
                f"{kind}: in a batch of {size}, rows {differ[:5].tolist()} (of {differ.size}) "
                "differ from their logits alone"
            )


def test_the_blas_thread_count_changes_no_logits(two_blas_threads):
    """Alone and in a batch, with two BLAS threads and with one (an evaluation worker's)."""
    from sixtysix_env.evaluation.blas import one_blas_thread

    obs, legal = _rows(2)
    for kind, make in NETWORKS.items():
        net = make()
        policy = BatchedPolicy(PolicyAgent(net, name=kind))
        two = _single(net, obs, legal), policy.logits(obs, legal).copy()
        with one_blas_thread():
            one = _single(net, obs, legal), policy.logits(obs, legal).copy()
        for a, b, path in zip(two, one, ("alone", "in a batch")):
            np.testing.assert_array_equal(a, b, err_msg=f"{kind}, {path}: 2 threads vs 1")
