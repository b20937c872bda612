"""``sixtysix export RUN --snapshot STEPS``: a snapshot a run kept of its learner (what its
pool played) written as a policy file with the run's record, as ``--which best`` writes the
best model; bad requests are refused before any work, naming what is allowed."""

from __future__ import annotations

import numpy as np
import pytest

from sixtysix_env.cli import main
from sixtysix_env.policy import read_policy, save_policy
from sixtysix_env.policy.network import PolicyNetwork

STEPS = 2_019_328


def _run_folder(tmp_path, backend: str = "sb3"):
    run = tmp_path / "run"
    (run / "snapshots").mkdir(parents=True)
    (run / "config.yaml").write_text(
        f"backend: {backend}\nname: run\nrules: schnapsen-vu\nnet_arch: [16, 16]\n",
        encoding="utf-8")
    (run / "summary.json").write_text("{}", encoding="utf-8")
    rng = np.random.default_rng(0)
    sizes = (349, 16, 16, 34)
    net = PolicyNetwork([rng.normal(0, 0.1, (a, b)).astype(np.float32)
                         for a, b in zip(sizes, sizes[1:])],
                        [np.zeros(b, np.float32) for b in sizes[1:]], "relu")
    save_policy(run / "snapshots" / f"snap-{STEPS:09d}.npz", net,
                {"name": "snap", "training": {"steps": STEPS, "run": "run"}})
    return run, net


@pytest.mark.parametrize("how, message", [
    (["--snapshot", "-5"], "learner steps >= 0"),
    (["--snapshot", "10", "--format", "onnx"], "convert it after"),
])
def test_bad_snapshot_requests_are_refused_before_any_work(tmp_path, capsys, how, message):
    run, _ = _run_folder(tmp_path)
    out = tmp_path / ("p.onnx" if "onnx" in how else "p.npz")
    assert main(["export", str(run), "-o", str(out), *how]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_a_snapshot_needs_a_run_folder_of_the_sb3_backend(tmp_path, capsys):
    run, _ = _run_folder(tmp_path)
    model = run / "snapshots" / f"snap-{STEPS:09d}.npz"
    assert main(["export", str(model), "--snapshot", str(STEPS), "-o", "p.npz"]) == 2
    assert "takes a run folder" in capsys.readouterr().err
    rllib, _ = _run_folder(tmp_path / "r", backend="rllib")
    assert main(["export", str(rllib), "--snapshot", str(STEPS), "-o", "p.npz"]) == 2
    assert "built for SB3 runs" in capsys.readouterr().err


def test_a_missing_snapshot_names_the_kept_steps(tmp_path, capsys):
    run, _ = _run_folder(tmp_path)
    out = tmp_path / "p.npz"
    assert main(["export", str(run), "--snapshot", "1000", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "no snapshot at 1000 steps" in err and str(STEPS) in err
    assert not out.exists()


@pytest.mark.slow  # the training record names torch's and SB3's versions (imports torch)
def test_the_snapshot_is_written_with_the_run_s_record(tmp_path, capsys):
    pytest.importorskip("sb3_contrib", reason="the [train] extra")
    run, net = _run_folder(tmp_path)
    out = tmp_path / "p.npz"
    assert main(["export", str(run), "--snapshot", str(STEPS), "-o", str(out), "--name", "p",
                 "--eval-deals", "0"]) == 0
    assert f"{STEPS} training steps" in capsys.readouterr().out
    got, meta = read_policy(out)
    assert meta["name"] == "p" and meta["rule_preset"] == "schnapsen-vu"
    assert meta["training"]["steps"] == STEPS
    assert meta["training"]["snapshot"] == f"snapshots/snap-{STEPS:09d}.npz"
    assert meta["training"]["config"]["rules"] == "schnapsen-vu"
    for a, b in zip(got.weights + got.biases, net.weights + net.biases):
        assert np.array_equal(a, b)
