"""Tables of an evaluation's figures: plain text, or rich when it is installed."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

from .play import HAND

if TYPE_CHECKING:  # the result imports this module for EvalResult.table
    from .result import EvalResult

_RATING_HEAD = ["agent", "Elo (BT)", "decisions", "median ms", "mean ms", "p90 ms"]


def _fmt(x: float | None, nd: int = 3) -> str:
    return "-" if x is None else f"{x:+.{nd}f}"


def _ci(ci: list[float] | None, nd: int = 3, pct: bool = False) -> str:
    if ci is None:
        return "-"
    if pct:
        return f"[{100 * ci[0]:.1f}%, {100 * ci[1]:.1f}%]"
    return f"[{ci[0]:+.{nd}f}, {ci[1]:+.{nd}f}]"


def _rows(res: EvalResult) -> tuple[list[str], list[list[str]]]:
    hand_mode = res.mode == HAND
    head = ["A", "B", "deals" if hand_mode else "match seeds", "hands",
            "gp/hand (A)", "95% CI", "hands won A-B-tie"]
    if not hand_mode:
        head += ["matches won A", "95% CI"]
    rows = []
    for p in res.pairs:
        row = [p.a, p.b, str(p.deals), str(p.hands), _fmt(p.gp_per_hand), _ci(p.gp_ci95),
               f"{p.hands_won_a}-{p.hands_won_b}-{p.hands_tied}"]
        if not hand_mode:
            rate = ("-" if p.match_rate_a is None
                    else f"{p.matches_won_a}/{p.matches} ({100 * p.match_rate_a:.1f}%)")
            row += [rate, _ci(p.match_ci95, pct=True)]
        rows.append(row)
    return head, rows


def _rating_rows(res: EvalResult) -> list[list[str]]:
    out = []
    for name in sorted(res.elo, key=lambda n: -res.elo[n]):
        t = res.timing.get(name, {})
        out.append([
            name,
            f"{res.elo[name]:.0f}",
            str(t.get("decisions", 0)),
            f"{t['median_ms']:.2f}" if t else "-",
            f"{t['mean_ms']:.2f}" if t else "-",
            f"{t['p90_ms']:.2f}" if t else "-",
        ])
    return out


def _title(res: EvalResult) -> str:
    unit = "paired deals" if res.mode == HAND else "paired matches"
    where = (" in the schnapsen package's engine"
             if getattr(res, "referee", "sixtysix") == "schnapsen" else "")
    return (f"Evaluation{where}: rules {res.rules['name']}, seed {res.seed}, {res.requested} "
            f"{unit} per pair, {res.wall_seconds:.1f} s")


def _ratings_title(res: EvalResult) -> str:
    basis = "hands" if res.mode == HAND else "matches"
    rating = res.elo.get(res.elo_anchor)
    anchor = res.elo_anchor if rating is None else f"{res.elo_anchor} = {rating:.0f}"
    return f"Ratings (Bradley-Terry on {basis}, anchored at {anchor}) and time per decision"


def _text_table(head: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[k]) for r in rows)) if rows else len(h)
              for k, h in enumerate(head)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(lines)


def plain_table(res: EvalResult) -> str:
    """The pairs' figures and the ratings as plain text."""
    head, rows = _rows(res)
    out = [_title(res), "", _text_table(head, rows), "", _ratings_title(res) + ":",
           _text_table(_RATING_HEAD, _rating_rows(res))]
    if not res.complete:
        out.append(f"\nINCOMPLETE: {res.stopped}")
    return "\n".join(out)


def print_table(res: EvalResult, file: TextIO | None = None) -> None:
    """Print the result with rich when available, else as plain text."""
    file = file or sys.stdout
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # rich is optional (the [eval] extra)
        print(plain_table(res), file=file)
        return
    console = Console(file=file)
    if not console.is_terminal:
        console = Console(file=file, width=160)
    head, rows = _rows(res)
    t = Table(title=_title(res))
    for h in head:
        t.add_column(h, justify="left" if h in ("A", "B") else "right")
    for r in rows:
        t.add_row(*r)
    console.print(t)
    t2 = Table(title=_ratings_title(res))
    for h in _RATING_HEAD:
        t2.add_column(h, justify="left" if h == "agent" else "right")
    for r in _rating_rows(res):
        t2.add_row(*r)
    console.print(t2)
    if not res.complete:
        console.print(f"[bold red]INCOMPLETE[/]: {res.stopped}")
