"""Ctrl-C or SIGTERM during a save waits until the save is done.

A Ctrl-C that fell inside torch's zip writer (``model.save``) came out of the writer
as a ``RuntimeError``: ``sixtysix train`` exited 1 with no exit save. Saves now hold
the two signals until they are done (``sixtysix_training.common.runs.signals_held``), then
the run stops as it does for a signal anywhere else (130 or 143, the latest saved).
The signal is sent by the process to itself from inside the zip writer, in the main
thread, where Python runs its signal handlers.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import zipfile

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None, reason="the [train] extra is not installed"
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def signal_inside_the_zip_writer(monkeypatch):
    """``send(signum)``: the third write into a zip member from now (torch writing a
    ``.pth`` into the model's zip, as SB3's ``model.save`` does: the third is its
    middle) first sends ``signum`` to this process; what was sent is in ``send.sent``."""
    real = zipfile._ZipWriteFile.write
    armed: list[list] = []
    sent: list[int] = []

    def write(self, data):
        if armed:
            armed[0][1] -= 1
            if not armed[0][1]:
                signum = armed.pop()[0]
                sent.append(signum)
                os.kill(os.getpid(), signum)  # the handler runs here, inside the writer
        return real(self, data)

    monkeypatch.setattr(zipfile._ZipWriteFile, "write", write)

    def send(signum: int) -> None:
        armed.append([signum, 3])

    send.sent = sent
    return send


def interruption(work) -> BaseException | None:
    """What ``work()`` raised, KeyboardInterrupt included (caught: a test of old code
    fails instead of stopping pytest), or None."""
    try:
        work()
    except BaseException as e:  # noqa: BLE001 - returned to be checked
        return e
    return None


class TorchZipModel:
    """Saves as SB3 does: torch writes the weights into a member of a zip."""

    def __init__(self, value: float, on_save=lambda: None) -> None:
        self.value, self.on_save = value, on_save

    def save(self, path: str) -> None:
        import torch

        self.on_save()
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("data", json.dumps({"value": self.value}))
            with archive.open("policy.pth", mode="w", force_zip64=True) as f:
                torch.save({"w": torch.full((50_000,), self.value)}, f)


def saved_value(path) -> float:
    """The value a :class:`TorchZipModel` saved in ``path``, read back whole."""
    import io

    import torch

    with zipfile.ZipFile(path) as archive:
        value = json.loads(archive.read("data"))["value"]
        weights = torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)["w"]
    assert weights.shape == (50_000,) and bool((weights == value).all())
    return value


@pytest.mark.parametrize(
    "signum, stop", [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, "Terminated")]
)
def test_a_signal_inside_torchs_zip_writer_waits_for_the_save(
    signum, stop, tmp_path, signal_inside_the_zip_writer
):
    """The save is made whole, then the signal stops the run as it would anywhere else:
    Ctrl-C a KeyboardInterrupt, SIGTERM (under stopped_by_signals) Terminated, and the
    exit save is made; before the fix the writer turned it into a RuntimeError."""
    from sixtysix_training.common.runs import Terminated, save_model_atomically, stopped_by_signals

    stop = Terminated if stop == "Terminated" else stop
    path = tmp_path / "model.zip"
    save_model_atomically(TorchZipModel(1.0), str(path))
    exit_saves: list[int] = []
    lines: list[str] = []

    def exit_save():
        save_model_atomically(TorchZipModel(3.0), str(tmp_path / "latest.zip"))
        exit_saves.append(1)

    def periodic_save():
        with stopped_by_signals(exit_save, lambda: 7, str(tmp_path), lines.append):
            save_model_atomically(TorchZipModel(2.0), str(path))

    signal_inside_the_zip_writer(signum)
    stopped = interruption(periodic_save)
    assert signal_inside_the_zip_writer.sent == [signum]
    assert type(stopped) is stop, repr(stopped)  # the interruption, not a RuntimeError
    assert saved_value(path) == 2.0  # the save under way was made, whole
    assert exit_saves == [1] and saved_value(tmp_path / "latest.zip") == 3.0
    assert lines[0].endswith("saving the latest model at 7 steps")
    assert sorted(os.listdir(tmp_path)) == ["latest.zip", "model.zip"]  # no .tmp left


def test_a_second_signal_does_not_cut_the_exit_save(tmp_path, signal_inside_the_zip_writer):
    """Ctrl-C during the exit save (the second stop) waits for it; the first one's stop
    (SIGTERM: Terminated, exit status 143) goes on up."""
    from sixtysix_training.common.runs import Terminated, save_model_atomically, stopped_by_signals

    latest = tmp_path / "latest.zip"

    def exit_save():
        signal_inside_the_zip_writer(signal.SIGINT)
        save_model_atomically(TorchZipModel(5.0), str(latest))

    def stopped_by_sigterm():
        with stopped_by_signals(exit_save, lambda: 1, str(tmp_path), lambda s: None):
            raise Terminated

    stopped = interruption(stopped_by_sigterm)
    assert signal_inside_the_zip_writer.sent == [signal.SIGINT]
    assert type(stopped) is Terminated, repr(stopped)
    assert saved_value(latest) == 5.0


def test_the_latest_model_and_its_state_are_saved_together(tmp_path):
    """A signal between latest/'s model and its state.json waits for both: before, a
    Ctrl-C after the model left the previous state.json beside the new model."""
    from sixtysix_training.common.lifecycle import RunLifecycle
    from sixtysix_training.config.loader import TrainConfig

    class Learner:
        def steps(self):
            return 64

        def save_model(self, folder, resumable):
            with open(os.path.join(folder, "model.zip"), "w") as f:
                f.write("the model at 64 steps")
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C as the model is done

    class Pool:
        def state(self):
            return {}

    life = RunLifecycle(TrainConfig().shared, str(tmp_path), Pool(), {}, Learner())
    assert type(interruption(life.save_latest)) is KeyboardInterrupt
    state = json.loads((tmp_path / "latest" / "state.json").read_text())
    assert state["steps"] == 64 and life.state["last"]["save"] == 64


def test_outside_the_main_thread_a_save_runs_unguarded(tmp_path):
    """Signal handlers are the main thread's alone: elsewhere the hold is left out (no
    ValueError from signal.signal) and the save is made."""
    from sixtysix_training.common.runs import save_model_atomically, signals_held

    handler = signal.getsignal(signal.SIGINT)
    errors: list[BaseException] = []

    def save():
        try:
            with signals_held():
                save_model_atomically(TorchZipModel(4.0), str(tmp_path / "model.zip"))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    t = threading.Thread(target=save)
    t.start()
    t.join()
    assert not errors and saved_value(tmp_path / "model.zip") == 4.0
    assert signal.getsignal(signal.SIGINT) is handler


def test_held_signals_are_given_back_to_the_handlers_before(tmp_path):
    """After a hold the handlers are those before it; a signal the caller ignores stays
    ignored, one noted is delivered once to the caller's handler."""
    from sixtysix_training.common.runs import signals_held

    got: list[int] = []
    before = signal.signal(signal.SIGTERM, lambda signum, frame: got.append(signum))
    try:
        with signals_held():
            os.kill(os.getpid(), signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGTERM)
            held = list(got)
        assert held == [] and got == [signal.SIGTERM]
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        with signals_held():
            os.kill(os.getpid(), signal.SIGTERM)
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN and got == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, before)


