"""Helpers for tests that run training commands: signalling them, and what a run folder holds."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable

#: What every training run's folder holds, whichever the backend.
RUN_FOLDER = (
    ".sixtysix-run",
    "config.yaml",
    "progress.csv",
    "eval.jsonl",
    "summary.json",
    "policy.npz",
    "best/eval.json",
    "latest/state.json",
)


def sigterm_after_evaluations(
    proc: subprocess.Popen,
    evaluations: int,
    timeout: float,
    before: Callable[[], None] = lambda: None,
) -> str:
    """Read ``proc``'s output until it has printed ``evaluations`` evaluation lines, call
    ``before``, send SIGTERM and wait; all it printed. The process is killed if the test
    fails on the way."""
    try:
        deadline = time.monotonic() + timeout
        lines: list[str] = []
        while sum("eval gp/hand" in x for x in lines) < evaluations and time.monotonic() < deadline:
            lines.append(proc.stdout.readline())
        before()
        proc.send_signal(signal.SIGTERM)
        return "".join(lines) + proc.communicate(timeout=timeout)[0]
    finally:
        proc.kill()
