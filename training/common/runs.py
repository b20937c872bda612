"""A training run's folder: its models, its config and the records beside them.

A run folder (``runs/NAME``) holds ``config.yaml``, ``summary.json``,
``best/`` and ``latest/`` (each a ``model.zip`` with its ``eval.json``), the
evaluation log ``eval.jsonl`` and, after distillation, ``distill.json``.

Its files are read bounded (:mod:`sixtysix_env.util.bounded`): only regular files (checked
before they are opened, and opened so that a FIFO cannot block), records of at most
:data:`MAX_RECORD_BYTES` that are JSON objects nested at most 32 levels, the saved state
(``latest/state.json``) checked field by field (:func:`read_run_state`); what cannot be
used is a :class:`RunFileError` naming the file.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shutil
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from sixtysix_env.util import bounded
from sixtysix_env.util.files import replaced
from sixtysix_env.util.files import write_json as write_json_whole

from ..config.loader import ConfigError, TrainConfig, config_from_dict, read_yaml_file
from .plot_curve import MAX_EVAL_LOG_BYTES

#: The most a run's JSON record (``state.json``, ``summary.json``, ``eval.json``,
#: ``distill.json``) may hold: each is a few kilobytes.
MAX_RECORD_BYTES = 1 << 20
#: The most snapshots a saved state may list (a pool keeps ``max_snapshots`` of them).
MAX_STATE_SNAPSHOTS = 1000


class RunFileError(ConfigError):
    """A file of a run folder that cannot be used: not a regular file, too large, not the
    JSON a run writes (the message names the file and what is allowed)."""


def find_model(path: str, which: str = "best") -> tuple[str, str | None]:
    """(model .zip, run folder or None) from a run folder or a model file."""
    if os.path.isdir(path):
        run_dir = path
        model = os.path.join(path, which, "model.zip")
        if which == "best" and not os.path.exists(model):
            model = os.path.join(path, "latest", "model.zip")
        if not os.path.exists(model):
            raise FileNotFoundError(
                f"no {which}/model.zip (nor latest/model.zip) in run folder {path!r}"
            )
        return model, run_dir
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path!r} is neither a run folder nor a model file")
    # runs/NAME/best/model.zip -> runs/NAME
    parent = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    return path, parent if os.path.exists(os.path.join(parent, "config.yaml")) else None


def snapshot_file(run_dir: str, steps: int) -> str:
    """The snapshot a run kept of its learner at ``steps`` learner steps
    (``snapshots/snap-STEPS.npz``, the file its opponent pool played); a missing one is
    refused naming the steps the run keeps."""
    folder = os.path.join(run_dir, "snapshots")
    path = os.path.join(folder, f"snap-{steps:09d}.npz")
    if os.path.isfile(path):
        return path
    kept = sorted(
        int(f[5:-4]) for f in (os.listdir(folder) if os.path.isdir(folder) else [])
        if re.fullmatch(r"snap-\d{9}\.npz", f)
    )
    listed = ", ".join(f"{k}" for k in kept) if kept else "none"
    raise FileNotFoundError(f"run folder {run_dir!r} keeps no snapshot at {steps} steps; "
                            f"the snapshots it keeps (steps): {listed}")


def write_json(path: str, data: Any) -> None:
    """Write a run record whole or not at all (a temporary file, then a rename)."""
    write_json_whole(path, data, sort_keys=True)


#: The signals :func:`signals_held` holds: Ctrl-C and SIGTERM.
HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def signals_held(deliver: bool = True) -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM until the block (a save) ends, then deliver them.

    A signal that arrives inside the block is noted, not acted on; when the block
    ends the previous handlers are put back and each signal noted is raised again
    (once), so it is handled as it would have been, only later: Ctrl-C raises
    :class:`KeyboardInterrupt`, SIGTERM under :func:`stopped_by_signals` raises
    :class:`Terminated` (exit status 130 or 143), a handler of the caller's runs.
    Without it a Ctrl-C inside torch's zip writer (``model.save``) came out as a
    ``RuntimeError`` from the writer: exit status 1, no save at the exit.

    With ``deliver`` false what arrived is dropped instead (the exit save: the stop
    under way ends the run anyway). Signal handlers can be set only in the main
    thread: in any other thread the block runs unguarded (Python runs a handler in
    the main thread alone, so a signal interrupts that thread, not the save). Blocks
    nest: an inner block hands what it held to the outer one, delivered at its end.
    """
    pending: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def hold(signum, frame):
        if signum not in pending:
            pending.append(signum)

    previous: dict[int, Any] = {}
    try:
        for signum in HELD_SIGNALS:
            handler = signal.getsignal(signum)
            if handler is not None:  # None: a handler set outside Python, left alone
                previous[signum] = signal.signal(signum, hold)
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in pending if deliver else ():
            if previous.get(signum) not in (None, signal.SIG_IGN):
                signal.raise_signal(signum)  # the handler put back runs now


