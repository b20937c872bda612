"""``sixtysix eval`` anchors its ratings as the benchmark does (``heuristic`` =
1500) when ``heuristic`` plays, and the table's title says which anchor it used."""

from __future__ import annotations

import pytest

from sixtysix_env.benchmark import BENCHMARK_V1
from sixtysix_env.cli import main
from sixtysix_env.evaluation import evaluate, plain_table
from sixtysix_env.evaluation.stats import elo_anchor


@pytest.mark.parametrize(
    "names, anchor, rating",
    [
        (["random", "heuristic", "expert"], 1, 1500.0),
        (["expert", "heuristic"], 1, 1500.0),
        (["expert", "random"], 1, 1000.0),
        (["expert", "sixtysix-ppo"], 0, 1000.0),
        (["heuristic:likely_points_per_trick=5", "random"], 1, 1000.0),  # another agent
    ],
)
def test_the_anchor_is_heuristic_then_random_then_the_first(names, anchor, rating):
    assert elo_anchor(names) == (anchor, rating)


def test_eval_and_benchmark_share_the_anchor():
    assert elo_anchor(["random", BENCHMARK_V1.anchor]) == (1, BENCHMARK_V1.anchor_elo)


@pytest.mark.parametrize("mode", [{"deals": 10}, {"matches": 2}])
def test_the_ratings_and_their_title_name_the_anchor(mode):
    res = evaluate(["random", "heuristic"], seed=3, **mode)
    assert res.elo_anchor == "heuristic" and res.elo["heuristic"] == 1500.0
    assert res.elo["random"] < 1500.0
    assert "anchored at heuristic = 1500" in plain_table(res)
    alone = evaluate(["random", "heuristic:likely_points_per_trick=5"], seed=3, **mode)
    assert alone.elo_anchor == "random" and alone.elo["random"] == 1000.0
    assert "anchored at random = 1000" in plain_table(alone)


def test_the_command_prints_the_anchor(capsys):
    assert main(["eval", "random", "heuristic", "--deals", "4", "--plain", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Ratings (Bradley-Terry on hands, anchored at heuristic = 1500)" in out
