"""What happens around SB3's PPO loop: logging, and the run's lifecycle.

:class:`SelfPlayCallback` drives the lifecycle both backends share
(:class:`~.lifecycle.RunLifecycle`: snapshots into the opponent pool,
paired-deal evaluation against the baselines, the best model, ``latest/``
with everything a resumed run needs) at the start of each rollout, when the
weights are those of the update just made and the step count is exact.

TensorBoard charts are grouped the CleanRL way: ``charts/`` (returns,
evaluation figures, speed) and ``losses/`` (the PPO and cloning losses).
"""

from __future__ import annotations

import os
from collections import defaultdict
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import (
    CSVOutputFormat,
    KVWriter,
    Logger,
    TensorBoardOutputFormat,
)

from sixtysix_env.policy import PolicyNetwork
from sixtysix_env.util.progress import progress_bar

from ..common.figures import eval_charts
from ..common.lifecycle import RunLifecycle
from ..common.numpy_policy import network_from_policy
from ..common.pool import OpponentPool
from ..common.runs import save_model_atomically
from ..config.loader import TrainConfig

# SB3's own keys -> the chart groups.
_RENAME = {
    "rollout/ep_rew_mean": "charts/episodic_return",
    "rollout/ep_len_mean": "charts/episodic_length",
    "time/fps": "charts/SPS",
    "train/learning_rate": "charts/learning_rate",
    "train/clip_range": "charts/clip_range",
}


def _grouped(key: str) -> str | None:
    if key in _RENAME:
        return _RENAME[key]
    if key.startswith(("charts/", "losses/")):
        return key
    if key.startswith("train/"):
        return "losses/" + key[len("train/") :]
    return None  # time/iterations, time/total_timesteps, ...: CSV only


class GroupedTensorBoardFormat(KVWriter):
    """TensorBoard output with SB3's keys renamed into ``charts/`` and ``losses/``."""

    def __init__(self, folder: str) -> None:
        self.inner = TensorBoardOutputFormat(folder)

    def write(
        self, key_values: dict[str, Any], key_excluded: dict[str, tuple[str, ...]], step: int = 0
    ) -> None:
        kv, ex = {}, {}
        for k, v in key_values.items():
            g = _grouped(k)
            if g is not None and g not in kv:
                kv[g] = v
                ex[g] = key_excluded.get(k, ())
        if kv:
            self.inner.write(kv, ex, step)

    def close(self) -> None:
        self.inner.close()


def make_logger(run_dir: str) -> Logger:
    """TensorBoard (grouped) under ``run_dir/tb`` and every key in ``run_dir/progress.csv``."""
    os.makedirs(os.path.join(run_dir, "tb"), exist_ok=True)
    return Logger(
        run_dir,
        [
            GroupedTensorBoardFormat(os.path.join(run_dir, "tb")),
            CSVOutputFormat(os.path.join(run_dir, "progress.csv")),
        ],
    )


class StepProgressBar(BaseCallback):
    """Training steps as a progress bar (a terminal) or occasional lines (a log file).

    PPO collects whole rollouts of ``n_envs * n_steps`` steps, so a run asked
    for 300,000 steps takes the next multiple of the rollout size; the bar's
    total says so rather than ending at 303,104/300,000.
    """

    def __init__(self, steps_asked: int) -> None:
        super().__init__()
        self.steps_asked = steps_asked
        self.bar = None

    def _on_training_start(self) -> None:
        rollout = self.model.n_envs * self.model.n_steps
        total = -(-self.steps_asked // rollout) * rollout
        self.bar = progress_bar(total, "training", "step")

    def _on_step(self) -> bool:
        self.bar.update(self.model.n_envs)
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()


class SelfPlayCallback(BaseCallback):
    """The SB3 side of a run's lifecycle (:class:`~.lifecycle.RunLifecycle`: snapshots,
    paired-deal evaluation, best/latest saving), and the per-opponent returns."""

    def __init__(
        self,
        cfg: TrainConfig,
        run_dir: str,
        pool: OpponentPool,
        state: dict[str, Any],
        printer=print,
    ) -> None:
        super().__init__()
        self.cfg = cfg
        self.run_dir = run_dir
        self.pool = pool
        self.life = RunLifecycle(
            cfg.shared, run_dir, pool, state, self, printer, cfg.sb3.eval_workers
        )
        self.returns: dict[str, list[float]] = defaultdict(list)

    @property
    def state(self) -> dict[str, Any]:
        """Persistent run state (saved as latest/state.json): best score, time, steps."""
        return self.life.state

    # -- what the lifecycle asks of this backend (lifecycle.Learner) -----------------

    def steps(self) -> int:
        return int(self.model.num_timesteps)

    def network(self) -> PolicyNetwork:
        return network_from_policy(self.model.policy)

    def save_model(self, folder: str, resumable: bool) -> None:
        save_model_atomically(self.model, os.path.join(folder, "model.zip"))

    def added_snapshot(self, label: str, network: PolicyNetwork) -> None:
        pass  # the games draw their opponents from the pool itself

    def record_evaluation(self, steps: int, figures: dict[str, dict], seconds: float) -> None:
        for name, value in eval_charts(figures, seconds).items():
            self.logger.record(name, value)
        self.logger.dump(steps)

    def pool_changed(self) -> None:
        """Nothing to hand on: this process's games draw their opponents from the pool."""

    # -- SB3's hooks: the periodic work at the start of a rollout, when the weights are
    # those of the update just made and the step count is exact ----------------------

    def _on_training_start(self) -> None:
        self.life.begin()

    def _on_rollout_start(self) -> None:
        self.life.periodic()

    def _on_step(self) -> bool:
        dones = self.locals["dones"]
        if dones.any():
            for info in self.locals["infos"]:
                ep = info.get("episode")
                if ep is not None:
                    group = info.get("opponent_group")
                    key = info["opponent"] if group == "baseline" else group
                    self.returns[key].append(ep["r"])
        return True

    def _on_rollout_end(self) -> None:
        for key, xs in self.returns.items():
            if xs:
                self.logger.record(f"charts/return_vs_{key}", float(np.mean(xs)))
        self.returns.clear()
        elapsed = self.life.learning_seconds()
        if elapsed > 0:
            self.logger.record(
                "charts/SPS_learning", (self.steps() - self.life._steps_start) / elapsed
            )
        self.logger.record("charts/pool_snapshots", len(self.pool.snapshots))

    def _on_training_end(self) -> None:
        self.life.periodic(final=True)

    # -- for the command ---------------------------------------------------------------

    def learning_seconds(self) -> float:
        return self.life.learning_seconds()

    def save_latest(self) -> None:
        self.life.save_latest()
