"""The learning-curve script: reads a run's eval.jsonl (or the log beside a policy) and draws it."""

from __future__ import annotations

import json

import pytest

from sixtysix_env import cli
from sixtysix_training.common.plot_curve import CurveError, find_log, opponents_of, read_log


def main(argv: list[str]) -> int:
    """``sixtysix plot-curve ARGV``."""
    return cli.main(["plot-curve", *argv])

def _figure(gp: float) -> dict:
    return {"gp_per_hand": gp, "gp_ci95": [gp - 0.05, gp + 0.05], "paired_deals": 300}


def _record(steps: int, heuristic: float, random_: float = 1.5) -> dict:
    """One evaluation, in the shape SelfPlayCallback.evaluate writes."""
    return {
        "steps": steps,
        "wall_time_s": 1.0,
        "against": {"heuristic": _figure(heuristic), "random": _figure(random_)},
    }


def test_a_run_folder_log_is_drawn(tmp_path):
    pytest.importorskip("matplotlib")
    run = tmp_path / "runs" / "r"
    run.mkdir(parents=True)
    # A resumed run may evaluate twice at one step count.
    records = [_record(0, -0.1), _record(1000, 0.1), _record(1000, 0.12), _record(2000, 0.2)]
    (run / "eval.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert opponents_of(read_log(find_log(str(run)))) == ["random", "heuristic"]
    assert main([str(run)]) == 0
    png = (run / "curve.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000


def test_missing_or_malformed_logs_are_named(tmp_path, capsys):
    with pytest.raises(CurveError, match="sixtysix export RUN -o NAME.npz"):
        find_log(str(tmp_path / "policy.npz"))
    bad = tmp_path / "eval.jsonl"
    bad.write_text('{"steps": 5}\n')
    with pytest.raises(CurveError, match="line 1: an evaluation needs an 'against' object"):
        read_log(str(bad))
    bad.write_text("not json\n")
    assert main([str(bad)]) == 1
    assert "line 1: not JSON" in capsys.readouterr().err


def test_an_ensemble_log_draws_one_line_per_member(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    records = [{"about": "two members"}]
    for member, shift in (("a", 0.0), ("b", 0.05)):
        records += [{**_record(s, 0.1 * s / 1000 + shift), "member": member} for s in (0, 1000)]
    records.append({"kind": "at_export", "steps": 1000, "against": {"heuristic": _figure(0.3)}})
    log = tmp_path / "ens.eval.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    from sixtysix_training.common.plot_curve import members_of

    assert members_of(read_log(str(log))) == ["a", "b"]
    assert members_of([_record(0, 0.1)]) == [None]
    (tmp_path / "ens.npz").write_bytes(b"")
    assert main([str(tmp_path / "ens.npz")]) == 0
    assert "wrote" in capsys.readouterr().out
    assert (tmp_path / "ens.png").read_bytes().startswith(b"\x89PNG")
