"""What happens around the PPO loop: logging, snapshots, evaluation, saving.

:class:`SelfPlayCallback` does its periodic work at the start of a rollout,
when the weights are those of the update just made and the step count is
exact: it adds snapshots to the opponent pool, evaluates the learner on
paired deals against the baselines (``sixtysix_env.evaluation``, masks
honoured, the same deals every time), keeps the best model, and saves the
latest one with everything a resumed run needs.

TensorBoard charts are grouped the CleanRL way: ``charts/`` (returns,
evaluation figures, speed) and ``losses/`` (the PPO and cloning losses).
"""

from __future__ import annotations

import os
import time
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

from sixtysix_env.policy import save_policy
from sixtysix_env.progress import progress_bar

from .config import TrainConfig
from .figures import eval_line, evaluate_agent
from .numpy_policy import network_from_policy, policy_agent
from .pool import OpponentPool
from .runs import log_evaluation, save_model_atomically, write_json

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
    """Snapshots, paired-deal evaluation, best/latest saving and per-opponent returns."""

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
        #: Persistent run state (saved as latest/state.json): best score, time, steps.
        self.state = state
        self.printer = printer
        self.returns: dict[str, list[float]] = defaultdict(list)
        self.side_seconds = 0.0  # time spent here (evaluation, saving), not learning
        self._t_start = 0.0
        self._steps_start = 0

    # -- scheduling -------------------------------------------------------------

    def _due(self, every: int, key: str) -> bool:
        if every <= 0:
            return False
        last = self.state.setdefault("last", {}).get(key)
        return last is None or self.num_timesteps - last >= every

    def _mark(self, key: str) -> None:
        self.state.setdefault("last", {})[key] = self.num_timesteps

    def _on_training_start(self) -> None:
        self._t_start = time.perf_counter()
        self._steps_start = self.num_timesteps

    def _on_rollout_start(self) -> None:
        t0 = time.perf_counter()
        if self._due(self.cfg.snapshot_every, "snapshot") and self.num_timesteps > 0:
            self.snapshot()
        if self._due(self.cfg.eval_every, "eval"):
            self.evaluate()
        if self._due(self.cfg.save_every, "save") and self.num_timesteps > self._steps_start:
            self.save_latest()
        self.side_seconds += time.perf_counter() - t0

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
        elapsed = time.perf_counter() - self._t_start - self.side_seconds
        if elapsed > 0:
            self.logger.record(
                "charts/SPS_learning", (self.num_timesteps - self._steps_start) / elapsed
            )
        self.logger.record("charts/pool_snapshots", len(self.pool.snapshots))

    def _on_training_end(self) -> None:
        t0 = time.perf_counter()
        last = self.state.get("last", {})
        if last.get("eval") != self.num_timesteps:
            self.evaluate()
        self.save_latest()
        self.side_seconds += time.perf_counter() - t0

    # -- the work ------------------------------------------------------------------

    def snapshot(self) -> None:
        steps = self.num_timesteps
        label = f"snap-{steps:09d}"
        rel = os.path.join("snapshots", label + ".npz")
        net = network_from_policy(self.model.policy)
        os.makedirs(os.path.join(self.run_dir, "snapshots"), exist_ok=True)
        save_policy(
            os.path.join(self.run_dir, rel),
            net,
            {"name": label, "training": {"steps": steps, "run": self.cfg.name}},
        )
        agent = policy_agent(self.model, label, deterministic=self.cfg.snapshot_deterministic)
        self.pool.add_snapshot(label, rel, steps, agent)
        self._mark("snapshot")

    def evaluate(self) -> dict[str, Any]:
        cfg = self.cfg
        steps = self.num_timesteps
        t0 = time.perf_counter()
        agent = policy_agent(self.model, "learner")
        figures = evaluate_agent(
            agent, cfg.eval_opponents, cfg.eval_deals, cfg.eval_seed, cfg.rules, cfg.eval_workers
        )
        seconds = time.perf_counter() - t0
        for opp, f in figures.items():
            self.logger.record(f"charts/eval_gp_vs_{opp}", f["gp_per_hand"])
            lo, _ = f["gp_ci95"] or (f["gp_per_hand"], f["gp_per_hand"])
            self.logger.record(f"charts/eval_gp_low95_vs_{opp}", lo)
            self.logger.record(
                f"charts/eval_hands_won_vs_{opp}", f["hands_won"] / max(1, f["hands"])
            )
        self.logger.record("charts/eval_seconds", seconds)
        self.logger.dump(steps)
        record, is_best = log_evaluation(
            self.run_dir, self.state, steps, self.wall_time(), figures, cfg.best_metric
        )
        if is_best:
            best_dir = os.path.join(self.run_dir, "best")
            os.makedirs(best_dir, exist_ok=True)
            save_model_atomically(self.model, os.path.join(best_dir, "model.zip"))
            write_json(os.path.join(best_dir, "eval.json"), record)
        self._mark("eval")
        self.printer(eval_line(steps, self.wall_time(), figures, is_best))
        return record

    def wall_time(self) -> float:
        """Seconds of this run so far, earlier sessions of a resumed run included."""
        return self.state.get("wall_time_before_s", 0.0) + (time.perf_counter() - self._t_start)

    def learning_seconds(self) -> float:
        return time.perf_counter() - self._t_start - self.side_seconds

    def save_latest(self) -> None:
        latest = os.path.join(self.run_dir, "latest")
        os.makedirs(latest, exist_ok=True)
        save_model_atomically(self.model, os.path.join(latest, "model.zip"))
        state = dict(self.state)
        state["steps"] = self.num_timesteps
        state["wall_time_s"] = self.wall_time()
        state["pool"] = self.pool.state()
        write_json(os.path.join(latest, "state.json"), state)
        self._mark("save")
