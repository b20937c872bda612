"""Option ``actor_symmetry: suits``: an actor whose weights are shared across the suits.

Checked against the renaming tables the environment already has: the layers'
suit layout must move exactly as a renaming moves the observation and the
actions, the actor's logits for a renamed position must be the renamed
logits (for every one of the 24 renamings, on real positions), and the
export must be an ordinary policy file that does the same with numpy alone.
"""

from __future__ import annotations

import importlib.util
import itertools
import os

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None, reason="the [train] extra is not installed"
)

from _processes import check_renames_with_the_suits  # noqa: E402
from test_learning import _model, _positions  # noqa: E402  (the same small models and hands)

from sixtysix_env.game.actions import NUM_ACTIONS, suit_relabelled_actions
from sixtysix_env.game.view import player_view
from sixtysix_env.policy.observation import OBS_SIZE, encode_view, suit_relabelling

PERMS = list(itertools.permutations(range(4)))


def _observations(n_hands: int = 6, seed: int = 5) -> np.ndarray:
    return np.stack([encode_view(player_view(s, p)) for s, p in _positions(n_hands, seed)])


def _scramble(policy, seed: int = 0) -> None:
    """Random shared blocks, large enough that every layer matters (a fresh head is near 0)."""
    import torch as th

    gen = th.Generator().manual_seed(seed)
    with th.no_grad():
        for m in policy.modules():
            if hasattr(m, "weight_index"):
                m.params.copy_(th.randn(m.params.shape, generator=gen) * 0.2)


def _moves(layout: str, perm) -> list[tuple[int, int]]:
    """(i, j): under the renaming, entry i of the original is entry j of the renamed vector."""
    if layout == "observation":  # renamed[j] = original[src[j]]
        return [(int(i), j) for j, i in enumerate(suit_relabelling(perm))]
    return list(enumerate(suit_relabelled_actions(perm)))  # action a becomes action map[a]


@pytest.mark.slow  # over half a second: the full run, not the fast lane (30 s)
@pytest.mark.parametrize("layout", ["observation", "action"])
def test_the_layouts_move_as_the_renamings_do(layout):
    """Under a renaming each entry keeps its channel and its suit is renamed (a global entry
    stays put). Every observation entry and action id is covered."""
    from sixtysix_training.common.equivariant import action_layout, observation_layout

    lay = {"observation": observation_layout, "action": action_layout}[layout]()
    assert lay.size == {"observation": OBS_SIZE, "action": NUM_ACTIONS}[layout]
    for perm in PERMS:
        i, j = np.array(_moves(layout, perm)).T
        np.testing.assert_array_equal(lay.channel[j], lay.channel[i])
        suits = np.array([*perm, -1])  # a global entry (suit -1) keeps suit -1 ...
        np.testing.assert_array_equal(lay.suit[j], suits[lay.suit[i]])
        np.testing.assert_array_equal(j[lay.suit[i] < 0], i[lay.suit[i] < 0])  # ... and its place


@pytest.mark.slow  # over half a second: the full run, not the fast lane (30 s)
@pytest.mark.parametrize("privileged", [False, True])
def test_the_actor_gives_the_renamed_logits_for_a_renamed_position(privileged):
    import torch as th

    model, _ = _model(privileged, actor_symmetry="suits", net_arch=[40, 24])
    policy = model.policy
    _scramble(policy)
    obs = _observations()
    extra = th.zeros((len(obs), policy.observation_space.shape[0] - OBS_SIZE))

    def logits(x: np.ndarray) -> np.ndarray:
        features = th.cat([th.as_tensor(x), extra], dim=1)
        with th.no_grad():
            latent = policy.mlp_extractor.forward_actor(features)
            return policy.action_net(latent).numpy()

    base = check_renames_with_the_suits(logits, obs)
    assert np.ptp(base[:, :24], axis=1).min() > 1e-3  # the logits tell the cards apart
    # A plain actor of the same sizes does not (so the check above can fail).
    plain, _ = _model(privileged, net_arch=[40, 24])
    with th.no_grad():
        for p in plain.policy.parameters():
            p.copy_(th.randn(p.shape) * 0.2)
        x = th.cat([th.as_tensor(obs), extra], dim=1)
        y = th.cat([th.as_tensor(obs[:, suit_relabelling(PERMS[5])]), extra], dim=1)
        a = plain.policy.action_net(plain.policy.mlp_extractor.forward_actor(x)).numpy()
        b = plain.policy.action_net(plain.policy.mlp_extractor.forward_actor(y)).numpy()
    assert np.abs(b[:, np.array(suit_relabelled_actions(PERMS[5]))] - a).max() > 1e-2


