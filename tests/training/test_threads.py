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
    assert libs, threadpool_info()  # the numpy wheel's OpenBLAS is found
    assert all("torch" not in lib.filepath for lib in libs)
    libs[0].set_num_threads(2)  # as on a 2-core machine, whatever this one has
    before = _numpy_threads()
    torch_threads = torch.get_num_threads()
    with one_blas_thread():
        assert _numpy_threads() == [1] * len(libs)
        assert torch.get_num_threads() == torch_threads
    assert _numpy_threads() == before
    with pytest.raises(RuntimeError):  # put back on an error too
        with one_blas_thread():
            raise RuntimeError
    assert _numpy_threads() == before


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

    for lib in _numpy_blas():  # more than one, so that the limit shows
        lib.set_num_threads(2)
    before = _numpy_threads()
    sets = ["total_timesteps=128", "eval_every=0", "eval_deals=5", "bc_teacher=null"]
    argv = ["train", "--config", "tiny", "--run-dir", str(tmp_path / "run")]
    assert main(argv + [x for s in sets for x in ("--set", s)]) == 0
    assert seen and all(n == 1 for n in seen[0])
    assert _numpy_threads() == before
