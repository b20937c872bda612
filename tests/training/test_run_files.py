"""A run folder's files are read bounded (issue 71, item 4): only regular files, checked
before they are opened (a FIFO never blocks the reader), records of bounded size that are
JSON objects nested a few levels, the saved state checked field by field; what cannot be
used is an error naming the file, never a traceback or a hang."""

from __future__ import annotations

import json
import os
import threading

import pytest

from sixtysix_env.util.bounded import read_bounded
from sixtysix_training.common.runs import (
    MAX_RECORD_BYTES,
    RunFileError,
    read_json,
    read_run_state,
    run_config,
)
from sixtysix_training.config.loader import ConfigError, read_config_values

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


def _returns(call, *args):
    """``call(*args)``'s result or exception, from a thread given ten seconds: a reader that
    blocks on a FIFO fails the test instead of hanging it (the thread is left behind)."""
    out: dict = {}

    def target():
        try:
            out["value"] = call(*args)
        except Exception as e:  # noqa: BLE001  handed to the test
            out["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), f"{call.__name__} blocked on {args}"
    if "error" in out:
        raise out["error"]
    return out["value"]


def _run(tmp_path, state=None) -> str:
    run = tmp_path / "run"
    (run / "latest").mkdir(parents=True)
    (run / "config.yaml").write_text("seed: 3\n")
    if state is not None:
        text = state if isinstance(state, str) else json.dumps(state)
        (run / "latest" / "state.json").write_text(text)
    return str(run)


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ("{not json", "is not JSON"),
        ("[1, 2]", "is list, not a JSON object"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"steps": ' + "[" * 34 + "1" + "]" * 34 + "}",
         "nests 35 levels deep; a record here nests at most 32"),
        ({"steps": 16, "pool": "snapshots"}, "pool 'snapshots' is not the pool's record"),
        ({"steps": -5}, "steps -5 is not a whole number of steps"),
        ({"steps": 1.5}, "steps 1.5 is not a whole number"),
        ({"steps": 16, "wall_time_s": "long"}, "wall_time_s 'long' is not a number"),
        ({"steps": 16, "best_score": float("nan")}, "best_score nan is not a number or null"),
        ({"pool": {"snapshots": [{"label": "a", "path": "../../secret.npz", "steps": 1}]}},
         "path under snapshots/"),
        ({"pool": {"snapshots": [{"label": "a", "path": "snapshots/a.npz"}]}}, "pool "),
        ({"pool": {"rng": [3, "x", None]}}, "pool "),
        ({"pool": {"snapshots": [{"label": "a", "path": "snapshots/a.npz", "steps": 1}] * 1001}},
         "at most 1000"),
        ({"last": {"eval": "soon"}}, "last .* is not an object of step counts"),
    ],
)
def test_a_saved_state_that_is_not_as_a_run_writes_it_is_refused(tmp_path, state, message):
    run = _run(tmp_path, state)
    with pytest.raises(RunFileError, match=message) as e:
        read_run_state(run)
    assert os.path.join(run, "latest", "state.json") in str(e.value)


def test_a_saved_state_as_a_run_writes_it_is_read(tmp_path):
    state = {"steps": 16, "wall_time_s": 2.5, "best_score": -0.25, "best_steps": 16,
             "last": {"eval": 16, "save": 16},
             "pool": {"snapshots": [{"label": "snap-1", "path": "snapshots/snap-1.npz",
                                     "steps": 1}], "rng": [3, list(range(625)), None]}}
    assert read_run_state(_run(tmp_path, state)) == state


def test_resume_refuses_a_bad_state_naming_it(tmp_path, capsys):
    from sixtysix_env.cli import main

    run = _run(tmp_path, {"steps": 16, "pool": "snapshots"})
    assert main(["train", "--resume", run]) == 2
    err = capsys.readouterr().err
    assert "state.json" in err and "pool 'snapshots'" in err and "Traceback" not in err


@needs_fifo
@pytest.mark.parametrize("name", ["summary.json", "best/eval.json", "latest/state.json",
                                  "distill.json"])
def test_a_fifo_record_is_refused_without_blocking(tmp_path, name):
    run = _run(tmp_path)
    os.makedirs(os.path.join(run, "best"), exist_ok=True)
    path = os.path.join(run, name)
    os.mkfifo(path)
    with pytest.raises(RunFileError, match="is not a regular file") as e:
        _returns(read_json, path)
    assert path in str(e.value)


@needs_fifo
def test_a_fifo_config_is_refused_without_blocking(tmp_path):
    run = _run(tmp_path)
    os.remove(os.path.join(run, "config.yaml"))
    os.mkfifo(os.path.join(run, "config.yaml"))
    with pytest.raises(ConfigError, match="config.yaml' is not a regular file"):
        _returns(run_config, run)
    with pytest.raises(ConfigError, match="config.yaml' is not a regular file"):
        _returns(read_config_values, os.path.join(run, "config.yaml"))


@needs_fifo
def test_export_of_a_run_with_a_fifo_summary_says_so(tmp_path, capsys):
    from sixtysix_env.cli import main

    run = _run(tmp_path)
    (tmp_path / "run" / "best").mkdir()
    (tmp_path / "run" / "best" / "model.zip").write_bytes(b"PK")
    os.mkfifo(os.path.join(run, "summary.json"))
    out = str(tmp_path / "p.npz")
    assert _returns(main, ["export", run, "-o", out, "--eval-deals", "0"]) == 1
    err = capsys.readouterr().err
    assert "summary.json' is not a regular file" in err
    assert not os.path.exists(out)


def test_a_device_or_a_large_record_is_refused_unread(tmp_path):
    if os.path.exists("/dev/zero"):
        os.symlink("/dev/zero", tmp_path / "summary.json")
        with pytest.raises(RunFileError, match="is not a regular file"):
            read_json(str(tmp_path / "summary.json"))
    big = tmp_path / "eval.json"
    big.write_bytes(b" " * (MAX_RECORD_BYTES + 1))
    with pytest.raises(RunFileError, match=f"is {MAX_RECORD_BYTES + 1} bytes"):
        read_json(str(big))


def test_a_missing_record_is_empty_and_a_bad_config_is_a_config_error(tmp_path):
    assert read_json(str(tmp_path / "summary.json")) == {}
    run = _run(tmp_path)
    (tmp_path / "run" / "config.yaml").write_text("seed: [1\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        run_config(run)


def test_the_bounded_reader_reads_no_more_than_its_bound(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert read_bounded(path, "f", 10, "at most", ValueError) == b"x" * 10
    with pytest.raises(ValueError, match="f is 10 bytes; at most 9"):
        read_bounded(path, "f", 9, "at most", ValueError)
