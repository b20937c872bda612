"""The options ``critic_precision`` and ``pool_precision``: bfloat16 products for the critic
(``training/sb3/policy.py``) and for the pool's networks in the batched games
(``training/sb3/batched_vec_env.py``), the actor always in float32."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

# torch and SB3 are imported inside the tests: collecting the fast lane imports neither
pytestmark = pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("sb3_contrib", "numba", "msgspec")),
    reason="the [train] and [fast] extras are not installed",
)

from sixtysix_training.common.pool import OpponentPool  # noqa: E402
from sixtysix_training.config.loader import ConfigError, load_config  # noqa: E402

TINY = "tiny"  # the shipped config, by name


def test_auto_means_bfloat16_only_where_the_cpu_has_it(monkeypatch):
    from sixtysix_training.sb3 import policy

    for native, expected in ((True, "bfloat16"), (False, "float32")):
        monkeypatch.setattr(policy, "native_bfloat16", lambda native=native: native)
        assert policy.resolve_precision("auto") == expected
        assert policy.resolve_precision("float32") == "float32"
        assert policy.resolve_precision("bfloat16") == "bfloat16"
    with pytest.raises(ValueError, match="'half'; allowed values: 'float32', 'bfloat16', 'auto'"):
        policy.resolve_precision("half")


def _extractor():
    import torch as th

    from sixtysix_env.policy.observation import OBS_SIZE
    from sixtysix_training.sb3.policy import PrivilegedMlpExtractor

    th.manual_seed(0)
    arch = {"pi": [64], "vf": [96, 96]}
    return PrivilegedMlpExtractor(OBS_SIZE + 10, OBS_SIZE, arch, th.nn.ReLU, "suits")


def test_a_bfloat16_critic_is_the_float32_one_to_its_rounding_and_the_actor_is_unchanged():
    import torch as th

    ext = _extractor()
    x = th.rand(256, ext.actor_dim + 10)
    values, actor = {}, {}
    for dtype in (th.float32, th.bfloat16):
        ext.critic_dtype = dtype
        ext.zero_grad()
        latent_pi, latent_vf = ext(x)
        assert latent_vf.dtype == th.float32  # SB3's value head and the loss stay float32
        (latent_vf.square().mean() + latent_pi.mean()).backward()
        values[dtype] = latent_vf.detach()
        grads = {n: p.grad.clone() for n, p in ext.named_parameters() if p.grad is not None}
        actor[dtype] = (latent_pi.detach(), {n: g for n, g in grads.items() if "policy" in n})
        critic = {n: g for n, g in grads.items() if "value" in n}
        assert actor[dtype][1] and len(grads) == len(actor[dtype][1]) + len(critic)
        assert critic and all(g.dtype == th.float32 and g.abs().sum() > 0 for g in critic.values())
    assert all(p.dtype == th.float32 for p in ext.parameters())
    scale = values[th.float32].abs().max()
    assert (values[th.bfloat16] - values[th.float32]).abs().max() <= 2e-2 * scale
    assert not th.equal(values[th.bfloat16], values[th.float32])  # it did compute in bfloat16
    # the actor (its log-probabilities make PPO's ratio) computes in float32 either way
    assert th.equal(actor[th.float32][0], actor[th.bfloat16][0])
    for name, g in actor[th.float32][1].items():
        assert th.equal(g, actor[th.bfloat16][1][name])


@pytest.mark.slow  # builds an SB3 model (about 1 s): the full run, not the fast lane
def test_a_new_model_takes_its_critic_precision_from_the_config():
    import torch as th

    from sixtysix_training.sb3.policy import critic_precision
    from sixtysix_training.sb3.train import new_model
    from sixtysix_training.sb3.vec_env import SelfPlayVecEnv

    cfg = load_config(TINY, ["privileged_critic=true", "critic_precision=bfloat16"])
    env = SelfPlayVecEnv.from_config(cfg, OpponentPool.from_config(cfg.shared))
    try:
        model = new_model(cfg, env)
        assert critic_precision(model.policy) == "bfloat16"
        assert model.policy.mlp_extractor.critic_dtype == th.bfloat16
    finally:
        env.close()


def test_a_plain_policy_keeps_float32():
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from sixtysix_env.game.actions import NUM_ACTIONS
    from sixtysix_env.policy.observation import OBS_SIZE
    from sixtysix_training.sb3.policy import critic_precision, set_critic_precision

    policy = MaskableActorCriticPolicy(
        spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32), spaces.Discrete(NUM_ACTIONS),
        lambda _: 1e-3,
    )
    assert set_critic_precision(policy, "float32") == "float32"
    assert critic_precision(policy) == "float32"
    with pytest.raises(ValueError, match="needs the runs' own policy"):
        set_critic_precision(policy, "bfloat16")


@pytest.mark.parametrize(("options", "message"), [
    (["critic_precision=bfloat16"], "'critic_precision' \\('bfloat16'\\) sets the value network "
                                    "of the runs' own policy"),
    (["critic_precision=half"], "'critic_precision' got 'half'; allowed values: 'float32', "
                                "'bfloat16', 'auto'"),
    (["pool_precision=auto"], "'pool_precision' \\('auto'\\) sets the pool's networks in the "
                              "batched games: set batched_games to true"),
    (["pool_precision=float16", "batched_games=true"], "'pool_precision' got 'float16'"),
])
def test_the_options_refuse_what_they_cannot_do(options, message):
    with pytest.raises(ConfigError, match=message):
        load_config(TINY, ["privileged_critic=false", "actor_symmetry=null", *options])


def _games(n=48, seed=3):
    """A batched training env of ``n`` games stepped a few random moves in, its hands ready
    for an opponent to move in every lane."""
    from sixtysix_training.sb3.batched_vec_env import BatchedSelfPlayVecEnv

    cfg = load_config(TINY, ["baseline_weights={random: 1.0}"])
    pool = OpponentPool.from_config(cfg.shared)
    env = BatchedSelfPlayVecEnv(n, pool, cfg.shared.rules, seed=seed)
    env.reset()
    rng = np.random.default_rng(seed)
    for _ in range(3):
        masks = env.action_masks()
        env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    lanes = np.arange(n, dtype=np.int64)
    seats = env.hands.to_move(lanes)
    keep = seats >= 0
    return env.hands, lanes[keep], seats[keep]


@pytest.mark.parametrize(("dtype", "tolerance"), [("float32", 1e-5), ("bfloat16", 3e-2)])
def test_a_pool_network_on_torch_gives_the_numpy_logits_and_moves(dtype, tolerance):
    import torch as th

    dtype = getattr(th, dtype)
    from sixtysix_env.agents import make_agent
    from sixtysix_env.agents.batch import BatchedPolicy
    from sixtysix_training.sb3.batched_vec_env import TorchBatchedPolicy, pool_network_form

    agent = make_agent("sixtysix-ppo-v4")  # a plain network, argmax
    hands, lanes, seats = _games()
    numpy_form, torch_form = BatchedPolicy(agent, exact=False), pool_network_form(agent, dtype)
    assert isinstance(torch_form, TorchBatchedPolicy) and torch_form.dtype == dtype
    ref, legal = numpy_form.logits_and_masks(hands, lanes, seats)
    got, legal2 = torch_form.logits_and_masks(hands, lanes, seats)
    assert got.dtype == np.float32 and np.array_equal(legal, legal2)
    assert np.abs(got - ref).max() <= tolerance * np.abs(ref).max()
    z = np.where(legal, ref, -np.inf)
    top2 = np.sort(z, axis=1)[:, -2:]
    clear = (top2[:, 1] - top2[:, 0]) > 2 * tolerance * np.abs(ref).max()
    assert clear.sum() >= len(lanes) // 2
    same = numpy_form.act_batch(hands, lanes, seats) == torch_form.act_batch(hands, lanes, seats)
    assert same[clear].all()


def test_a_symmetric_pool_network_keeps_the_numpy_form():
    import torch as th

    from sixtysix_env.agents import make_agent
    from sixtysix_env.agents.batch import BatchedPolicy
    from sixtysix_env.policy.agent import PolicyAgent
    from sixtysix_training.sb3.batched_vec_env import TorchBatchedPolicy, pool_network_form

    plain = make_agent("sixtysix-ppo-v4")
    agent = PolicyAgent(plain.network.with_symmetry("suits"), {"name": "sym"}, name="sym")
    form = pool_network_form(agent, th.bfloat16)
    assert type(form) is BatchedPolicy and not form.exact
    with pytest.raises(ValueError, match="plays through BatchedPolicy"):
        TorchBatchedPolicy(agent, th.float32)
