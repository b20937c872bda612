"""The numpy policy file: format round trip, refusals, and play (no torch needed)."""

from __future__ import annotations

import itertools
import json
import os
import random

import numpy as np
import pytest

from sixtysix_env.agents import make_agent
from sixtysix_env.game.actions import NUM_ACTIONS
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.view import player_view
from sixtysix_env.policy import (
    PolicyAgent,
    PolicyFileError,
    PolicyNetwork,
    load_policy,
    read_policy,
    save_policy,
)
from sixtysix_env.policy.observation import OBS_SIZE, OBS_VERSION, encode_view


def random_network(seed: int = 0, hidden=(16, 8), activation: str = "relu") -> PolicyNetwork:
    rng = np.random.default_rng(seed)
    sizes = [OBS_SIZE, *hidden, NUM_ACTIONS]
    ws = [rng.normal(0, 0.5, (a, b)).astype(np.float32) for a, b in itertools.pairwise(sizes)]
    bs = [rng.normal(0, 0.1, (b,)).astype(np.float32) for b in sizes[1:]]
    return PolicyNetwork(ws, bs, activation)


def views(n_hands: int, seed: int = 0):
    """Every position of ``n_hands`` random hands, as the mover's view."""
    rng = random.Random(seed)
    for _ in range(n_hands):
        s = new_hand(rng, rng.randrange(2))
        while not s.is_terminal():
            v = player_view(s, s.current_player())
            yield v
            legal = s.legal_actions()
            s = s.apply(legal[rng.randrange(len(legal))])


def rewrite(path: str, out: str, change) -> None:
    """Copy a policy file, letting ``change(arrays)`` edit its arrays on the way."""
    with np.load(path, allow_pickle=False) as d:
        arrays = {k: d[k] for k in d.files}
    change(arrays)
    np.savez(out, **arrays)


def set_meta(arrays: dict, **changes) -> None:
    meta = json.loads(arrays["metadata"].tobytes())
    meta.update(changes)
    arrays["metadata"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)


@pytest.fixture
def policy_file(tmp_path):
    path = str(tmp_path / "p.npz")
    save_policy(path, random_network(), {"name": "test", "training": {"steps": 7}})
    return path


def test_round_trip_keeps_weights_and_metadata(policy_file):
    net, meta = read_policy(policy_file)
    ref = random_network()
    for a, b in zip(net.weights + net.biases, ref.weights + ref.biases):
        np.testing.assert_array_equal(a, b)
    assert meta["obs_version"] == OBS_VERSION
    assert meta["num_actions"] == NUM_ACTIONS
    assert meta["architecture"]["hidden"] == [16, 8]
    assert meta["training"]["steps"] == 7


def test_probabilities_are_masked_softmax(policy_file):
    agent = load_policy(policy_file)
    for v in list(views(20))[:100]:
        p = agent.action_probabilities(v)
        legal = v.legal_actions()
        assert abs(p.sum() - 1) < 1e-9
        assert all(p[a] == 0 for a in range(NUM_ACTIONS) if a not in legal)
        logits = agent.network.logits(encode_view(v)).astype(np.float64)[legal]
        ref = np.exp(logits - logits.max())
        np.testing.assert_allclose(p[legal], ref / ref.sum(), rtol=1e-6)


def test_tanh_and_batched_logits_agree_with_single(tmp_path):
    net = random_network(3, (12,), "tanh")
    obs = np.stack([encode_view(v) for v in list(views(5))[:40]])
    batch = net.logits(obs)
    for i in range(len(obs)):
        np.testing.assert_allclose(batch[i], net.logits(obs[i]), rtol=1e-5, atol=1e-6)


def test_argmax_agent_plays_best_legal_action(policy_file):
    agent = load_policy(policy_file)
    rng = random.Random(0)
    for v in views(30, seed=1):
        a = agent.act(v, rng)
        assert a in v.legal_actions()
        if len(v.legal_actions()) > 1:
            p = agent.action_probabilities(v)
            assert p[a] == p.max()


