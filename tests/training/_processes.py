"""Helpers for the training tests: signalling training commands, what a run folder holds,
and the check that a network renames its logits with the suits."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable

import numpy as np

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


def check_exported_as_evaluated(
    run_dir: str, exported: str, symmetry: str | None, other_differs: bool = True
) -> None:
    """The file ``exported`` from ``run_dir`` is the policy the run evaluated (option
    ``play_symmetry``): its network carries ``symmetry``, and played on the run's evaluation
    deals it scores exactly the figures of the run's best evaluation, which (with
    ``other_differs``) the same weights without the symmetry (or with it) do not."""
    import json
    import os

    from sixtysix_env.policy import PolicyAgent, read_policy
    from sixtysix_training.common.figures import evaluate_agent

    net, meta = read_policy(exported)
    assert net.symmetry == symmetry
    cfg = meta["training"]["config"]
    assert cfg["play_symmetry"] == symmetry
    with open(os.path.join(run_dir, "best", "eval.json"), encoding="utf-8") as f:
        record = json.load(f)["against"]
    deals = {f["paired_deals"] for f in record.values()}.pop()

    def scores(network):
        agent = PolicyAgent(network, {"name": "learner"}, name="learner")
        got = evaluate_agent(agent, list(record), deals, cfg["eval_seed"], cfg["rules"])
        return {opp: f["gp_per_hand"] for opp, f in got.items()}

    assert scores(net) == {opp: f["gp_per_hand"] for opp, f in record.items()}
    if not other_differs:
        return
    other = net.with_symmetry(None if symmetry else "suits")
    assert scores(other) != scores(net), "these deals do not tell the two policies apart"


def check_renames_with_the_suits(
    logits: Callable[[np.ndarray], np.ndarray], obs: np.ndarray, atol: float = 1e-4
) -> np.ndarray:
    """For every one of the 24 renamings of the suits, ``logits`` of the renamed positions,
    read back through the renaming's action map, are ``logits(obs)`` (an actor that cannot
    tell the suits apart); returns ``logits(obs)``."""
    from sixtysix_env.policy.network import suit_tables

    obs_maps, action_maps = suit_tables()  # the environment's own tables, identity first
    base = logits(obs)
    for obs_map, action_map in zip(obs_maps, action_maps):
        np.testing.assert_allclose(logits(obs[:, obs_map])[:, action_map], base, atol=atol)
    return base
