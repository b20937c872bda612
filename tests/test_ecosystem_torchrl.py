"""TorchRL: the AEC environment in ``PettingZooWrapper``, one policy shared by both seats."""

from __future__ import annotations

import pytest
import torch
from _ecosystem import one_torch_thread, require

require("torchrl", "torchrl")

from tensordict.nn import TensorDictModule
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType, check_env_specs
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor

from sixtysix_env import sixtysix_v0
from sixtysix_env.env.observation import OBS_SIZE


@pytest.mark.usefixtures(one_torch_thread.__name__)
def test_shared_policy_rollout():
    torch.manual_seed(0)
    env = PettingZooWrapper(
        env=sixtysix_v0.env(),
        use_mask=True,  # one seat acts at a time
        group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,  # both seats in "agents": one network
        seed=0,
    )
    assert env.group_map == {"agents": ["player_0", "player_1"]}
    check_env_specs(env, seed=0)
    net = TensorDictModule(
        MLP(in_features=OBS_SIZE, out_features=34, num_cells=[64]),
        in_keys=[("agents", "observation", "observation")],
        out_keys=[("agents", "logits")],
    )
    policy = ProbabilisticActor(
        net,
        in_keys={"logits": ("agents", "logits"), "mask": ("agents", "action_mask")},
        out_keys=[("agents", "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    )
    rollout = env.rollout(300, policy=policy, break_when_any_done=False)
    assert rollout.batch_size == torch.Size([300])
    acting = rollout["agents", "mask"]  # which seat acted at each step
    assert (acting.sum(-1) == 1).all()
    # Every action the acting seat played was legal in its mask.
    actions = rollout["agents", "action"][acting]
    masks = rollout["agents", "action_mask"][acting]
    assert masks.gather(-1, actions.unsqueeze(-1)).all()
    # Several hands were played; the rewards are zero-sum.
    rewards = rollout["next", "agents", "reward"].squeeze(-1)
    assert rollout["next", "done"].sum() >= 3
    assert torch.all(rewards.sum(-1) == 0) and rewards.abs().sum() > 0
    # The plain infos arrive as tensors.
    assert rollout["next", "agents", "info", "hand_over"].sum() >= 3