def save_model_atomically(model, path: str) -> None:
    """``model.save(path)`` whole or not at all: a temporary file beside it, then a rename.

    A run stopped while saving keeps the previous file intact (SB3 writes the
    zip in place, so an interrupted save left a truncated ``model.zip`` that
    ``--resume`` refused, the previous one already gone). Ctrl-C and SIGTERM are
    held until the save is done (:func:`signals_held`), then handled.
    """
    with signals_held(), replaced(path) as tmp:
        model.save(tmp)


def log_evaluation(
    run_dir: str,
    state: dict[str, Any],
    steps: int,
    wall_time_s: float,
    figures: dict[str, dict[str, Any]],
    metric: str,
) -> tuple[dict[str, Any], bool]:
    """Append an evaluation to the run's ``eval.jsonl`` and keep the best score in ``state``.

    Returns (the record, whether it is the best so far); saving the best model is the
    caller's, since each training backend saves its own kind.
    """
    record = {"steps": steps, "wall_time_s": wall_time_s, "against": figures}
    with open(os.path.join(run_dir, "eval.jsonl"), "a", encoding="utf-8") as f:
        f.write(json.dumps(record, sort_keys=True) + "\n")
    score = figures[metric]["gp_per_hand"]
    best = state.get("best_score")
    is_best = best is None or score > best
    if is_best:
        state["best_score"], state["best_steps"] = score, steps
    return record, is_best


def resumable_run(run_dir: str, config: str | None) -> str:
    """``run_dir`` if ``--resume`` may continue it (a saved run, no other config given)."""
    if config:
        raise ConfigError("--resume reads the run's own config.yaml; leave out --config")
    if not os.path.lexists(os.path.join(run_dir, "latest", "state.json")):
        raise ConfigError(f"{run_dir!r} holds no saved run (latest/state.json is missing)")
    return run_dir


#: The file that marks a folder as a training run's: ``--force`` empties no other folder.
RUN_MARKER = ".sixtysix-run"
#: What a run folder made before the marker holds (``config.until-N.yaml`` too).
_RUN_ENTRIES = frozenset(
    {
        "config.yaml", "summary.json", "eval.jsonl", "progress.csv", "policy.npz",
        "policy.eval.jsonl", "distill.json", "best", "latest", "snapshots", "tb",
    }
)  # fmt: skip


def make_run_dir(run_dir: str) -> None:
    """Create the run folder (if needed) and mark it as a training run's."""
    os.makedirs(run_dir, exist_ok=True)
    marker = os.path.join(run_dir, RUN_MARKER)
    if not os.path.exists(marker):
        with open(marker, "w", encoding="utf-8") as f:
            f.write("A sixtysix training run folder: `sixtysix train --force` may empty it.\n")


def is_run_dir(run_dir: str) -> bool:
    """Whether ``run_dir`` is a training run's folder: marked, or (made before the marker)
    holding a config.yaml and nothing but what a run writes."""
    if os.path.isfile(os.path.join(run_dir, RUN_MARKER)):
        return True
    entries = os.listdir(run_dir)
    return "config.yaml" in entries and all(
        e in _RUN_ENTRIES or (e.startswith("config.until-") and e.endswith(".yaml"))
        for e in entries
    )


