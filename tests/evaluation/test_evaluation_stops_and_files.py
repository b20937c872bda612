"""An evaluation stopped early (Ctrl-C, SIGTERM) keeps what it measured, and its --json file
is replaced only once the run has started, into a folder that exists."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys

import pytest

from sixtysix_env import evaluation
from sixtysix_env.evaluation import evaluate


class _StopsAt:
    """Plays randomly, and stops the run at its ``at``-th decision with ``stop()``."""

    def __init__(self, name, at, stop):
        self.name = name
        self.at = at
        self.stop = stop
        self.calls = 0

    def act(self, view, rng):
        self.calls += 1
        if self.calls == self.at:
            self.stop()
        legal = view.legal_actions()
        return legal[rng.randrange(len(legal))]


def _ctrl_c():
    raise KeyboardInterrupt


def _sigterm():
    os.kill(os.getpid(), signal.SIGTERM)


def test_ctrl_c_keeps_what_was_measured(tmp_path):
    path = tmp_path / "stopped.json"
    res = evaluate(["random", _StopsAt("quitter", 301, _ctrl_c)], deals=100, seed=0,
                   json_path=str(path))
    assert not res.complete and "interrupted" in res.stopped
    assert 0 < res.pairs[0].deals < 100
    assert json.loads(path.read_text())["pairs"][0]["deals"] == res.pairs[0].deals


def stale(path):
    path.write_text(json.dumps({"complete": True, "seed": 999, "pairs": []}))


def test_sigterm_midway_saves_the_partial_result(tmp_path):
    path = tmp_path / "run.json"
    stale(path)
    before = signal.getsignal(signal.SIGTERM)
    res = evaluate(["random", _StopsAt("sigterm", 300, _sigterm)], deals=100, seed=0,
                   json_path=str(path))
    assert not res.complete and res.stopped == "terminated (SIGTERM)"
    assert 0 < res.pairs[0].deals < 100
    data = json.loads(path.read_text())
    assert data["complete"] is False and data["seed"] == 0
    assert data["pairs"][0]["deals"] == res.pairs[0].deals
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is put back


@pytest.mark.parametrize("sig", ["int", "term"])
def test_interrupt_during_start_up_leaves_the_earlier_file(tmp_path, monkeypatch, sig, capsys):
    """The file is replaced only once the run has started; a stop
    before that (whenever it comes) leaves it as it was, and says so."""
    path = tmp_path / "run.json"
    stale(path)
    earlier = path.read_text()

    def interrupted(spec):
        if sig == "int":
            raise KeyboardInterrupt
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("SIGTERM did not arrive")  # pragma: no cover

    monkeypatch.setattr(evaluation.runner, "make_agent", interrupted)
    res = evaluate(["random", "heuristic"], deals=10, seed=1, json_path=str(path))
    assert not res.complete and res.stopped.endswith(evaluation.runner.NOT_STARTED)
    assert path.read_text() == earlier
    args = argparse.Namespace(agents=["random", "heuristic"], matches=None, hands=None, deals=10,
                              rules="altmisalti", seed=1, workers=1, json=str(path),
                              no_progress=True, plain=True)
    assert evaluation.run(args) == (130 if sig == "int" else 143)
    assert f"{path} is left as it was" in capsys.readouterr().err
    assert path.read_text() == earlier


def test_a_refused_run_keeps_the_earlier_result(tmp_path):
    """A refused command (a typo) keeps the earlier result."""
    path = tmp_path / "run.json"
    stale(path)
    earlier = path.read_text()
    with pytest.raises(ValueError, match="unknown agent"):
        evaluate(["random", "nobody"], deals=1, json_path=str(path))
    assert path.read_text() == earlier
    assert os.listdir(tmp_path) == ["run.json"]


class _Peeker:
    """Plays randomly; at its first decision, reads the JSON file the run writes."""

    name = "peeker"

    def __init__(self, path):
        self.path = path
        self.seen = None

    def act(self, view, rng):
        if self.seen is None:
            self.seen = json.loads(self.path.read_text())
        legal = view.legal_actions()
        return legal[rng.randrange(len(legal))]


def test_once_started_the_file_is_this_runs_at_once(tmp_path):
    """A run killed midway (SIGKILL, power) leaves its own incomplete record, never the old
    one; the record is replaced whole."""
    path = tmp_path / "run.json"
    stale(path)
    peeker = _Peeker(path)
    res = evaluate(["random", peeker], deals=3, seed=5, json_path=str(path))
    assert res.complete
    assert peeker.seen["seed"] == 5 and peeker.seen["complete"] is False
    assert peeker.seen["stopped"] == "started; no figures yet"
    assert json.loads(path.read_text())["complete"] is True
    assert os.listdir(tmp_path) == ["run.json"]  # no temporary file left


def test_run_exits_143_after_sigterm(monkeypatch, capsys):
    real = evaluate

    def fake(agents, **kw):
        return real(["random", _StopsAt("sigterm", 50, _sigterm)], **kw)

    monkeypatch.setattr(evaluation.cli, "evaluate", fake)
    args = argparse.Namespace(agents=["random", "random"], matches=None, hands=None, deals=20,
                              rules="altmisalti", seed=0, workers=1, json=None,
                              no_progress=True, plain=True)
    assert evaluation.run(args) == 143
    assert "terminated (SIGTERM)" in capsys.readouterr().err


def test_json_into_a_missing_folder_is_refused_before_playing(tmp_path):
    target = tmp_path / "missing" / "dir" / "x.json"
    with pytest.raises(ValueError, match="folder .*missing/dir.* does not exist"):
        evaluate(["random", "heuristic"], deals=1, json_path=str(target))
    assert not (tmp_path / "missing").exists()
    proc = subprocess.run(
        [sys.executable, "-m", "sixtysix_env.cli", "eval", "random", "heuristic", "--deals", "1",
         "--json", str(target), "--no-progress", "--plain"],
        check=False, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 2
    assert "does not exist" in proc.stderr and str(target.parent) in proc.stderr
    assert "gp/hand" not in proc.stdout  # nothing was played
    assert "estimate" not in proc.stderr  # nor timed for an estimate first
    assert not (tmp_path / "missing").exists()


def test_ctrl_c_while_a_command_loads_is_a_message_not_a_traceback(monkeypatch, capsys):
    from sixtysix_env import cli

    def interrupted(name):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.importlib, "import_module", interrupted)
    assert cli.main(["eval", "random", "heuristic"]) == 130
    err = capsys.readouterr().err
    assert "sixtysix eval: interrupted" in err and "Traceback" not in err
