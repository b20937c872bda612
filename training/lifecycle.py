"""A training run's life, the same on both backends: when to snapshot, evaluate and save.

:class:`RunLifecycle` keeps the schedule (``snapshot_every``, ``eval_every``,
``save_every``, counted in the learner's steps), evaluates the learner on
paired deals against the configured opponents, keeps the best model, adds
snapshots to the opponent pool, and saves ``latest/`` with the state a
resumed run needs (``state.json``); Ctrl-C and SIGTERM wait until a save is
done (:func:`~.runs.signals_held`). It asks its backend only for what
differs (:class:`Learner`): the step count, the learner's actor as a numpy
network, how to save its model into a folder, and where its charts go.

The SB3 backend drives it from its callback (``training/callbacks.py``), the
RLlib backend from its loop (``training/rllib/train.py``): both call
:meth:`RunLifecycle.begin` once, then :meth:`RunLifecycle.periodic` after
every update (``final=True`` after the last).
"""

from __future__ import annotations

import os
import time
from typing import Any, Protocol

from sixtysix_env.policy import PolicyAgent, PolicyNetwork, save_policy

from .config import SharedOptions
from .figures import eval_line, evaluate_agent
from .pool import OpponentPool
from .runs import log_evaluation, signals_held, write_json


class Learner(Protocol):
    """What a training backend gives the run's lifecycle."""

    def steps(self) -> int:
        """The learner's steps so far (the run's clock)."""

    def network(self) -> PolicyNetwork:
        """The learner's actor now, as a numpy network."""

    def save_model(self, folder: str, resumable: bool) -> None:
        """Write the backend's model into ``folder``, each file whole or not at all:
        what an export needs (``best/``), and with ``resumable`` also what a resumed
        run needs (``latest/``)."""

    def added_snapshot(self, label: str, network: PolicyNetwork) -> None:
        """A snapshot joined the pool (the RLlib league hands it to its opponents)."""

    def record_evaluation(self, steps: int, figures: dict[str, dict], seconds: float) -> None:
        """Chart an evaluation (TensorBoard, progress.csv)."""

    def pool_changed(self) -> None:
        """The pool's baselines changed (``final_baseline_weights``): the RLlib league
        hands its env runners the new table; SB3's games draw from the pool itself."""


