"""AgileRL: DQN on ``SixtySix-v0`` (mask in ``info``) trained by its own off-policy loop.

Both as shipped (the ``Dict`` observation; the environment puts the mask in
``info["action_mask"]`` itself) and with ``MaskInInfo`` (a ``Box`` of the features).

AgileRL pins pettingzoo<1.27 and tensordict==0.13 (TorchRL needs newer) and
imports ``peft`` without declaring it, so CI runs this file in its own
virtual environment (``SIXTYSIX_AGILERL_VENV=1``).
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from _ecosystem import one_torch_thread, require

pytestmark = pytest.mark.ecosystem

require("agilerl", "agilerl", own_venv="SIXTYSIX_AGILERL_VENV")

from agilerl.algorithms import DQN
from agilerl.components.replay_buffer import ReplayBuffer
from agilerl.training.train_off_policy import train_off_policy
from agilerl.utils.utils import make_vect_envs

from sixtysix_env.env.wrappers import MaskInInfo
from sixtysix_env.policy.observation import OBS_SIZE


def make_env() -> MaskInInfo:
    return MaskInInfo(gymnasium.make("SixtySix-v0", opponent="heuristic", illegal_action="raise"))


def make_shipped_env() -> gymnasium.Env:
    return gymnasium.make("SixtySix-v0", opponent="heuristic", illegal_action="raise")


@pytest.mark.usefixtures(one_torch_thread.__name__)
@pytest.mark.parametrize("maker", [make_shipped_env, make_env], ids=["as-shipped", "MaskInInfo"])
def test_dqn_trains_with_agilerls_loop(maker):
    # illegal_action="raise": an unmasked action would fail the run, so passing
    # shows AgileRL applied the masks from info.
    env = make_vect_envs(make_env=maker, num_envs=2, should_async_vector=False)
    try:
        if maker is make_env:
            assert env.single_observation_space.shape == (OBS_SIZE,)
        agent = DQN(
            env.single_observation_space,
            env.single_action_space,
            # A Box gets a small MLP; the Dict (as shipped) AgileRL's default multi-input net.
            net_config={"encoder_config": {"hidden_size": [64]}} if maker is make_env else None,
            batch_size=32,
            learn_step=4,
        )
        pop, fitnesses = train_off_policy(
            env,
            "SixtySix-v0",
            "DQN",
            [agent],
            memory=ReplayBuffer(max_size=2_000),
            max_steps=300,
            evo_steps=150,
            eval_steps=None,
            eval_loop=1,
            verbose=False,
        )
        assert pop[0].steps >= 300
        assert np.all(np.isfinite(np.asarray(fitnesses, dtype=float)))
    finally:
        env.close()
