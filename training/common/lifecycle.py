"""A training run's life, the same on both backends: opening it, when to snapshot, evaluate
and save, and closing it.

:func:`run_session` is a whole ``sixtysix train`` session on a backend
(:class:`Backend`): ``--list-options``, opening the run (:func:`open_run`: a new
run's folder, or a resumed run's config with ``--set`` applied; the resolved
``config.yaml``), the "training ..." line, the backend's learning, and the exit
status (130 after Ctrl-C, 143 after SIGTERM: the latest model saved). The
backend closes a run with :func:`close_run` (``summary.json``, the export of the
best model as ``policy.npz``, the "done:" line).

:class:`RunLifecycle` keeps the schedule (``snapshot_every``, ``eval_every``,
``save_every``, counted in the learner's steps), evaluates the learner on
paired deals against the configured opponents, keeps the best model, adds
snapshots to the opponent pool, and saves ``latest/`` with the state a
resumed run needs (``state.json``); Ctrl-C and SIGTERM wait until a save is
done (:func:`~.runs.signals_held`). It asks its backend only for what
differs (:class:`Learner`): the step count, the learner's actor as a numpy
network, how to save its model into a folder, and where its charts go.

The SB3 backend drives it from its callback (``training/sb3/callbacks.py``), the
RLlib backend from its loop (``training/rllib/train.py``): both call
:meth:`RunLifecycle.begin` once, then :meth:`RunLifecycle.periodic` after
every update (``final=True`` after the last).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from sixtysix_env.policy import PolicyAgent, PolicyNetwork, save_policy
from sixtysix_env.util.machine import machine

from ..config.loader import (
    FIXED_ON_RESUME,
    ConfigError,
    RunConfig,
    SharedOptions,
    describe_options,
    load_config,
    save_config,
)
from .figures import eval_line, evaluate_agent
from .pool import OpponentPool
from .runs import (
    Terminated,
    clear_new_run_dir,
    log_evaluation,
    make_run_dir,
    resumed_config,
    signals_held,
    write_json,
)


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


# -- the session: opening and closing a run, both backends ---------------------------


class Backend(Protocol):
    """What a training backend gives a ``sixtysix train`` session."""

    #: The config's ``backend`` key (``sb3``, ``rllib``).
    name: str
    #: Options a resumed run cannot change on this backend, beyond :data:`FIXED_ON_RESUME`.
    fixed_on_resume: tuple[str, ...]
    #: Whether ``--reset-best`` (with ``--resume``) is supported.
    resets_best: bool
    #: Errors that mean nothing was trained (a new run's folder is removed, exit status 2).
    start_errors: tuple[type[BaseException], ...]

    def check_new(self, cfg: Any) -> None:
        """A :class:`ConfigError` for a new run's config the backend cannot start."""

    def check_resume(self, run_dir: str) -> None:
        """A :class:`ConfigError` for a saved run the backend cannot resume."""

    def start_line(self, cfg: Any, run_dir: str) -> str:
        """The "training ..." line that opens the run's log."""

    def train(self, cfg: Any, run_dir: str, resume: bool, printer, reset_best: bool) -> dict:
        """Learn, then close the run (:func:`close_run`); its summary."""

    def error_text(self, error: BaseException) -> str:
        """The message of one of :attr:`start_errors`."""


def run_start_line(shared: Any, games: str, run_dir: str, on: str = "") -> str:
    """A backend's :meth:`Backend.start_line`: ``"training NAME{on}: STEPS steps, {games},
    NETWORK, seed SEED; run folder RUN_DIR"`` from the config's ``shared`` options."""
    return (
        f"training {shared.name}{on}: {shared.total_timesteps:,} steps, {games}, "
        f"{shared.network_text}, seed {shared.seed}; run folder {run_dir}"
    )


def open_run(args: argparse.Namespace, backend: Backend) -> tuple[RunConfig, str]:
    """(config, run folder) of the run ``args`` ask for: ``--resume RUN_DIR`` (its config with
    ``--set`` applied; a change of what the saved model was built with is refused) or a new
    run (``--config`` and ``--set``; its folder refused if it holds a run, unless ``--force``).
    The folder is made and marked, and the resolved config saved in it as ``config.yaml``."""

    def load(path: str | None, overrides: list[str] | None = None) -> Any:
        return load_config(path, overrides, backend=backend.name)

    if args.resume:
        fixed = (*FIXED_ON_RESUME, *backend.fixed_on_resume)
        run_dir, cfg = resumed_config(args, load, lambda c: c.shared, fixed)
        backend.check_resume(run_dir)
    else:
        cfg = load(args.config, args.set)
        backend.check_new(cfg)
        run_dir = new_run_dir(cfg, args.run_dir, args.force)
    return start_run(cfg, run_dir), run_dir


def new_run_dir(cfg: RunConfig, run_dir: str | None, force: bool) -> str:
    """A new run's folder: ``run_dir``, else ``runs_dir/name``; refused if it holds a run,
    unless ``force`` (then emptied; only a run's folder is)."""
    run_dir = run_dir or os.path.join(cfg.shared.runs_dir, cfg.shared.name)
    clear_new_run_dir(run_dir, force)
    return run_dir