def test_sampling_agent_follows_its_probabilities(policy_file):
    agent = load_policy(policy_file, deterministic=False)
    v = next(v for v in views(10, seed=2) if len(v.legal_actions()) >= 4)
    p = agent.action_probabilities(v)
    rng = random.Random(5)
    counts = np.zeros(NUM_ACTIONS)
    for _ in range(4000):
        counts[agent.act(v, rng)] += 1
    assert set(np.flatnonzero(counts)) <= set(v.legal_actions())
    np.testing.assert_allclose(counts / 4000, p, atol=0.03)
    # Same generator state, same choice.
    assert agent.act(v, random.Random(9)) == agent.act(v, random.Random(9))


def test_make_agent_loads_policy_files(policy_file):
    agent = make_agent(policy_file)
    assert isinstance(agent, PolicyAgent) and agent.deterministic
    sampler = make_agent(policy_file + ":deterministic=false")
    assert isinstance(sampler, PolicyAgent) and not sampler.deterministic


def test_wrong_observation_version_is_refused(policy_file, tmp_path):
    bad = str(tmp_path / "old.npz")
    rewrite(policy_file, bad, lambda a: set_meta(a, obs_version=OBS_VERSION + 1))
    with pytest.raises(PolicyFileError, match=f"observation version.*{OBS_VERSION}"):
        load_policy(bad)


def test_tampered_weights_are_refused(policy_file, tmp_path):
    bad = str(tmp_path / "tampered.npz")

    def change(arrays):
        arrays["layer1_bias"] = arrays["layer1_bias"] + np.float32(0.5)

    rewrite(policy_file, bad, change)
    with pytest.raises(PolicyFileError, match="checksum"):
        load_policy(bad)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda a: a.pop("layer2_weight"), "'layer2_weight' is missing"),
        (lambda a: a.update(extra=np.zeros(3, np.float32)), "unexpected arrays"),
        (lambda a: a.update(layer0_bias=a["layer0_bias"].astype(np.float64)), "expected float32"),
        (lambda a: a.update(metadata=np.frombuffer(b"{not json", np.uint8)), "not valid JSON"),
        (lambda a: a.pop("metadata"), "no 'metadata' record"),
        (lambda a: set_meta(a, format="something-else"), "expected 'sixtysix-policy'"),
        (lambda a: set_meta(a, format_version=99), "this loader reads versions 1 and 2"),
        (lambda a: set_meta(a, num_actions=33), "num_actions 33; expected 34"),
        (
            lambda a: set_meta(a, architecture={"activation": "gelu", "layers": []}),
            "activation 'gelu'",
        ),
    ],
)
def test_malformed_files_are_refused(policy_file, tmp_path, change, message):
    bad = str(tmp_path / "bad.npz")
    rewrite(policy_file, bad, change)
    with pytest.raises(PolicyFileError, match=message):
        load_policy(bad)


def test_not_an_archive_is_refused(tmp_path):
    bad = tmp_path / "junk.npz"
    bad.write_bytes(b"this is not a zip file")
    with pytest.raises(PolicyFileError, match="not a readable"):
        load_policy(str(bad))
    with pytest.raises(PolicyFileError, match="does not exist"):
        load_policy(str(tmp_path / "missing.npz"))


class _Boom:
    def __reduce__(self):
        return (os.mkdir, (os.environ["SIXTYSIX_TEST_MARKER"],))


def test_pickled_objects_never_run(policy_file, tmp_path, monkeypatch):
    marker = tmp_path / "code-ran"
    monkeypatch.setenv("SIXTYSIX_TEST_MARKER", str(marker))
    bad = str(tmp_path / "evil.npz")

    def change(arrays):
        obj = np.empty(1, dtype=object)
        obj[0] = _Boom()
        arrays["layer0_bias"] = obj

    with np.load(policy_file, allow_pickle=False) as d:
        arrays = {k: d[k] for k in d.files}
    change(arrays)
    np.savez(bad, **arrays)  # numpy pickles the object array into the file
    assert not marker.exists()
    with pytest.raises(PolicyFileError):
        load_policy(bad)
    assert not marker.exists()
