"""``final_baseline_weights`` / ``final_steps``: the pool's baselines for the run's last steps.

The switch lives in the lifecycle both backends share (``training/common/lifecycle.py``); the
RLlib backend's own checks and run are in ``test_rllib.py``.
"""

from __future__ import annotations

import csv
import importlib.util
import os

import pytest

# A check, not an import: collecting the fast lane imports neither SB3 nor torch.
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None, reason="the [train] extra is not installed"
)
pytest.importorskip("msgspec")  # the config's own needs (the [train] extra), light to import
pytest.importorskip("yaml")

from sixtysix_training.common.lifecycle import RunLifecycle  # noqa: E402
from sixtysix_training.common.pool import OpponentPool  # noqa: E402
from sixtysix_training.config.loader import ConfigError, load_config  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
with open(os.path.join(ROOT, "configs", "tiny.yaml"), encoding="utf-8") as _f:
    TINY = _f.read()


@pytest.mark.parametrize(
    "text, message",
    [
        ("final_steps: 100\n", "options 'final_steps' \\(100\\) and 'final_baseline_weights' \\(null\\) go together"),
        ("final_baseline_weights: {random: 1.0}\n", "give both \\(steps > 0 and the weights\\), or neither"),
        ("final_steps: -1\nfinal_baseline_weights: {random: 1.0}\n", "'final_steps' got -1; it must not be negative"),
        ("final_steps: 10\nfinal_baseline_weights: {random: -1.0}\n", "'final_baseline_weights' got .*must not be negative"),
        ("final_steps: 10\nfinal_baseline_weights: {random: 0.0}\n", "'final_baseline_weights' needs at least one opponent"),
        ("final_steps: 10\nfinal_baseline_weights: {random: .nan}\n", "'final_baseline_weights' got .*must be finite"),
        ("final_steps: 10\nfinal_baseline_weights: [random]\n", "'final_baseline_weights' must be mapping"),
    ],
)  # fmt: skip
def test_config_errors_name_the_option(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_config(str(path))


class _Learner:
    """The lifecycle's view of a backend, with the step count set by the test."""

    def __init__(self) -> None:
        self.n, self.changes = 0, 0

    def steps(self) -> int:
        return self.n

    def pool_changed(self) -> None:
        self.changes += 1


def _lifecycle(tmp_path, learner, steps_left_at_the_end=300):
    cfg = load_config(
        None,
        [
            "total_timesteps=1000",
            f"final_steps={steps_left_at_the_end}",
            "baseline_weights={heuristic: 1.0}",
            "final_baseline_weights={random: 0.25, heuristic: 0.75}",
            "eval_every=0",
            "snapshot_every=0",
            "save_every=0",
        ],
    )
    pool = OpponentPool.from_config(cfg.shared)
    lines: list[str] = []
    life = RunLifecycle(cfg.shared, str(tmp_path), pool, {}, learner, lines.append)
    return life, pool, lines


def test_the_pool_takes_the_final_weights_once_from_the_switch_on(tmp_path):
    learner = _Learner()
    life, pool, lines = _lifecycle(tmp_path, learner)
    life.begin()
    for n in (256, 512, 699):
        learner.n = n
        life.periodic()
        assert [label for _, label, _ in pool.weights()] == ["heuristic"]
    assert learner.changes == 0 and not lines
    learner.n = 700  # total_timesteps - final_steps
    life.periodic()
    assert [(round(p, 2), label) for p, label, _ in pool.weights()] == [
        (0.25, "random"),
        (0.75, "heuristic"),
    ]
    assert learner.changes == 1
    assert lines == [
        "[700 steps] the last 300 steps play the baselines at final_baseline_weights: "
        "random 0.25, heuristic 0.75"
    ]
    heuristic = pool.baselines["heuristic"]
    for n in (900, 1000):
        learner.n = n
        life.periodic()
    assert learner.changes == 1 and len(lines) == 1
    assert pool.baselines["heuristic"] is heuristic  # the agent made at the start is kept
    # the games follow the new weights
    drawn = [pool.sample()[0] for _ in range(4000)]
    assert 0.22 < drawn.count("random") / 4000 < 0.28


def test_a_run_resumed_past_the_switch_starts_with_the_final_weights(tmp_path):
    learner = _Learner()
    learner.n = 800
    life, pool, lines = _lifecycle(tmp_path, learner)
    life.begin()
    assert {label for _, label, _ in pool.weights()} == {"random", "heuristic"}
    assert learner.changes == 1 and lines[0].startswith("[800 steps] the last 300 steps")


def test_an_unknown_final_baseline_fails_when_the_pool_is_made():
    from sixtysix_env.agents import AgentSpecError

    cfg = load_config(None, ["final_steps=10", "final_baseline_weights={expret: 1.0}"])
    with pytest.raises(AgentSpecError, match="unknown agent 'expret'"):
        OpponentPool.from_config(cfg.shared)


def _csv_rows(path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.mark.slow  # a whole training run: the full suite, not the fast lane
def test_an_sb3_run_plays_the_final_baselines_at_the_end(tmp_path, capsys):
    """The tiny run against the heuristic alone, then random alone for its last 256 steps:
    the per-opponent returns show random only after the switch."""
    from sixtysix_env.cli import main

    cfg = tmp_path / "t.yaml"
    cfg.write_text(
        TINY.replace("bc_teacher: heuristic", "bc_teacher: null").replace(
            "eval_every: 256", "eval_every: 0"
        )
        + "baseline_weights: {heuristic: 1.0}\nrecent_weight: 0.0\nolder_weight: 0.0\n"
        "final_baseline_weights: {random: 1.0}\nfinal_steps: 256\n"
    )
    run = tmp_path / "run"
    assert main(["train", "--config", str(cfg), "--run-dir", str(run)]) == 0
    out = capsys.readouterr().out
    assert (
        "[256 steps] the last 256 steps play the baselines at final_baseline_weights: random 1"
        in out
    )
    rows = [r for r in _csv_rows(run / "progress.csv") if r["time/total_timesteps"]]
    assert [r["time/total_timesteps"] for r in rows] == ["256", "512"]
    # the first rollout's games were all against the heuristic; after the switch the new
    # games are against random (games begun before it finish against the heuristic)
    assert rows[0]["charts/return_vs_heuristic"] and not rows[0].get("charts/return_vs_random")
    assert rows[1]["charts/return_vs_random"]
    assert "final_steps: 256" in (run / "config.yaml").read_text()
