"""What every timing script (``speed/``, ``research/``) does first: numpy's BLAS on one
thread, and a line on stderr saying how long the script took.

Standard library only, and importing it (through ``sixtysix_env``, whose top loads the
rules engine only) imports no numpy, so a script can call :func:`one_blas_thread` before
its first numpy import, where the variables still count::

    import os, sys, time
    _STARTED = time.perf_counter()
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from sixtysix_env.util.scripts import one_blas_thread, say_how_long_at_exit  # noqa: E402
    one_blas_thread()

    import numpy as np  # noqa: E402  (one BLAS thread from here on)
    ...
    say_how_long_at_exit(__file__, _STARTED)   # in main(): "bench_x.py took 12 s" at exit

Why one thread: the figures are one core's, and on a busy machine BLAS threads fight
(``speed/bench_vector.py``'s per-row figure fell from 23,582 to 1,522 steps/s under load
without the pin, issue 70).
"""

from __future__ import annotations

import atexit
import os
import sys
import time

#: The variables the BLAS and OpenMP libraries that numpy (and torch) may load read at
#: their start: OpenMP's, OpenBLAS's (numpy's wheels), MKL's, BLIS's and numexpr's.
THREAD_VARIABLES = (
    "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS", "NUMEXPR_NUM_THREADS",
)


def one_blas_thread(*, keep_torch_threads: bool = False) -> bool:
    """Set the thread variables to 1; True if numpy was not imported yet (they count).

    Once numpy is imported its BLAS has read them: they are set all the same (a process
    that imports a script as a module, a test for instance, keeps its threads) and the
    answer is False. ``keep_torch_threads``: set ``OPENBLAS_NUM_THREADS`` only (numpy's
    wheels' BLAS), and leave OpenMP's and MKL's, which torch reads, as they are: for the
    scripts that time torch, whose threads are part of what they measure.
    """
    for name in ("OPENBLAS_NUM_THREADS",) if keep_torch_threads else THREAD_VARIABLES:
        os.environ[name] = "1"
    return "numpy" not in sys.modules


def say_how_long_at_exit(script: str, started: float) -> None:
    """At exit, print ``"<script's file name> took N s"`` on stderr, counted from
    ``started`` (a ``time.perf_counter()`` reading taken as the script began)."""
    name = os.path.basename(script)

    def _took() -> None:
        print(f"{name} took {time.perf_counter() - started:.0f} s", file=sys.stderr)

    atexit.register(_took)
