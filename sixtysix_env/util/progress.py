"""Progress bars that behave in a terminal and in a log file.

A bar redrawn with carriage returns is pleasant in a terminal and turns into
one line thousands of characters long in a file (a CI log, ``> run.log``).
:func:`progress_bar` therefore draws a tqdm bar only when the stream is a
terminal; elsewhere it writes a plain line now and then (at most every
``log_every`` seconds, and at the end). tqdm is optional (the ``[eval]`` and
``[train]`` extras): without it, the plain lines are written in a terminal too.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO


def _plural(unit: str) -> str:
    """``hand`` -> ``hands``, ``match`` -> ``matches``."""
    return unit + ("es" if unit.endswith(("s", "sh", "ch", "x")) else "s")


class _PlainProgress:
    """The subset of tqdm's interface used here, as occasional plain lines."""

    def __init__(self, total: int, desc: str, unit: str, stream: TextIO, log_every: float):
        self.total, self.desc, self.unit, self.stream = total, desc, unit, stream
        self.n = 0
        self.log_every = log_every
        self._t0 = self._last = time.monotonic()
        self._closed = False

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.monotonic()
        if now - self._last >= self.log_every:
            self._last = now
            self._line(now)

    def _line(self, now: float) -> None:
        pct = 100.0 * self.n / self.total if self.total else 100.0
        rate = self.n / max(now - self._t0, 1e-9)
        units = _plural(self.unit)
        self.stream.write(
            f"{self.desc}: {self.n:,}/{self.total:,} {units} ({pct:.0f}%), "
            f"{now - self._t0:.0f} s, {rate:,.1f} {units}/s\n"
        )
        self.stream.flush()

    def set_postfix_str(self, text: str) -> None:  # shown only by the terminal bar
        pass

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._line(time.monotonic())

    def __enter__(self) -> _PlainProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def progress_bar(
    total: int,
    desc: str,
    unit: str = "it",
    stream: TextIO | None = None,
    log_every: float = 30.0,
) -> Any:
    """A tqdm bar on a terminal, occasional plain lines elsewhere (same ``update``/``close``)."""
    stream = sys.stderr if stream is None else stream
    if hasattr(stream, "isatty") and stream.isatty():
        try:
            from tqdm import tqdm
        except ImportError:
            pass
        else:
            return tqdm(total=total, desc=desc, unit=unit, file=stream)
    return _PlainProgress(total, desc, unit, stream, log_every)
