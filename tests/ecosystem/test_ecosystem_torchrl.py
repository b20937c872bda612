"""TorchRL: the AEC environment in ``PettingZooWrapper``, one policy shared by both seats."""

from __future__ import annotations

import pytest
import torch
from _ecosystem import one_torch_thread, require

pytestmark = pytest.mark.ecosystem

require("torchrl", "torchrl")

from tensordict.nn import TensorDictModule
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType, check_env_specs
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor

from sixtysix_env import sixtysix_v0
from sixtysix_env.policy.observation import OBS_SIZE


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


def _ppo_recipe(frames_per_batch: int, total_frames: int):
    """docs/ecosystem.md's TorchRL PPO recipe (the same calls), returning what the
    test checks: the last batch after GAE, the rows the loss trained on, the loss."""
    from torchrl.collectors import Collector
    from torchrl.modules import ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE

    torch.manual_seed(0)
    env = PettingZooWrapper(
        env=sixtysix_v0.env(),
        use_mask=True,
        group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,
        seed=0,
    )
    policy_net = MLP(in_features=OBS_SIZE, out_features=34, num_cells=[64, 64])
    value_net = MLP(in_features=OBS_SIZE, out_features=1, num_cells=[64, 64])

    def actor(*group):
        return ProbabilisticActor(
            TensorDictModule(
                policy_net,
                in_keys=[(*group, "observation", "observation")],
                out_keys=[(*group, "logits")],
            ),
            in_keys={"logits": (*group, "logits"), "mask": (*group, "action_mask")},
            out_keys=[(*group, "action")],
            distribution_class=MaskedCategorical,
            return_log_prob=True,
        )

    def critic(*group):
        return ValueOperator(
            value_net,
            in_keys=[(*group, "observation", "observation")],
            out_keys=[(*group, "state_value")],
        )

    gae = GAE(gamma=1.0, lmbda=1.0, value_network=critic("agents"))
    gae.set_keys(
        reward=("agents", "reward"),
        done=("agents", "done"),
        terminated=("agents", "terminated"),
        value=("agents", "state_value"),
        advantage=("agents", "advantage"),
        value_target=("agents", "value_target"),
    )
    loss = ClipPPOLoss(actor(), critic(), clip_epsilon=0.2, entropy_coeff=0.01)
    loss.set_keys(sample_log_prob="action_log_prob")
    optim = torch.optim.Adam(loss.parameters(), lr=3e-4)
    collector = Collector(
        env,
        actor("agents"),
        frames_per_batch=frames_per_batch,
        total_frames=total_frames,
        auto_register_policy_transforms=False,
    )
    for data in collector:
        with torch.no_grad():
            gae(data)
        seats = data["agents"]
        rows = seats[seats["mask"]]  # the acting seat's rows only
        for _ in range(2):
            for batch in rows[torch.randperm(len(rows))].split(128):
                out = loss(batch)
                (out["loss_objective"] + out["loss_critic"] + out["loss_entropy"]).backward()
                torch.nn.utils.clip_grad_norm_(loss.parameters(), 0.5)
                optim.step()
                optim.zero_grad()
    collector.shutdown()
    return data, rows, loss, policy_net


@pytest.mark.usefixtures(one_torch_thread.__name__)
def test_ppo_recipe_trains_on_the_acting_seat_only():
    data, rows, loss, policy_net = _ppo_recipe(frames_per_batch=256, total_frames=512)
    seats = data["agents"]
    acting = seats["mask"]
    # One row a step: exactly the seat that moved, with a move legal in its mask.
    assert len(rows) == data.batch_size[0] == 256
    assert (acting.sum(-1) == 1).all()
    assert rows["action_mask"].gather(-1, rows["action"].unsqueeze(-1)).all()
    assert torch.equal(rows["observation", "observation"], seats["observation", "observation"][acting])

    # gamma 1, lambda 1: an acting row's value target is its seat's score of the hand
    # (the reward when the hand ends), so the idle seat's values never enter a target.
    reward = data["next", "agents", "reward"].squeeze(-1)  # (steps, seats)
    hand_over = data["next", "done"].squeeze(-1)
    target = seats["value_target"].squeeze(-1)
    checked = 0
    ends = torch.nonzero(hand_over).flatten().tolist()
    start = 0
    for end in ends:
        for step in range(start, end + 1):
            seat = int(acting[step].nonzero())
            assert target[step, seat] == pytest.approx(float(reward[end, seat]), abs=1e-5)
            checked += 1
        start = end + 1
    assert len(ends) >= 3 and checked > 100

    # Garbage in the idle seat's rows changes nothing the loss sees.
    before = loss(rows)
    spoiled = seats.clone()
    idle = ~acting
    for key in (("observation", "observation"), "advantage", "value_target", "action_log_prob"):
        value = spoiled.get(key)
        value[idle] = torch.randn_like(value[idle]) * 100
        spoiled.set(key, value)
    after = loss(spoiled[spoiled["mask"]])
    for key in ("loss_objective", "loss_critic", "loss_entropy"):
        assert torch.equal(before[key], after[key])
    # ... whereas the full (steps x seats) batch would train on them.
    assert not torch.equal(loss(spoiled.reshape(-1))["loss_critic"], before["loss_critic"])
    assert all(torch.isfinite(p).all() for p in policy_net.parameters())
