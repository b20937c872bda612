"""The evaluation log (eval.jsonl) is read bounded: regular files only, a size cap, no
traceback for a deeply nested line (issue 71: every file the project reads)."""

from __future__ import annotations

import os
import threading

import pytest

from sixtysix_training.common import plot_curve
from sixtysix_training.common.runs import RunFileError, copy_eval_log


def test_a_fifo_log_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "eval.jsonl"
    os.mkfifo(fifo)
    out = {}

    def read():
        try:
            plot_curve.read_log(str(fifo))
        except plot_curve.CurveError as e:
            out["error"] = str(e)

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), "reading a FIFO log blocked"
    assert "regular file" in out["error"]
    with pytest.raises(RunFileError, match="regular file"):
        copy_eval_log(str(tmp_path), str(tmp_path / "p.npz"))
    assert not (tmp_path / "p.eval.jsonl").exists()


def test_an_oversized_or_deeply_nested_log_is_refused_by_name(tmp_path, monkeypatch):
    log = tmp_path / "eval.jsonl"
    log.write_text('{"steps": 1, "against": {"random": 0.5}}\n' + "[" * 100_000 + "\n")
    with pytest.raises(plot_curve.CurveError, match="line 2: expected a JSON object nested"):
        plot_curve.read_log(str(log))
    monkeypatch.setattr(plot_curve, "MAX_EVAL_LOG_BYTES", 64)
    with pytest.raises(plot_curve.CurveError, match="is read up to 64"):
        plot_curve.read_log(str(log))


def test_a_good_log_is_copied_beside_the_policy(tmp_path):
    line = '{"steps": 1, "against": {"random": 0.5}}\n'
    (tmp_path / "eval.jsonl").write_text(line)
    out = copy_eval_log(str(tmp_path), str(tmp_path / "p.npz"))
    assert out == str(tmp_path / "p.eval.jsonl") and open(out).read() == line
    assert plot_curve.read_log(out)[0]["steps"] == 1
