"""Progress output: a bar on a terminal, short plain lines in a log file."""

from __future__ import annotations

import io

from sixtysix_env.util.progress import progress_bar


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_file_gets_plain_lines_without_carriage_returns():
    out = io.StringIO()
    bar = progress_bar(1000, "evaluating", "hand", stream=out, log_every=0.0)
    for _ in range(10):
        bar.update(100)
    bar.close()
    bar.close()  # closing twice writes nothing more
    text = out.getvalue()
    assert "\r" not in text
    lines = text.splitlines()
    assert len(lines) == 11 and all(len(line) < 120 for line in lines)
    assert lines[-1].startswith("evaluating: 1,000/1,000 hands (100%)")


def test_a_log_file_is_not_flooded():
    out = io.StringIO()
    with progress_bar(10**6, "training", "step", stream=out, log_every=3600.0) as bar:
        for _ in range(10**4):
            bar.update(100)
    assert out.getvalue().count("\n") == 1  # only the closing line


def test_a_terminal_gets_a_redrawn_bar():
    out = _Tty()
    bar = progress_bar(50, "cloning", "hand", stream=out)
    for _ in range(50):
        bar.update(1)
    bar.close()
    assert "\r" in out.getvalue() and "50/50" in out.getvalue()


def test_units_are_plural_in_plain_lines():
    out = io.StringIO()
    with progress_bar(4, "eval", "match", stream=out) as bar:
        bar.update(4)
    assert out.getvalue().startswith("eval: 4/4 matches (100%)") and "matches/s" in out.getvalue()