@pytest.mark.slow  # an optimiser step; test_the_factored_pass_is_the_dense_layer_in_value_and_gradient stays
def test_without_gradients_the_layer_follows_every_change_of_its_weights():
    """Rollouts reuse the gathered matrix (no gradient taken): after an optimiser step, a
    load and a write into the weights it gives what a fresh gather gives, never a stale one."""
    import torch as th

    from sixtysix_training.common.equivariant import SuitSymmetricLinear, hidden_layout

    layer = SuitSymmetricLinear(hidden_layout(40), hidden_layout(24))
    x = th.randn(8, 40)

    def check() -> th.Tensor:
        with th.no_grad():
            frozen = layer(x)
            fresh = th.nn.functional.linear(x, *layer.dense())
        np.testing.assert_array_equal(frozen.numpy(), fresh.numpy())
        return frozen

    first = check()
    opt = th.optim.Adam(layer.parameters(), lr=0.1)
    layer(x).square().sum().backward()
    opt.step()
    stepped = check()
    assert not th.equal(stepped, first)
    layer.load_state_dict({"params": th.zeros_like(layer.params)})
    assert check().abs().max() == 0
    with th.no_grad():
        layer.params[0] = 1.0
    assert check().abs().max() > 0


@pytest.mark.parametrize("widths", [(None, 768), (768, 768), (768, None), (40, 24)])
def test_the_factored_pass_is_the_dense_layer_in_value_and_gradient(widths):
    """With gradients the layer runs its blocks without building the dense matrix (what a
    PPO update runs); the outputs and the blocks' gradients are the plain layer's
    ``linear(x, *dense())`` up to float rounding, for the observation's and the actions'
    own orders (None) as for the hidden layers'."""
    import torch as th

    from sixtysix_training.common.equivariant import (
        SuitSymmetricLinear,
        action_layout,
        hidden_layout,
        observation_layout,
    )

    inp = observation_layout() if widths[0] is None else hidden_layout(widths[0])
    out = action_layout() if widths[1] is None else hidden_layout(widths[1])
    th.manual_seed(3)
    layer = SuitSymmetricLinear(inp, out)
    with th.no_grad():
        layer.params.normal_(0.0, 0.05)
    x = th.randn(64, inp.size)
    factored = layer(x)
    dense = th.nn.functional.linear(x, *layer.dense())
    scale = dense.abs().max().item()
    assert (factored - dense).abs().max().item() < 1e-6 * scale
    stacked = layer(x.reshape(4, 16, inp.size))  # leading dimensions, as linear takes them
    assert th.equal(stacked.reshape(64, -1), factored)
    grad_factored = th.autograd.grad(factored.square().sum(), layer.params)[0]
    grad_dense = th.autograd.grad(dense.square().sum(), layer.params)[0]
    assert (grad_factored - grad_dense).abs().max().item() < 1e-5 * grad_dense.abs().max().item()


def test_the_gradient_is_the_same_with_one_torch_thread_or_two():
    """The shared blocks' gradient sums many dense entries; with two threads indexing's own
    backward summed them in a varying order (two runs of one seed drifted apart). Here two
    threads give one thread's gradient, bit for bit, every time."""
    import torch as th

    from sixtysix_training.common.equivariant import SuitSymmetricLinear, hidden_layout

    th.manual_seed(0)
    layer = SuitSymmetricLinear(hidden_layout(512), hidden_layout(512))
    x = th.randn(256, 512)
    before = th.get_num_threads()

    def gradient(threads: int) -> th.Tensor:
        th.set_num_threads(threads)
        layer.zero_grad()
        layer(x).square().sum().backward()
        return layer.params.grad.clone()

    try:
        one = gradient(1)
        for _ in range(3):
            assert th.equal(gradient(2), one)
    finally:
        th.set_num_threads(before)


@pytest.mark.parametrize("name", [  # the default network in the fast lane, every one in the full suite
    n if n == "sixtysix-ppo-v5" else pytest.param(n, marks=pytest.mark.slow)
    for n in ["sixtysix-ppo-v3", "sixtysix-ppo-v4", "sixtysix-ppo-v5", "sixtysix-ppo-match"]])
def test_the_shipped_networks_answer_every_renaming_of_the_suits_alike(name):
    """``sixtysix-ppo-v3``, ``-v4``, ``-v5`` and ``-match`` were trained with
    ``actor_symmetry``: their plain stored matrices still rename their answer with the
    suits, in one forward pass (their cards in checkpoints/)."""
    from sixtysix_env.policy.fileformat import read_policy
    from sixtysix_env.policy.shipped import shipped_policies

    network, meta = read_policy(str(shipped_policies()[name].path))
    assert meta["training"]["config"]["actor_symmetry"] == "suits"
    assert network.symmetry is None  # an ordinary one-pass file, no play-time averaging
    base = check_renames_with_the_suits(network.logits, _observations(4))
    assert np.ptp(base, axis=1).min() > 1e-2  # the logits tell the actions apart


