"""How a trained privileged critic's one-move lookahead values agree with the policy.

    python -m research.lookahead_check runs/Z-wide/best/model.zip 150 [heuristic]

Plays 150 steps of the 32 training games (heuristic opponent) with the model's
policy, and at each decision with two or more legal moves values every move
one move ahead (the critic, or a play-out to the hand's end by the named
agent), then prints how often the policy's choice is the best-valued move,
the mean shortfall of its choice, and how the critic's value of the position
compares with the policy's mean over the move values.
"""

import sys

import numpy as np
import torch as th

from sixtysix_training.config import load_config
from sixtysix_training.model_file import load_model
from sixtysix_training.pool import OpponentPool
from sixtysix_training.vec_env import SelfPlayVecEnv

model = load_model(sys.argv[1])
pol = model.policy
cfg = load_config(
    "configs/fast.yaml",
    [
        "baseline_weights={heuristic: 1.0}",
        "recent_weight=0",
        "older_weight=0",
        "snapshot_every=0",
        "lookahead_tau=1.0",
    ],
)
env = SelfPlayVecEnv.from_config(cfg, OpponentPool.from_config(cfg))
base = env.base_size


def vf(x):
    with th.no_grad():
        return pol.predict_values(th.as_tensor(x[:, :base])).squeeze(-1).numpy()


env.value_fn = vf
if len(sys.argv) > 3:
    from sixtysix_env.agents import make_agent

    env.rollout_agent = make_agent(sys.argv[3])
env.seed(5)
obs = env.reset()
agree = n = 0
gaps = []
vq = []
for t in range(int(sys.argv[2])):
    masks = env.action_masks()
    x = obs[:, :base]
    with th.no_grad():
        dist = pol.get_distribution(th.as_tensor(x), action_masks=masks)
        p = dist.distribution.probs.numpy()
        v = pol.predict_values(th.as_tensor(x)).squeeze(-1).numpy()
    q = obs[:, base:]
    for i in range(env.num_envs):
        legal = masks[i]
        if legal.sum() < 2:
            continue
        qi = np.where(legal, q[i], -1e9)
        n += 1
        agree += p[i].argmax() == qi.argmax()
        gaps.append(qi.max() - q[i][p[i].argmax()])
        vq.append((v[i], (p[i] * q[i]).sum()))
    a = np.array(
        [np.random.default_rng(t * 100 + i).choice(34, p=p[i]) for i in range(env.num_envs)]
    )
    obs, r, d, info = env.step(a)
vq = np.array(vq)
print(
    f"decisions {n}, policy argmax = lookahead best {agree / n:.3f}, mean gap to best {np.mean(gaps):.3f} gp, "
    f"V vs E_pi[Q]: corr {np.corrcoef(vq.T)[0, 1]:.3f}, mean diff {np.mean(vq[:, 1] - vq[:, 0]):+.3f}, mean abs {np.mean(abs(vq[:, 1] - vq[:, 0])):.3f}"
)