def start_run(
    cfg: RunConfig, run_dir: str, prepare: Callable[[str], RunConfig] | None = None
) -> RunConfig:
    """The run's folder made and marked, and the resolved config saved in it as
    ``config.yaml`` (every run opens so: ``sixtysix train``, ``sixtysix exploit``);
    ``prepare(run_dir)``, where given, first writes what the config will name into the
    folder and gives that config. The config saved."""
    make_run_dir(run_dir)
    if prepare is not None:
        cfg = prepare(run_dir)
    save_config(cfg, os.path.join(run_dir, "config.yaml"))
    return cfg


def _refusal(args: argparse.Namespace, backend: Backend) -> str | None:
    """Why the command line cannot run on this backend, or None."""
    if args.reset_best and not backend.resets_best:
        return f"--reset-best is not supported by the {backend.name} backend"
    if args.reset_best and not args.resume:
        return "--reset-best only applies with --resume"
    return None


def run_session(args: argparse.Namespace, backend: Backend) -> int:
    """``sixtysix train`` on ``backend``, from the options listing to the exit status: 0 when
    done, 2 for a config or command line that cannot run, 130 after Ctrl-C and 143 after
    SIGTERM (the latest model saved: ``--resume`` continues it)."""
    if args.list_options:
        print(describe_options(backend.name))
        return 0
    refusal = _refusal(args, backend)
    try:
        if refusal:
            raise ConfigError(refusal)
        cfg, run_dir = open_run(args, backend)
    except ConfigError as e:
        print(f"sixtysix train: {e}", file=sys.stderr)
        return 2
    print(backend.start_line(cfg, run_dir), flush=True)
    try:
        backend.train(
            cfg, run_dir, bool(args.resume), lambda s: print(s, flush=True), args.reset_best
        )
    except Terminated:
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    except backend.start_errors as e:
        if not args.resume:  # nothing trained: leave no half-made run folder behind
            shutil.rmtree(run_dir, ignore_errors=True)
        print(backend.error_text(e), file=sys.stderr)
        return 2
    return 0


@dataclass
class Session:
    """How a training session went, in the figures both backends measure."""

    #: The run's steps at the end (earlier sessions included).
    steps: int
    #: The learner's steps in this session.
    steps_this_session: int
    #: The run's seconds so far: earlier sessions, cloning and this session's learning.
    wall_time_s: float
    #: This session's learning, evaluation and saving included.
    learn_wall_time_s: float
    #: This session's learning alone (evaluation and saving left out).
    learning_seconds: float


def run_summary(
    cfg: RunConfig, state: dict[str, Any], session: Session, extras: dict[str, Any]
) -> dict[str, Any]:
    """A run's ``summary.json``: the same keys on both backends (the backend, the run, its
    steps, time and speed, the best score, the cloning's figures, the machine), then the
    backend's ``extras`` (which may not redefine a shared key)."""
    s, n = cfg.shared, session.steps_this_session
    summary: dict[str, Any] = {
        "backend": cfg.backend,
        "run": s.name,
        "steps": session.steps,
        "steps_this_session": n,
        "wall_time_s": session.wall_time_s,
        "learn_wall_time_s": session.learn_wall_time_s,
        "learning_seconds": session.learning_seconds,
        "steps_per_s": n / session.learning_seconds if n and session.learning_seconds > 0 else None,
        "steps_per_s_with_eval": (
            n / session.learn_wall_time_s if n and session.learn_wall_time_s > 0 else None
        ),
        "best_score": state.get("best_score"),
        "best_steps": state.get("best_steps"),
        "best_metric": s.best_metric,
        "bc": state.get("bc"),
        "machine": machine(),
        "torch_threads": s.torch_threads,
    }
    clash = sorted(set(summary) & set(extras))
    if clash:
        raise ValueError(f"a backend's summary extras redefine shared keys: {', '.join(clash)}")
    return {**summary, **extras}


def close_run(
    cfg: RunConfig,
    run_dir: str,
    summary: dict[str, Any],
    export: Callable[[], None],
    printer=print,
) -> None:
    """Write the summary (:func:`run_summary`), export the best model as ``policy.npz``
    (``export()``, the backend's), and say how the run went (the "done:" line)."""
    with signals_held():  # a Ctrl-C here waits for the summary and the export
        write_json(os.path.join(run_dir, "summary.json"), summary)
        export()
    if summary["steps_per_s"]:
        printer(
            f"done: {summary['steps']:,} steps; learning {summary['steps_per_s']:,.0f} steps/s "
            f"({1e6 / summary['steps_per_s'] / 60:.1f} min per million steps), "
            f"{summary['steps_per_s_with_eval']:,.0f} steps/s with evaluation; "
            f"best gp/hand vs {cfg.shared.best_metric} {summary['best_score']:+.3f} at "
            f"{summary['best_steps']:,} steps"
        )
    printer(f"run folder: {run_dir} (policy.npz = the best model, exported)")