@pytest.mark.slow  # a training run (torch, SB3): the full suite, not the fast lane
def test_the_export_is_an_ordinary_policy_file_that_keeps_the_symmetry(tmp_path):
    import torch as th

    from sixtysix_env.policy import read_policy, save_policy
    from sixtysix_training.common.numpy_policy import network_from_policy

    model, _ = _model(True, actor_symmetry="suits", net_arch=[40, 24])
    _scramble(model.policy, seed=1)
    network = network_from_policy(model.policy)
    assert network.layers == [[OBS_SIZE, 40], [40, 24], [24, NUM_ACTIONS]]
    path = str(tmp_path / "p.npz")
    save_policy(path, network, {"name": "t"})
    loaded, meta = read_policy(path)
    assert meta["format_version"] == 1 and "symmetry" not in meta["architecture"]
    obs = _observations()
    features = th.cat([th.as_tensor(obs), th.zeros((len(obs), 48))], dim=1)
    with th.no_grad():
        torch_logits = model.policy.action_net(model.policy.mlp_extractor.forward_actor(features))
    np.testing.assert_allclose(loaded.logits(obs), torch_logits.numpy(), atol=1e-4)
    check_renames_with_the_suits(loaded.logits, obs)


def test_a_symmetric_file_loads_into_a_symmetric_actor_and_a_plain_one_is_refused():
    from sixtysix_training.common.numpy_policy import (
        ExportError,
        load_into_policy,
        network_from_policy,
    )

    source, _ = _model(False, actor_symmetry="suits", net_arch=[40, 24])
    _scramble(source.policy, seed=2)
    network = network_from_policy(source.policy)
    target, _ = _model(False, actor_symmetry="suits", net_arch=[40, 24])
    load_into_policy(target.policy, network)
    obs = _observations(2)
    np.testing.assert_allclose(
        network_from_policy(target.policy).logits(obs), network.logits(obs), atol=1e-5
    )
    plain, _ = _model(False, net_arch=[40, 24])
    before = [p.detach().clone() for p in target.policy.parameters()]
    with pytest.raises(ExportError, match="actor_symmetry"):
        load_into_policy(target.policy, network_from_policy(plain.policy))
    for p, q in zip(target.policy.parameters(), before):  # nothing was copied
        assert bool((p == q).all())


def test_the_saved_model_loads_with_its_symmetric_actor(tmp_path):
    from sixtysix_training.common.numpy_policy import network_from_policy
    from sixtysix_training.sb3.model_file import load_model

    model, _ = _model(True, actor_symmetry="suits", net_arch=[40, 24])
    _scramble(model.policy, seed=3)
    path = str(tmp_path / "model.zip")
    model.save(path)
    loaded = load_model(path)
    assert loaded.policy.actor_symmetry == "suits"
    obs = _observations(2)
    np.testing.assert_array_equal(
        network_from_policy(loaded.policy).logits(obs), network_from_policy(model.policy).logits(obs)
    )


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["actor_symmetry=suits", "play_symmetry=suits"], "set play_symmetry to null"),
        (["actor_symmetry=suits", "net_arch=[64, 4]"], "at least 5 units"),
    ],
)
def test_settings_that_do_not_go_with_the_option_are_refused(overrides, message):
    from sixtysix_training.config.loader import ConfigError, load_config

    with pytest.raises(ConfigError, match=message):
        load_config(None, overrides)


@pytest.mark.slow  # a training run (torch, SB3): the full suite, not the fast lane
def test_a_run_with_the_option_trains_exports_and_resumes(tmp_path):
    import json

    from sixtysix_env.cli import main
    from sixtysix_env.policy import read_policy

    run = tmp_path / "run"
    sets = ["total_timesteps=256", "eval_every=0", "eval_deals=10", "bc_hands=20"]
    sets += ["actor_symmetry=suits", "privileged_critic=true", "suit_augment=true"]
    argv = ["train", "--config", "tiny", "--run-dir", str(run)]
    assert main(argv + [x for s in sets for x in ("--set", s)]) == 0
    network, meta = read_policy(str(run / "policy.npz"))
    assert meta["format_version"] == 1
    check_renames_with_the_suits(network.logits, _observations(2))
    assert "actor_symmetry: suits" in (run / "config.yaml").read_text()
    assert main(["train", "--resume", str(run), "--set", "actor_symmetry=null"]) == 2
    assert main(["train", "--resume", str(run), "--set", "total_timesteps=512"]) == 0
    assert json.loads((run / "latest" / "state.json").read_text())["steps"] == 512
    assert os.path.exists(run / "policy.npz")
