"""The one rule for integer inputs: action ids, seats, seeds, card ids, scores (and
:func:`check_option`, an agent's numeric option within its range).

An integer input is a Python ``int`` or a numpy integer scalar (anything
:func:`operator.index` accepts: ``np.int64(3)``, a 0-d integer array);
``bool`` and ``numpy.bool_`` are refused although Python counts ``True`` as
1, and so are floats (``1.0``), strings and arrays with a dimension. Every
public entry point that takes such a number (the engine's ``apply`` /
``is_legal`` / ``deal_from_deck`` / ``new_hand``, the environments' ``step``
and ``reset``) goes through these helpers, so they all agree.

The helpers are for the edges and for error paths: the engine's hot path
tests ``type(x) is int`` first and only calls in here otherwise.
"""

from __future__ import annotations

import math
import random
from operator import index as _index
from typing import Any

__all__ = ["as_int", "as_seat", "as_seed", "check_option", "is_int"]

ALLOWED = "a Python or numpy integer, not a bool, float or array"


def is_int(x: Any) -> bool:
    """Whether ``x`` is an integer input by the rule above."""
    if type(x) is int:
        return True
    if isinstance(x, bool) or type(x).__name__ in ("bool", "bool_"):
        return False
    try:
        _index(x)
    except TypeError:
        return False
    return True


def as_int(x: Any, what: str) -> int:
    """``x`` as a Python ``int``; ``TypeError`` naming ``what`` if it is not an integer input."""
    if type(x) is int:
        return x
    if is_int(x):
        return int(_index(x))
    raise TypeError(f"{what} must be {ALLOWED}, got {x!r} ({type(x).__name__})")


def as_seat(x: Any, what: str = "seat") -> int:
    """A seat, 0 or 1 (``TypeError`` for a non-integer, ``ValueError`` out of range)."""
    s = as_int(x, f"{what} (seat 0 or 1)")
    if s not in (0, 1):
        raise ValueError(f"{what} must be seat 0 or 1, got {x!r}")
    return s


def as_seed(x: Any, what: str = "seed") -> int | None:
    """A seed: ``None`` or an integer input (a ``random.Random`` is not a seed here)."""
    if x is None:
        return None
    if isinstance(x, random.Random):
        raise TypeError(f"{what} must be None or {ALLOWED}, got a random.Random")
    return as_int(x, f"{what} (None or an integer)")


def check_option(name: str, value, low: float, high: float, integer: bool = False):
    """``value`` if it is a finite number within [low, high] (a whole number if
    ``integer``); else a ValueError naming the option and what is allowed."""
    kind = "a whole number" if integer else "a number"
    ok = isinstance(value, int) if integer else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok or not math.isfinite(value) or not low <= value <= high:
        raise ValueError(f"{name} must be {kind} from {low:g} to {high:g}, got {value!r}")
    return value if integer else float(value)
