"""Warm start by behaviour cloning for the RLlib backend, with the SB3 path's own code.

:func:`sixtysix_training.common.bc.collect` records the teacher's decisions and
:func:`sixtysix_training.common.bc.pretrain` fits an actor-critic to them through the
small interface :class:`sixtysix_training.common.bc.ActorCritic`, which
:class:`ModuleActorCritic` gives RLlib's ``ActionMaskingTorchRLModule``. The fit happens on a
copy of the learner built from the same spec; its weights then go to the
learner group and from there to the env runners.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from sixtysix_env.env.rllib import MASK_KEY, OBS_KEY

from ..common import bc
from .league import LEARNER


class ModuleActorCritic:
    """RLlib's ``ActionMaskingTorchRLModule`` behind :class:`sixtysix_training.common.bc.ActorCritic`:
    its masked logits (``forward_train``) and values (``compute_values``)."""

    def __init__(self, module) -> None:
        self.module = module

    def logits_and_values(self, obs, masks):
        import torch
        from ray.rllib.core.columns import Columns

        obs = torch.as_tensor(obs, dtype=torch.float32)
        mask = torch.as_tensor(np.asarray(masks), dtype=torch.float32)
        batch = {Columns.OBS: {OBS_KEY: obs, MASK_KEY: mask}}
        # The masking module's compute_values moves the mask out of the observation
        # dict (as RLlib's learner calls it before the forward pass); forward_train reads it.
        values = self.module.compute_values(batch)
        logits = self.module.forward_train(batch)[Columns.ACTION_DIST_INPUTS]
        return logits, values.flatten()

    def parameters(self, critic_only: bool = False) -> list:
        if critic_only:
            raise ValueError(
                "the RLlib backend clones the whole network (its warm start fits actor and "
                "critic together); fitting the critic alone is the SB3 backend's init_policy"
            )
        return list(self.module.parameters())

    def train(self, mode: bool) -> None:
        self.module.train(mode)


def warm_start(algo, spec, cfg, printer=print) -> dict[str, Any]:
    """Clone ``cfg.shared.bc_teacher`` into the learner of ``algo``; returns the cloning record."""
    from ray.rllib.core.columns import Columns  # noqa: F401  (ray must be importable)

    t = cfg.shared
    t0 = time.perf_counter()
    printer(f"behaviour cloning: {t.bc_hands:,} hands of {t.bc_teacher} (against {t.bc_opponent})")
    data = bc.collect_for_run(t, t.bc_teacher)
    collect_s = time.perf_counter() - t0
    module = spec.build()
    module.set_state(algo.learner_group.get_weights([LEARNER])[LEARNER])
    stats = bc.pretrain(
        ModuleActorCritic(module),
        data,
        t.bc_epochs,
        t.bc_batch_size,
        t.bc_learning_rate,
        t.bc_value,
        t.seed,
        None,
        t.vf_coef,
    )
    algo.learner_group.set_weights({LEARNER: module.get_state()})
    algo.env_runner_group.sync_weights(
        from_worker_or_learner_group=algo.learner_group, policies=[LEARNER], inference_only=True
    )
    stats["collect_seconds"] = collect_s
    stats["teacher"] = t.bc_teacher
    last = stats["epochs"][-1]
    printer(
        f"behaviour cloning: {stats['decisions']:,} decisions, collected in {collect_s:.0f} s, "
        f"fitted in {stats['seconds']:.0f} s; accuracy {last['accuracy']:.3f}"
    )
    return stats
