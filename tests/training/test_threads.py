"""numpy's BLAS on one thread while training (training/threads.py): set inside a run, put
back after it, and torch's own threads left alone."""

from __future__ import annotations

import importlib.util

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("sb3_contrib") is None, reason="the [train] extra is not installed"
)


def _numpy_threads() -> list[int]:
    from sixtysix_training.threads import _numpy_blas

    return [lib.num_threads for lib in _numpy_blas()]


def test_one_blas_thread_limits_numpys_blas_and_puts_it_back():
    import torch
    from threadpoolctl import threadpool_info

    from sixtysix_training.threads import _numpy_blas, one_blas_thread

    libs = _numpy_blas()
    if not libs:
        pytest.skip(f"threadpoolctl finds no BLAS of numpy's here: {threadpool_info()}")
    assert all("torch" not in lib.filepath for lib in libs)
    torch_threads = torch.get_num_threads()
    original = _numpy_threads()
    try:
        for lib in libs:
            lib.set_num_threads(2)  # as on a 2-core machine, whatever this one has
        with one_blas_thread():
            assert _numpy_threads() == [1] * len(libs)
            assert torch.get_num_threads() == torch_threads
        assert _numpy_threads() == [2] * len(libs)
        with pytest.raises(RuntimeError):  # put back on an error too
            with one_blas_thread():
                raise RuntimeError
        assert _numpy_threads() == [2] * len(libs)
    finally:
        for lib, n in zip(libs, original):
            lib.set_num_threads(n)


def test_torchs_own_libraries_are_left_alone(monkeypatch):
    """A BLAS that torch's wheel brings (its folder or ``torch.libs``) is not limited."""
    from sixtysix_training import threads

    dirs = threads._torch_dirs()
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
    assert threads._numpy_blas() == [libs[2]]


def test_a_training_run_learns_with_one_blas_thread(tmp_path, monkeypatch):
    from sixtysix_env.cli import main
    from sixtysix_training import train as train_module

    seen = []
    learn = train_module._learn

    def spy(*args, **kwargs):
        seen.append(_numpy_threads())
        return learn(*args, **kwargs)

    monkeypatch.setattr(train_module, "_learn", spy)
    from sixtysix_training.threads import _numpy_blas

    libs = _numpy_blas()
    if not libs:
        pytest.skip("threadpoolctl finds no BLAS of numpy's here")
    original = _numpy_threads()
    try:
        for lib in libs:  # more than one, so that the limit shows
            lib.set_num_threads(2)
        sets = ["total_timesteps=128", "eval_every=0", "eval_deals=5", "bc_teacher=null"]
        argv = ["train", "--config", "tiny", "--run-dir", str(tmp_path / "run")]
        assert main(argv + [x for s in sets for x in ("--set", s)]) == 0
        assert seen == [[1] * len(libs)]
        assert _numpy_threads() == [2] * len(libs)
    finally:
        for lib, n in zip(libs, original):
            lib.set_num_threads(n)