# The command, with its zip writer signalling the process once, in the first save.
_DRIVER = """
import os, signal, sys, zipfile
real = zipfile._ZipWriteFile.write
writes = [0]
def write(self, data):
    writes[0] += 1
    if writes[0] == 3:  # the middle of torch's first .pth
        print("SIGINT inside the zip writer", flush=True)
        os.kill(os.getpid(), signal.SIGINT)
    return real(self, data)
zipfile._ZipWriteFile.write = write
from sixtysix_env.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None, reason="the [train] extra is not installed"
)
def test_ctrl_c_inside_the_model_writer_exits_130_with_the_exit_save(tmp_path):
    """`sixtysix train`, Ctrl-C inside torch's writer during the first save (the best
    model at 0 steps): exit status 130 and the exit save made, not 1 and a traceback."""
    with open(os.path.join(ROOT, "configs", "tiny.yaml"), encoding="utf-8") as f:
        tiny = f.read().replace("bc_teacher: heuristic", "bc_teacher: null")
    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(tiny)
    run_dir = tmp_path / "run"
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run(
        [sys.executable, "-c", _DRIVER, "train", "--config", str(cfg), "--run-dir", str(run_dir)],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    said = out.stdout + out.stderr
    assert "SIGINT inside the zip writer" in out.stdout, said
    assert out.returncode == 130, said
    assert "RuntimeError" not in said
    assert "interrupted: saving the latest model at 0 steps" in out.stdout, said
    from sixtysix_training.sb3.model_file import load_model

    state = json.loads((run_dir / "latest" / "state.json").read_text())
    assert load_model(str(run_dir / "latest" / "model.zip")).num_timesteps == state["steps"] == 0
    assert load_model(str(run_dir / "best" / "model.zip")).num_timesteps == 0
    assert not list(run_dir.rglob("*.tmp"))
