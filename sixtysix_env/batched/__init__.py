"""The batched engine: many hands advanced in lock-step, state held in arrays.

The pure-Python engine (:mod:`sixtysix_env.game.engine`) plays one hand as the
readable reference; this package plays N of them at once with compiled loops
(numba: ``docs/performance.md`` says how that was chosen), gives the same legal
moves, observations (observation version 1, bit for bit), rewards and hand
results for the same deal and moves, and is tested against the reference deal
by deal. The vector environment (``gymnasium.make_vec("SixtySix-v0",
vectorization_mode="vector_entry_point")``) and the batched evaluation stand on it.

It needs numba, the ``[fast]`` extra: ``pip install "sixtysix[fast]"``.
"""

from __future__ import annotations

from ..util.errors import SixtySixError

EXTRA_HINT = 'pip install "sixtysix[fast]" (or numba>=0.59)'


class MissingExtraError(SixtySixError, ImportError):
    """A feature needs an optional dependency that is not installed."""


def have_numba() -> bool:
    """Whether the batched engine can run here (numba importable)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def require_numba(what: str = "the batched engine") -> None:
    if not have_numba():
        raise MissingExtraError(f"{what} needs numba, which is not installed: {EXTRA_HINT}")
