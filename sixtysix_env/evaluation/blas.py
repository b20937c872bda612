"""numpy's BLAS on one thread where something else already keeps every core busy.

A policy file's move is a numpy pass of one position through its layers
(:mod:`sixtysix_env.policy.network`). OpenBLAS, which the numpy wheel bundles,
splits a matrix-vector product over its own threads once the matrix is large
enough (here between the 512- and the 768-wide layers). Where every core is
already busy those threads wait for one another:

- in training, beside torch's threads (``torch_threads``): a run with a [768, 768]
  actor went 2.5x faster with numpy's BLAS on one thread, one with a [512, 512]
  actor as fast as before (research/notes/learning.md, "A wider actor: critic_arch, and
  numpy's BLAS threads"), and the trained weights did not change. The training
  package (``sixtysix_training``) calls these around learning and in RLlib's env
  runners;
- in an evaluation's worker processes, one per core: a 768-wide policy took a
  median 5.6 ms per decision against the expert with two workers, 0.1 ms alone.
  Each worker keeps its BLAS on one thread (:mod:`sixtysix_env.evaluation.runner`).

Only the BLAS libraries that torch did not bring are limited, so torch's own
matrix products keep their threads wherever torch links a BLAS of its own (where
torch and numpy share one BLAS outside torch's folder, as with some conda builds,
torch's products are limited too while these are in force).
threadpoolctl (scikit-learn's library for this; in the ``[eval]``, ``[train]``
and ``[rllib]`` extras) finds and sets them; without it these do nothing, and
only the speed differs.
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


def numpy_blas() -> list:
    """threadpoolctl's controllers of the BLAS libraries loaded here that are not torch's
    (none without threadpoolctl)."""
    import numpy  # noqa: F401  (loads numpy's BLAS, so the controller sees it)

    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return []

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
    libs = numpy_blas()
    before = [lib.num_threads for lib in libs]
    for lib in libs:
        lib.set_num_threads(1)
    try:
        yield
    finally:
        for lib, n in zip(libs, before):
            lib.set_num_threads(n)


def limit_blas_threads() -> None:
    """numpy's BLAS on one thread for the rest of this process (an evaluation worker's; a
    Ray env runner's, or with no env runners the driver's, which trains with one anyway)."""
    for lib in numpy_blas():
        lib.set_num_threads(1)
