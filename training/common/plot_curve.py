"""Draw a run's learning curve: game points per hand against the baselines over training steps.

    sixtysix plot-curve runs/NAME                    # -> runs/NAME/curve.png
    sixtysix plot-curve runs/NAME.npz -o curve.png   # the log exported beside it
    sixtysix plot-curve checkpoints/sixtysix-ppo.npz # -> checkpoints/sixtysix-ppo.png

It reads the run's evaluation log, ``eval.jsonl``: one JSON record per
evaluation during training, as :class:`~sixtysix_training.sb3.callbacks.SelfPlayCallback`
writes it (``{"steps": N, "against": {OPPONENT: {"gp_per_hand": x,
"gp_ci95": [lo, hi], "paired_deals": n, "seed": s, ...}}}``). ``sixtysix
export`` copies that log beside the policy as ``NAME.eval.jsonl``; given a
``.npz``, this script reads the log beside it. One panel per opponent, the
95% interval shaded, zero (even with the opponent) marked.

A log may also hold records a training run does not write, for a curve put
together from figures recorded elsewhere (the shipped checkpoint's, whose
run log was not kept): ``{"about": TEXT}`` (shown under the picture),
``{"event": "session", "steps": N, "label": TEXT}`` (a dashed line),
``{"steps_range": [A, B], "against": {OPP: {"gp_range": [LO, HI]}}}`` (a
range of results stated over a span of steps, drawn as a box) and
``"kind": "at_export"`` on a point record (a figure measured at export on
other deals, drawn as a star). Every record may carry a ``"source"``.

An ensemble's log (``sixtysix ensemble`` writes one beside
the merged file) gathers its members' training evaluations, each record
tagged ``"member": NAME``: each member is drawn as a line of its own colour,
and the ensemble's figures at export as the stars.

Needs matplotlib (the ``plot`` extra).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from sixtysix_env.util import bounded

#: The most an evaluation log (``eval.jsonl``, one short JSON line per evaluation) may hold.
MAX_EVAL_LOG_BYTES = 16 << 20

#: Panel order: the baselines first, then any other opponent in the order first seen.
PREFERRED = ("random", "heuristic", "expert")


class CurveError(ValueError):
    """A log that cannot be drawn: missing, malformed, or holding no evaluation."""


def find_log(path: str) -> str:
    """The evaluation log for a run folder, a policy file or the log itself."""
    if os.path.isdir(path):
        log = os.path.join(path, "eval.jsonl")
    elif path.endswith(".npz"):
        log = path[: -len(".npz")] + ".eval.jsonl"
    else:
        log = path
    if not os.path.isfile(log):
        raise CurveError(
            f"no evaluation log {log!r}; a run folder keeps eval.jsonl, and "
            "`sixtysix export RUN -o NAME.npz` copies it beside the policy as NAME.eval.jsonl"
        )
    return log


def read_log(path: str, require_evaluation: bool = True) -> list[dict[str, Any]]:
    """The records of an evaluation log (JSON lines; blank lines skipped).

    A log with no evaluation record is an error unless ``require_evaluation`` is false.
    """
    records = []
    raw = bounded.read_bounded(path, f"the evaluation log {path!r}", MAX_EVAL_LOG_BYTES,
                               "an evaluation log is read up to", CurveError)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CurveError(f"{path}: not UTF-8 text ({e})") from None
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise CurveError(f"{path}, line {i}: not JSON ({e})") from None
        except RecursionError:
            rec = None
        if not isinstance(rec, dict) or bounded.json_depth(rec) > bounded.MAX_JSON_DEPTH:
            raise CurveError(f"{path}, line {i}: expected a JSON object nested at most "
                             f"{bounded.MAX_JSON_DEPTH} levels")
        is_eval = ("steps" in rec or "steps_range" in rec) and rec.get("event") is None
        if is_eval and not isinstance(rec.get("against"), dict):
            raise CurveError(f"{path}, line {i}: an evaluation needs an 'against' object")
        records.append(rec)
    if require_evaluation and not any("against" in r for r in records):
        raise CurveError(f"{path} holds no evaluation record")
    return records


def opponents_of(records: Iterable[dict[str, Any]]) -> list[str]:
    seen: list[str] = []
    for r in records:
        if r.get("kind") == "at_export":
            continue  # panels are for opponents met during training
        for opp in r.get("against") or {}:
            if opp not in seen:
                seen.append(opp)
    return sorted(seen, key=lambda o: PREFERRED.index(o) if o in PREFERRED else len(PREFERRED))


def plot(
    records: Sequence[dict[str, Any]],
    out: str,
    title: str,
    opponents: Sequence[str] | None = None,
) -> str:
    """Draw ``records`` to ``out`` (a PNG); returns ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    opponents = list(opponents or opponents_of(records))
    if not opponents:
        raise CurveError("the log names no opponent evaluated during training")
    about = " ".join(r["about"] for r in records if "about" in r)
    fig, axes = plt.subplots(
        len(opponents),
        1,
        figsize=(8, 2.6 * len(opponents) + (0.9 if about else 0.3)),
        sharex=True,
        squeeze=False,
    )
    for ax, opp in zip(axes[:, 0], opponents):
        _draw_training(ax, records, opp)
        _draw_ranges(ax, records, opp)
        _draw_exports(ax, records, opp)
        _draw_sessions(ax, records, label=ax is axes[0, 0])
        ax.axhline(0.0, color="0.2", lw=0.8)
        ax.set_xlim(left=0)
        ax.set_ylabel(f"game points / hand\nvs {opp}")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
    axes[-1, 0].set_xlabel("training steps (millions)")
    axes[0, 0].set_title(title)
    if about:
        fig.text(0.01, 0.005, about, fontsize=7.5, color="0.3", wrap=True, va="bottom")
        fig.tight_layout(rect=(0, 0.1 if len(opponents) > 1 else 0.16, 1, 1))
    else:
        fig.tight_layout()
    # No software version or date in the file: the same log gives the same picture.
    fig.savefig(out, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return out


_SCALE = 1e6  # steps on the x axis, in millions


#: Line colours of a run's own evaluations, one per member of an ensemble's log
#: (C1 is the recorded ranges', C3 the figures at export).
_MEMBER_COLOURS = ("C0", "C2", "C4", "C5", "C6", "C8", "C9", "C7")


def members_of(records: Iterable[dict[str, Any]]) -> list[str | None]:
    """The runs whose training evaluations the log holds, in order first seen.

    ``[None]`` for a plain run's log; an ensemble's log names its members
    (``"member"`` on each record).
    """
    seen: list[str | None] = []
    for r in records:
        if "steps" in r and "against" in r and r.get("kind") != "at_export":
            m = r.get("member")
            if m not in seen:
                seen.append(m)
    return seen


def _draw_training(ax: Any, records: Sequence[dict[str, Any]], opp: str) -> None:
    """The run's own evaluations (a line with its 95% band) and recorded ones (points).

    An ensemble's log gets one line (and band) per member.
    """
    for k, member in enumerate(members_of(records)):
        colour = _MEMBER_COLOURS[k % len(_MEMBER_COLOURS)]
        mine = [r for r in records if r.get("member") == member]
        what = "evaluation in training" if member is None else f"{member} in training"
        _draw_member(ax, mine, opp, colour, what, band_label="95% interval" if k == 0 else None)


def _draw_member(
    ax: Any,
    records: Sequence[dict[str, Any]],
    opp: str,
    colour: str,
    what: str,
    band_label: str | None,
) -> None:
    scale = _SCALE
    # A training run's own records are joined by a line; figures recorded
    # elsewhere (a record with a "source") are single points: nothing is
    # known between them.
    for own in (True, False):
        points = sorted(
            (
                (r["steps"], r["against"][opp])
                for r in records
                if "steps" in r
                and r.get("kind") != "at_export"
                and ("source" not in r) == own
                and "gp_per_hand" in (r.get("against") or {}).get(opp, {})
            ),
            key=lambda p: p[0],
        )
        if not points:
            continue
        xs = [s / scale for s, _ in points]
        ys = [f["gp_per_hand"] for _, f in points]
        if own:
            ax.plot(xs, ys, "o-", color=colour, ms=3.5, lw=1.2, label=what)
        else:
            ax.plot(xs, ys, "o", color=colour, ms=5, label=f"{what} (recorded)")
        cis = [(s / scale, f["gp_ci95"]) for s, f in points if f.get("gp_ci95")]
        if own and len(cis) > 1:
            ax.fill_between(
                [x for x, _ in cis],
                [c[0] for _, c in cis],
                [c[1] for _, c in cis],
                color=colour,
                alpha=0.18,
                lw=0,
                label=band_label,
            )
        elif cis:
            ax.errorbar(
                [x for x, _ in cis],
                [(c[0] + c[1]) / 2 for _, c in cis],
                yerr=[(c[1] - c[0]) / 2 for _, c in cis],
                fmt="none",
                ecolor=colour,
                capsize=3,
            )


def _draw_ranges(ax: Any, records: Sequence[dict[str, Any]], opp: str) -> None:
    """Figures recorded only as a range over a stretch of steps (boxes or bars)."""
    scale = _SCALE
    first_box = True
    for r in records:
        f = (r.get("against") or {}).get(opp)
        if "steps_range" not in r or not f or "gp_range" not in f:
            continue
        (a, b), (lo, hi) = r["steps_range"], f["gp_range"]
        label = "recorded range over those steps" if first_box else None
        if a == b:
            ax.errorbar(
                [a / scale],
                [(lo + hi) / 2],
                yerr=[[(hi - lo) / 2]],
                fmt="none",
                ecolor="C1",
                elinewidth=2.5,
                capsize=4,
                label=label,
            )
        else:
            ax.fill_between(
                [a / scale, b / scale],
                [lo, lo],
                [hi, hi],
                color="C1",
                alpha=0.3,
                lw=1,
                edgecolor="C1",
                label=label,
            )
        first_box = False


def _draw_exports(ax: Any, records: Sequence[dict[str, Any]], opp: str) -> None:
    """The figures measured at export, on other deals (stars with their intervals)."""
    scale = _SCALE
    exports = [
        (r["steps"], r["against"][opp])
        for r in records
        if r.get("kind") == "at_export" and opp in (r.get("against") or {})
    ]
    for i, (s, f) in enumerate(exports):
        ci = f.get("gp_ci95")
        yerr = None if not ci else [[f["gp_per_hand"] - ci[0]], [ci[1] - f["gp_per_hand"]]]
        deals = f.get("paired_deals")
        ax.errorbar(
            [s / scale],
            [f["gp_per_hand"]],
            yerr=yerr,
            fmt="*",
            color="C3",
            ms=10,
            capsize=3,
            label=None
            if i
            else f"at export ({deals:,} other deals)"
            if deals
            else "at export (other deals)",
        )


def _draw_sessions(ax: Any, records: Sequence[dict[str, Any]], label: bool) -> None:
    """Where a resumed run's sessions begin (dashed lines, named on the top panel)."""
    scale = _SCALE
    for r in records:
        if r.get("event") == "session":
            x = r["steps"] / scale
            ax.axvline(x, color="0.5", ls="--", lw=0.8)
            if label:
                ax.annotate(
                    r.get("label", ""),
                    (x, 1.0),
                    xycoords=("data", "axes fraction"),
                    xytext=(3, -3),
                    textcoords="offset points",
                    va="top",
                    fontsize=8,
                    color="0.35",
                )


def default_output(path: str, log: str) -> str:
    if os.path.isdir(path):
        return os.path.join(path, "curve.png")
    if path.endswith(".npz"):
        return path[: -len(".npz")] + ".png"
    return log.removesuffix(".jsonl").removesuffix(".eval") + ".png"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source", help="a run folder, a policy file (.npz, its NAME.eval.jsonl beside it) or a log"
    )
    parser.add_argument("-o", "--output", help="PNG to write (default: beside the source)")
    parser.add_argument("--title", help="title (default: the run's or policy's name)")
    parser.add_argument(
        "--opponents", nargs="+", help="panels to draw (default: every opponent in the log)"
    )


def run(args: argparse.Namespace) -> int:
    if not os.path.exists(args.source):  # a usage error, as an unknown agent is elsewhere
        print(f"sixtysix plot-curve: {args.source!r} does not exist", file=sys.stderr)
        return 2
    try:
        log = find_log(args.source)
        records = read_log(log)
        out = args.output or default_output(args.source, log)
        name = os.path.basename(os.path.normpath(args.source)).removesuffix(".npz")
        members = members_of(records)
        whose = (
            "" if members == [None] else "its member's " if len(members) == 1 else "its members' "
        )
        title = args.title or f"{name}: {whose}game points per hand during training"
        plot(records, out, title, args.opponents)
    except (CurveError, OSError) as e:
        print(f"sixtysix plot-curve: {e}", file=sys.stderr)
        return 1
    except ModuleNotFoundError as e:
        print(f'sixtysix plot-curve: needs {e.name}: pip install "sixtysix[plot]"', file=sys.stderr)
        return 2
    n = sum(1 for r in records if "against" in r)
    print(f"wrote {out} from {log} ({n} records)")
    return 0
