"""Tianshou 2.x: DQN against a random masked opponent, its tic-tac-toe recipe unchanged."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import torch
from _ecosystem import one_torch_thread, require

pytestmark = pytest.mark.ecosystem

# Tianshou's n-step returns are numba functions; compiling them takes longer
# than this whole test, so they run as plain Python here (numba's own switch).
if "numba" not in sys.modules:
    os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

require("tianshou", "tianshou")

from tianshou.algorithm import (
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from sixtysix_env import sixtysix_v0


def get_env() -> PettingZooEnv:
    return PettingZooEnv(sixtysix_v0.env())


@pytest.mark.usefixtures(one_torch_thread.__name__)
def test_dqn_trains_against_a_random_opponent():
    np.random.seed(0)
    torch.manual_seed(0)
    env = get_env()
    obs_space = env.observation_space["observation"]
    net = Net(state_shape=obs_space.shape, action_shape=env.action_space.n, hidden_sizes=[64])
    learner = DQN(
        policy=DiscreteQLearningPolicy(
            model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.05
        ),
        optim=AdamOptimizerFactory(lr=1e-3),
        n_step_return_horizon=1,
        gamma=0.9,
        target_update_freq=50,
    )
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)

    train_envs = DummyVectorEnv([get_env for _ in range(2)])
    test_envs = DummyVectorEnv([get_env for _ in range(2)])
    train_envs.seed(0)
    test_envs.seed(1)
    buffer = VectorReplayBuffer(2_000, len(train_envs))
    train_collector = Collector[CollectStats](algorithm, train_envs, buffer, exploration_noise=True)
    test_collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    train_collector.reset()
    train_collector.collect(n_step=64)
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=test_collector,
            max_epochs=1,
            epoch_num_steps=300,
            collection_step_num_env_steps=20,
            test_step_num_episodes=2,
            batch_size=32,
            update_step_num_gradient_steps_per_sample=0.2,
            test_in_training=False,
            show_progress=False,
            multi_agent_return_reduction=lambda rews: rews[:, 0],
        )
    )
    assert result.train_step >= 300 and result.update_step > 0
    # The buffer holds the plain infos, the same keys on every step.
    info = buffer.info
    assert info.hand_over.dtype == bool and info.hand_winner.dtype.kind == "i"
    n = len(buffer)
    assert n >= 300 and info.hand_over[:n].any()