def resumed_config(args, load, train_part, fixed: Sequence[str]) -> tuple[str, Any]:
    """(run folder, its config with ``--set`` applied) for ``--resume``, both backends.

    ``load(path, overrides)`` reads a config, ``train_part(cfg)`` its shared options;
    a change of an option in ``fixed`` (what the saved model was built with) is refused.
    The config the run had so far is kept beside the new one as ``config.until-STEPS.yaml``.
    """
    run_dir = resumable_run(args.resume, args.config)
    path = os.path.join(run_dir, "config.yaml")
    old, new = train_part(load(path)), load(path, args.set)
    for key in fixed:
        a, b = getattr(old, key), getattr(train_part(new), key)
        if a != b:
            raise ConfigError(
                f"cannot change {key!r} when resuming ({a!r} -> {b!r}): the saved model "
                f"was built with it; start a new run instead (fixed on resume: {', '.join(fixed)})"
            )
    steps = read_run_state(run_dir).get("steps", 0)
    shutil.copy(path, os.path.join(run_dir, f"config.until-{steps}.yaml"))
    return run_dir, new


def clear_new_run_dir(run_dir: str, force: bool) -> None:
    """Refuse a new run into a folder that holds one, unless ``force`` (then empty it).

    ``force`` empties only a training run's folder (:func:`is_run_dir`): a config
    naming any other folder (``runs_dir: /``, ``name: ..``) is refused.
    """
    if os.path.exists(run_dir) and (not os.path.isdir(run_dir) or os.listdir(run_dir)):
        if not force:
            raise ConfigError(
                f"run folder {run_dir!r} exists; use --resume {run_dir} to continue it, "
                "--force to replace it, or --set name=OTHER"
            )
        if not os.path.isdir(run_dir) or os.path.islink(run_dir) or not is_run_dir(run_dir):
            raise ConfigError(
                f"--force empties only a training run folder, and {run_dir!r} is not one (no "
                f"{RUN_MARKER} file, and it holds other things than a run writes); remove or "
                "rename it yourself, or choose another name with --set name=OTHER"
            )
        shutil.rmtree(run_dir)


def read_json(path: str) -> dict:
    """A JSON record of the run, or ``{}`` when there is none (records are extras). One that
    is there but cannot be used is refused (:class:`RunFileError`, naming it): anything but
    a regular file, over :data:`MAX_RECORD_BYTES`, not UTF-8 JSON, not a JSON object, nested
    over 32 levels."""
    if not os.path.lexists(path):
        return {}
    value = bounded.read_json(path, f"run record {path!r}", MAX_RECORD_BYTES, RunFileError)
    if not isinstance(value, dict):
        raise RunFileError(f"run record {path!r} is {type(value).__name__}, not a JSON object "
                           "as a run writes it")
    return value


def _natural(value: Any) -> bool:
    return type(value) is int and value >= 0


def _number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def _snapshot_ok(s: Any) -> bool:
    """A snapshot entry as a pool saves it: its label, its file under ``snapshots/``, steps."""
    path = s.get("path") if isinstance(s, dict) else None
    return (isinstance(path, str) and isinstance(s.get("label"), str) and _natural(s.get("steps"))
            and path.replace("\\", "/").startswith("snapshots/") and path.endswith(".npz")
            and ".." not in path.replace("\\", "/").split("/") and len(path) < 256)


def _pool_ok(pool: Any) -> bool:
    """The pool's saved state (:meth:`~.pool.OpponentPool.state`)."""
    if not isinstance(pool, dict):
        return False
    snaps, rng = pool.get("snapshots", []), pool.get("rng", [3, [0], None])
    return (isinstance(snaps, list) and len(snaps) <= MAX_STATE_SNAPSHOTS
            and all(_snapshot_ok(s) for s in snaps)
            and isinstance(rng, list) and len(rng) == 3 and type(rng[0]) is int
            and isinstance(rng[1], list) and 0 < len(rng[1]) <= 1000
            and all(type(n) is int for n in rng[1]) and (rng[2] is None or _number(rng[2])))


#: The saved state's fields (both backends'), each with what it must be.
_STATE_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "steps": (_natural, "a whole number of steps, at least 0"),
    "wall_time_s": (lambda v: _number(v) and v >= 0, "a number of seconds, at least 0"),
    "best_score": (lambda v: v is None or _number(v), "a number or null"),
    "best_steps": (lambda v: v is None or _natural(v), "a whole number of steps or null"),
    "last": (lambda v: isinstance(v, dict) and all(_natural(n) for n in v.values()),
             "an object of step counts"),
    "pool": (_pool_ok, ("the pool's record: snapshots (label, path under snapshots/, steps; "
                        f"at most {MAX_STATE_SNAPSHOTS}) and its generator's state")),
    "slots": (lambda v: isinstance(v, dict), "an object"),
    "league_version": (_natural, "a whole number, at least 0"),
}


