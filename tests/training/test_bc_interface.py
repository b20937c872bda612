"""Behaviour cloning's own small interface (``bc.ActorCritic``) and the SB3 backend's adapter.

The adapter must give what sb3-contrib's ``evaluate_actions`` gives (the same log
probabilities and values) for every kind of actor-critic a run builds, so that cloning
fits the same function through it. That the shared fitting code imports neither SB3
nor Ray is a contract of pyproject.toml's (tests/project/test_architecture_layers.py).
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None, reason="the [train] extra is not installed"
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _model(**options):
    from sixtysix_training.common.pool import OpponentPool
    from sixtysix_training.config.loader import config_from_dict
    from sixtysix_training.sb3.train import new_model
    from sixtysix_training.sb3.vec_env import SelfPlayVecEnv

    cfg = config_from_dict({"n_envs": 2, "n_steps": 32, "batch_size": 64, "net_arch": [32, 16],
                            **options})
    return new_model(cfg, SelfPlayVecEnv.from_config(cfg, OpponentPool({"random": 1.0})))


@pytest.mark.slow
@pytest.mark.parametrize("options", [
    {},
    {"privileged_critic": True},
    {"privileged_critic": True, "actor_symmetry": "suits", "net_arch": [24, 24]},
])
def test_the_adapter_gives_what_evaluate_actions_gives(options):
    import torch as th

    from sixtysix_training.common import bc
    from sixtysix_training.sb3.policy import SB3ActorCritic

    model = _model(**options)
    privileged = bool(options.get("privileged_critic"))
    data = bc.collect("heuristic", "teacher", 6, "altmisalti", seed=1, privileged=privileged)
    obs, masks, actions = (th.as_tensor(data[k]) for k in ("obs", "masks", "actions"))
    adapter = SB3ActorCritic(model.policy)
    with th.no_grad():
        logits, values = adapter.logits_and_values(obs, masks)
        want_v, want_logp, _ = model.policy.evaluate_actions(obs, actions, action_masks=masks)
    logp = th.log_softmax(logits, -1).gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)
    assert logits.shape == (len(actions), 34) and values.shape == (len(actions),)
    np.testing.assert_allclose(logp.numpy(), want_logp.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(values.numpy(), want_v.flatten().numpy(), rtol=1e-6, atol=1e-6)
    assert (logits[~masks] <= -1e7).all()
    critic = {id(p) for p in adapter.parameters(critic_only=True)}
    every = {id(p) for p in adapter.parameters()}
    assert critic and critic < every


@pytest.mark.slow
def test_cloning_through_the_adapter_learns_the_teacher():
    from sixtysix_training.common import bc
    from sixtysix_training.sb3.policy import SB3ActorCritic

    model = _model()
    data = bc.collect("heuristic", "teacher", 120, "altmisalti", seed=2)
    stats = bc.pretrain(SB3ActorCritic(model.policy), data, 3, 256, 1e-3, True, 0,
                        val_fraction=0.2)
    assert stats["epochs"][-1]["accuracy"] > stats["epochs"][0]["accuracy"] + 0.1
    critic_only = bc.pretrain(SB3ActorCritic(model.policy), data, 1, 256, 1e-3, True, 0,
                              fit_policy=False)
    assert critic_only["epochs"][-1]["value_loss"] is not None
