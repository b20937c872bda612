"""MaskablePPO with a lookahead pass: every legal move valued, the actor fitted to the best.

The training games (``SelfPlayVecEnv(lookahead=True)``) append to each
observation the value of every legal move one move ahead: the move is played
on the true deal, the opponent answers until the learner is to act again, and
the position reached is valued by the privileged critic (or scored, if the
hand ended). After each PPO update this class makes one more pass over the
rollout, fitting the actor to ``softmax(log pi + A / tau)`` over the legal
moves, where ``A`` is each move's value less the policy's mean: a KL-regularised
policy-improvement step (as in MPO or AWR) with every move's value instead of
the one sampled.
"""

from __future__ import annotations

import numpy as np
import torch as th
from sb3_contrib import MaskablePPO

from sixtysix_env.actions import NUM_ACTIONS


class LookaheadPPO(MaskablePPO):
    lookahead_tau: float = 1.0
    lookahead_epochs: int = 1

    def critic_values(self, x: np.ndarray) -> np.ndarray:
        with th.no_grad():
            v = self.policy.predict_values(th.as_tensor(x, device=self.device))
        return v.squeeze(-1).cpu().numpy()

    lookahead_rollout: str = ""

    def train(self) -> None:
        super().train()
        self._lookahead_pass()
        if self.lookahead_rollout == "policy":
            from sixtysix_env.policy import PolicyAgent

            from .numpy_policy import network_from_policy

            net = network_from_policy(self.policy)
            self.env.rollout_agent = PolicyAgent(net, {"name": "rollout"}, deterministic=True)

    def _lookahead_pass(self) -> None:
        pol = self.policy
        pol.set_training_mode(True)
        tau = float(self.lookahead_tau)
        kls, agree, losses = [], [], []
        for _ in range(int(self.lookahead_epochs)):
            for data in self.rollout_buffer.get(self.batch_size):
                has = data.observations[:, -1] > 0.5
                if not bool(has.any()):
                    continue
                obs = data.observations[has]
                q = obs[:, -NUM_ACTIONS - 1 : -1]
                legal = data.action_masks[has].bool()
                dist = pol.get_distribution(obs, action_masks=legal)
                logp = dist.distribution.logits  # log-probabilities, illegal at about -1e8
                p = logp.exp().detach()
                adv = q - (p * q).sum(-1, keepdim=True)
                target_logits = th.where(legal, logp.detach() + adv / tau, th.full_like(q, -1e8))
                target = th.softmax(target_logits, -1)
                loss = -(target * th.where(legal, logp, th.zeros_like(logp))).sum(-1).mean()
                pol.optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(pol.parameters(), self.max_grad_norm)
                pol.optimizer.step()
                with th.no_grad():
                    lt = th.where(legal, target.clamp_min(1e-12).log(), th.zeros_like(q))
                    lp = th.where(legal, logp.detach(), th.zeros_like(q))
                    kls.append(float((target * (lt - lp)).sum(-1).mean()))
                    qm = th.where(legal, q, th.full_like(q, -1e9))
                    agree.append(float((p.argmax(-1) == qm.argmax(-1)).float().mean()))
                    losses.append(float(loss))
        self.logger.record("lookahead/kl_target", float(np.mean(kls)))
        self.logger.record("lookahead/agree_best", float(np.mean(agree)))
        self.logger.record("lookahead/loss", float(np.mean(losses)))