def read_run_state(run_dir: str) -> dict[str, Any]:
    """The saved state of a run (``latest/state.json``), read bounded (:func:`read_json`)
    and checked field by field (``steps`` a whole number, ``pool`` its record, ...): a
    :class:`RunFileError` naming the file and the field otherwise."""
    path = os.path.join(run_dir, "latest", "state.json")
    if not os.path.lexists(path):
        raise RunFileError(f"{run_dir!r} holds no saved run (latest/state.json is missing)")
    state = read_json(path)
    for key, (ok, allowed) in _STATE_FIELDS.items():
        if key in state and not ok(state[key]):
            raise RunFileError(f"run state {path!r}: {key} {state[key]!r:.80} is not {allowed}")
    return state


def run_config(run_dir: str, warn_as: str = "sixtysix export") -> TrainConfig | None:
    """The run's config, or None (with a warning) when it no longer checks. A config.yaml
    that cannot be read at all (not a regular file, too large) is a :class:`ConfigError`."""
    path = os.path.join(run_dir, "config.yaml")
    values = read_yaml_file(path)
    try:
        return config_from_dict(values or {}, path)
    except ConfigError as e:
        print(f"{warn_as}: warning: {e}; the config is left out", file=sys.stderr)
        return None


def distillation(run_dir: str | None) -> dict | None:
    """The run's distillation record (``python -m research.distill fit``), if it has one."""
    if run_dir is None:
        return None
    rec = read_json(os.path.join(run_dir, "distill.json"))
    return rec or None


def eval_log_path(policy_path: str) -> str:
    """Where a policy's evaluation log goes: ``NAME.npz`` -> ``NAME.eval.jsonl``."""
    return policy_path.removesuffix(".npz") + ".eval.jsonl"


def copy_eval_log(run_dir: str, policy_path: str) -> str | None:
    """Copy the run's ``eval.jsonl`` beside the policy; the copy's path, or None if it has none."""
    log = os.path.join(run_dir, "eval.jsonl")
    if not os.path.lexists(log):
        return None
    raw = bounded.read_bounded(log, f"the run's evaluation log {log!r}", MAX_EVAL_LOG_BYTES,
                               "an evaluation log is read up to", RunFileError)
    out = eval_log_path(policy_path)
    with replaced(out) as tmp, open(tmp, "wb") as f:
        f.write(raw)
    return out


class Terminated(KeyboardInterrupt):
    """SIGTERM during learning: handled like Ctrl-C (``latest`` saved), exit status 143."""


@contextlib.contextmanager
def stopped_by_signals(
    save_latest: Callable[[], None],
    steps: Callable[[], int | None],
    run_dir: str,
    printer: Callable[[str], None],
) -> Iterator[None]:
    """SIGTERM handled like Ctrl-C while learning, on both backends: the latest model and
    state are saved (whole: a signal during any save is held until it is done, and a
    second one during this exit save is dropped), then the interruption goes on up;
    the commands turn it into the conventional exit status (130 for Ctrl-C, 143 for
    SIGTERM). ``steps()`` is None before learning has started (nothing is saved then)."""

    def on_sigterm(signum, frame):
        raise Terminated()

    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, on_sigterm) if in_main else None
    try:
        yield
    except KeyboardInterrupt as e:
        done = steps()
        if done is not None:
            what = "SIGTERM" if isinstance(e, Terminated) else "interrupted"
            printer(f"{what}: saving the latest model at {done:,} steps")
            with signals_held(deliver=False):  # a second Ctrl-C: this stop is under way
                save_latest()
            printer(f"saved; resume with: sixtysix train --resume {run_dir}")
        raise
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)


def replace_dir(new: str, path: str) -> None:
    """Put the complete folder ``new`` at ``path``, keeping the previous one at
    ``path + ".old"`` until the new one is in place (:func:`existing_dir` finds it if a
    stop falls between the two renames)."""
    old = path + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.exists(path):
        os.replace(path, old)
    os.replace(new, path)
    shutil.rmtree(old, ignore_errors=True)


def existing_dir(path: str) -> str:
    """``path``, or the previous folder :func:`replace_dir` kept if a stop left only it."""
    if not os.path.exists(path) and os.path.isdir(path + ".old"):
        return path + ".old"
    return path
