"""numpy's BLAS on one thread while training: the parallel work is torch's (``torch_threads``).

The opponents' moves in training are numpy passes of one position at a time
through the pool's snapshots (:mod:`sixtysix_env.policy.network`). OpenBLAS,
which the numpy wheel bundles, splits a matrix-vector product over its own
threads once the matrix is large enough (here between the 512- and the
768-wide layers), and those threads then compete with torch's for the same
cores: a run with a [768, 768] actor went 2.5x faster with numpy's BLAS on one
thread, one with a [512, 512] actor as fast as before (docs/learning.md, "A wider
actor: critic_arch, and numpy's BLAS threads"). The trained weights do not change.

Only the BLAS libraries that torch did not bring are limited, so torch's own
matrix products keep ``torch_threads`` wherever torch links a BLAS of its own.
threadpoolctl (scikit-learn's library for this) finds and sets them.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Iterator


def _torch_dirs() -> list[str]:
    """torch's install folder and the one its wheel keeps its own libraries in
    (``torch.libs``, e.g. an OpenBLAS on ARM Linux), found without importing torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return []
    here = os.path.realpath(list(spec.submodule_search_locations)[0])
    return [here + os.sep, here + ".libs" + os.sep]


def _numpy_blas() -> list:
    """threadpoolctl's controllers of the BLAS libraries loaded here that are not torch's."""
    import numpy  # noqa: F401  (loads numpy's BLAS, so the controller sees it)
    from threadpoolctl import ThreadpoolController

    torch_dirs = _torch_dirs()
    return [
        lib
        for lib in ThreadpoolController().lib_controllers
        if lib.user_api == "blas"
        and lib.num_threads is not None
        and not any(os.path.realpath(lib.filepath or "").startswith(d) for d in torch_dirs)
    ]


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Within it, numpy's BLAS uses one thread; afterwards, as many as before."""
    libs = _numpy_blas()
    before = [lib.num_threads for lib in libs]
    for lib in libs:
        lib.set_num_threads(1)
    try:
        yield
    finally:
        for lib, n in zip(libs, before):
            lib.set_num_threads(n)


def limit_blas_threads() -> None:
    """numpy's BLAS on one thread for the rest of this process (a Ray env runner's; with
    no env runners, the driver's, which trains with one anyway)."""
    for lib in _numpy_blas():
        lib.set_num_threads(1)
