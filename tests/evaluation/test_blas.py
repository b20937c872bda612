"""numpy's BLAS on one thread (sixtysix_env/evaluation/blas.py): inside a training run, put back after
it, in every evaluation worker, and torch's own threads left alone."""

from __future__ import annotations

import importlib.util

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("threadpoolctl") is None,
    reason="threadpoolctl (the [eval] and [train] extras) is not installed",
)
needs_train = pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None, reason="the [train] extra is not installed"
)


def _numpy_threads() -> list[int]:
    from sixtysix_env.evaluation.blas import numpy_blas

    return [lib.num_threads for lib in numpy_blas()]


def test_evaluation_workers_keep_numpys_blas_on_one_thread(two_blas_threads):
    """Each worker process of ``evaluate(workers=N)`` starts by limiting its BLAS."""
    import signal

    from sixtysix_env.evaluation import runner
    from sixtysix_env.game.rules import make_rules

    saved = dict(runner._WORKER)
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        runner._worker_init(["random"], ["random"], make_rules("altmisalti"), 1, "hand")
        assert _numpy_threads() == [1] * len(two_blas_threads)
    finally:
        runner._WORKER.clear()
        runner._WORKER.update(saved)
        for s, h in handlers.items():  # the worker's own handlers, not pytest's
            signal.signal(s, h)


def test_without_threadpoolctl_nothing_is_limited(monkeypatch, two_blas_threads):
    import sys

    from sixtysix_env.evaluation import blas

    monkeypatch.setitem(sys.modules, "threadpoolctl", None)  # import fails
    assert blas.numpy_blas() == []
    blas.limit_blas_threads()
    with blas.one_blas_thread():
        pass
    monkeypatch.undo()
    assert _numpy_threads() == [2] * len(two_blas_threads)


def test_one_blas_thread_limits_numpys_blas_and_puts_it_back(two_blas_threads):
    from sixtysix_env.evaluation.blas import one_blas_thread

    libs = two_blas_threads
    assert all("torch" not in lib.filepath for lib in libs)
    with one_blas_thread():
        assert _numpy_threads() == [1] * len(libs)
    assert _numpy_threads() == [2] * len(libs)
    with pytest.raises(RuntimeError):  # put back on an error too
        with one_blas_thread():
            raise RuntimeError
    assert _numpy_threads() == [2] * len(libs)


@needs_train
def test_torchs_own_libraries_are_left_alone(monkeypatch):
    """A BLAS that torch's wheel brings (its folder or ``torch.libs``) is not limited."""
    from sixtysix_env.evaluation import blas

    dirs = blas._torch_dirs()
    assert len(dirs) == 2 and dirs[1].rstrip("/\\").endswith("torch.libs")

    class Lib:
        user_api, num_threads = "blas", 4

        def __init__(self, filepath):
            self.filepath = filepath

    libs = [Lib(dirs[0] + "lib/libtorch_blas.so"), Lib(dirs[1] + "libopenblas.so"),
            Lib("/elsewhere/numpy.libs/libscipy_openblas.so")]

    class Controller:
        lib_controllers = libs

    import threadpoolctl

    monkeypatch.setattr(threadpoolctl, "ThreadpoolController", Controller)
    assert blas.numpy_blas() == [libs[2]]


@pytest.mark.slow  # a training run (torch, SB3): the full suite, not the fast lane
@needs_train
def test_a_training_run_learns_with_one_blas_thread(tmp_path, monkeypatch, two_blas_threads):
    from sixtysix_env.cli import main
    from sixtysix_training.sb3 import train as train_module

    seen = []
    learn = train_module._learn

    libs = two_blas_threads  # more than one, so that the limit shows

    # The libraries loaded before the run: one loaded during it (numba imports scipy, which
    # brings its own OpenBLAS) starts at its own default and is no part of the check.
    def spy(*args, **kwargs):
        seen.append([lib.num_threads for lib in libs])
        return learn(*args, **kwargs)

    monkeypatch.setattr(train_module, "_learn", spy)
    sets = ["total_timesteps=128", "eval_every=0", "eval_deals=5", "bc_teacher=null"]
    argv = ["train", "--config", "tiny", "--run-dir", str(tmp_path / "run")]
    assert main(argv + [x for s in sets for x in ("--set", s)]) == 0
    assert seen == [[1] * len(libs)]
    assert [lib.num_threads for lib in libs] == [2] * len(libs)