class RunLifecycle:
    """The schedule and the run folder's records around a backend's learning."""

    def __init__(
        self,
        cfg: SharedOptions,
        run_dir: str,
        pool: OpponentPool,
        state: dict[str, Any],
        learner: Learner,
        printer=print,
        eval_workers: int = 1,
    ) -> None:
        self.cfg, self.run_dir, self.pool, self.learner = cfg, run_dir, pool, learner
        #: Worker processes of the evaluation (the SB3 option eval_workers; 1: here).
        self.eval_workers = eval_workers
        #: Persistent run state (saved as latest/state.json): best score, time, steps.
        self.state = state
        self.printer = printer
        # Time spent here (evaluation, saving), not learning; the session's start.
        self.side_seconds, self._t0, self._steps_start = 0.0, time.perf_counter(), 0

    # -- the schedule ---------------------------------------------------------------

    def begin(self) -> None:
        """Learning starts (or resumes): the clock starts, and an evaluation if one is due."""
        self._t0 = time.perf_counter()
        self.side_seconds = 0.0
        self._steps_start = self.learner.steps()
        self._final_phase()
        if self.due(self.cfg.eval_every, "eval"):
            self._timed(self.evaluate)

    def periodic(self, final: bool = False) -> None:
        """After an update: a snapshot, an evaluation and a save where due; with ``final``
        (the last update) always an evaluation of the final steps and a save."""
        steps = self.learner.steps()
        self._final_phase()
        if self.due(self.cfg.snapshot_every, "snapshot") and steps > 0:
            self._timed(self.snapshot)
        if (self.due(self.cfg.eval_every, "eval") or final) and self._last("eval") != steps:
            self._timed(self.evaluate)
        if final or (self.due(self.cfg.save_every, "save") and steps > self._steps_start):
            self._timed(self.save_latest)

    def _final_phase(self) -> None:
        """From ``total_timesteps - final_steps`` on, the pool plays the baselines at
        ``final_baseline_weights`` (once; a resumed run past that point starts with them)."""
        cfg = self.cfg
        if cfg.final_baseline_weights is None or self.pool.baseline_weights == dict(
            cfg.final_baseline_weights
        ):
            return
        steps = self.learner.steps()
        if steps >= cfg.total_timesteps - cfg.final_steps:
            self.pool.set_baselines(cfg.final_baseline_weights)
            self.learner.pool_changed()
            weights = ", ".join(f"{k} {w:g}" for k, w in cfg.final_baseline_weights.items())
            self.printer(
                f"[{steps:,} steps] the last {cfg.final_steps:,} steps play the baselines "
                f"at final_baseline_weights: {weights}"
            )

    def due(self, every: int, key: str) -> bool:
        if every <= 0:
            return False
        last = self._last(key)
        return last is None or self.learner.steps() - last >= every

    def _last(self, key: str) -> int | None:
        return self.state.setdefault("last", {}).get(key)

    def _mark(self, key: str) -> None:
        self.state.setdefault("last", {})[key] = self.learner.steps()

    def _timed(self, work) -> None:
        t0 = time.perf_counter()
        work()
        self.side_seconds += time.perf_counter() - t0

    def wall_time(self) -> float:
        """Seconds of this run so far, earlier sessions of a resumed run included."""
        return self.state.get("wall_time_before_s", 0.0) + (time.perf_counter() - self._t0)

    def learning_seconds(self) -> float:
        """Seconds of this session spent learning (evaluation and saving left out)."""
        return time.perf_counter() - self._t0 - self.side_seconds

    # -- the work -------------------------------------------------------------------

    def snapshot(self) -> None:
        steps = self.learner.steps()
        label = f"snap-{steps:09d}"
        rel = os.path.join("snapshots", label + ".npz")
        network = self.learner.network()
        os.makedirs(os.path.join(self.run_dir, "snapshots"), exist_ok=True)
        with signals_held():
            save_policy(
                os.path.join(self.run_dir, rel),
                network,
                {"name": label, "training": {"steps": steps, "run": self.cfg.name}},
            )
        agent = PolicyAgent(
            network, {"name": label}, deterministic=self.cfg.snapshot_deterministic, name=label
        )
        self.pool.add_snapshot(label, rel, steps, agent)
        self.learner.added_snapshot(label, network)
        self._mark("snapshot")

    def evaluate(self) -> dict[str, Any]:
        cfg = self.cfg
        steps = self.learner.steps()
        t0 = time.perf_counter()
        # the actor as the run plays it (option play_symmetry)
        network = self.learner.network().with_symmetry(cfg.play_symmetry)
        agent = PolicyAgent(network, {"name": "learner"}, name="learner")
        figures = evaluate_agent(
            agent, cfg.eval_opponents, cfg.eval_deals, cfg.eval_seed, cfg.rules, self.eval_workers
        )
        self.learner.record_evaluation(steps, figures, time.perf_counter() - t0)
        record, is_best = log_evaluation(
            self.run_dir, self.state, steps, self.wall_time(), figures, cfg.best_metric
        )
        if is_best:
            best_dir = os.path.join(self.run_dir, "best")
            os.makedirs(best_dir, exist_ok=True)
            with signals_held():  # the model and its record together
                self.learner.save_model(best_dir, resumable=False)
                write_json(os.path.join(best_dir, "eval.json"), record)
        self._mark("eval")
        self.printer(eval_line(steps, self.wall_time(), figures, is_best))
        return record

    def save_latest(self) -> None:
        """``latest/``: the model and the state a resumed run reads, saved together (a
        Ctrl-C or SIGTERM is held until both are written, then handled)."""
        latest = os.path.join(self.run_dir, "latest")
        os.makedirs(latest, exist_ok=True)
        with signals_held():
            self.learner.save_model(latest, resumable=True)
            state = dict(self.state)
            state["steps"] = self.learner.steps()
            state["wall_time_s"] = self.wall_time()
            state["pool"] = self.pool.state()
            state.pop("wall_time_before_s", None)
            write_json(os.path.join(latest, "state.json"), state)
            self._mark("save")
