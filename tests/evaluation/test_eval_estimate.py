"""``sixtysix eval`` says how long it will take before it plays (issue 70), as
``sixtysix benchmark`` does: the hands of the whole run, scaled from a timed paired deal
of each pair. The figures asserted are counts, not times."""

from __future__ import annotations

import argparse

import pytest

from sixtysix_env import cli
from sixtysix_env.evaluation import estimate as estimate_module
from sixtysix_env.evaluation.estimate import HANDS_PER_MATCH, duration_text, estimate_evaluation


def test_eval_prints_an_estimate_of_the_whole_run_before_playing(capsys):
    assert cli.main(["eval", "random", "heuristic", "random", "--matches", "3",
                     "--no-progress", "--plain"]) == 0
    out, err = capsys.readouterr()
    said = [line for line in err.splitlines() if "estimated time" in line]
    # 3 pairs, 3 paired match seeds each, 2 matches a seed of 6 hands (matches are
    # played game by game).
    assert len(said) == 1 and said[0].startswith("sixtysix eval: estimated time: about ")
    assert "with 1 worker (108 hands in 3 pairs;" in said[0]
    assert "timed on a paired deal per pair" in said[0]
    assert "random#2" in said[0] and " ms a decision" in said[0]
    assert "matches won" in out  # then the run itself


def test_the_estimate_counts_matches_in_hands_and_shares_them_over_the_workers():
    by_deals = estimate_evaluation(["random", "heuristic", "random"], deals=10, workers=2)
    assert (by_deals.pairs, by_deals.hands, by_deals.workers) == (3, 3 * 2 * 10, 2)
    assert list(by_deals.ms_per_decision) == ["random", "heuristic", "random#2"]
    by_matches = estimate_evaluation(["random", "heuristic"], matches=5, workers=1)
    assert by_matches.hands == 2 * 5 * HANDS_PER_MATCH


def test_the_estimate_scales_the_timed_deal(monkeypatch):
    """Each pair's timed seconds per hand, times its hands, over the workers."""
    monkeypatch.setattr(estimate_module, "_time_pair", lambda *a, **k: 0.5)
    est = estimate_evaluation(["random", "heuristic", "random"], deals=100, workers=4)
    assert est.seconds == pytest.approx(3 * 0.5 * 200 / 4)
    assert est.describe().startswith("estimated time: about 75 s with 4 workers (600 hands")


@pytest.mark.parametrize(
    "seconds, text", [(0.2, "5 s"), (42, "40 s"), (89, "90 s"), (294, "5 min"),
                      (7199, "120 min"), (3 * 3600, "3.0 h")])
def test_durations_are_rounded_as_an_estimate_should_be(seconds, text):
    assert duration_text(seconds) == text


@pytest.mark.parametrize("agents, extra, said", [
    (["random", "nobody"], [], "unknown agent 'nobody'"),
    (["random", "heuristic"], ["--workers", "0"], "workers must be >= 1"),
    (["random", "heuristic"], ["--deals", "0"], "must be >= 1"),
])
def test_a_refused_run_gets_its_own_message_and_no_estimate(capsys, agents, extra, said):
    assert cli.main(["eval", *agents, "--no-progress", *extra]) == 2
    err = capsys.readouterr().err
    assert said in err and "estimated time" not in err


def test_ctrl_c_while_timing_stops_before_any_game(monkeypatch, capsys, tmp_path):
    from sixtysix_env import evaluation

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluation.cli, "estimate_evaluation", interrupted)
    path = tmp_path / "run.json"
    path.write_text("earlier")
    args = argparse.Namespace(agents=["random", "heuristic"], matches=None, hands=None,
                              deals=10, rules="altmisalti", seed=0, workers=1, json=str(path),
                              no_progress=True, plain=True)
    assert evaluation.run(args) == 130
    err = capsys.readouterr().err
    assert "stopped (interrupted" in err and f"{path} is left as it was" in err
    assert path.read_text() == "earlier"
