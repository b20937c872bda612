"""Evaluation modes: "hand"/"match" as in the envs, the plural spellings accepted, old files read."""

from __future__ import annotations

import json

import pytest

from sixtysix_env.evaluation import EvalResult, evaluate, load_result, normalize_mode


def _figures(res):
    return [(p.deals, p.hands, p.gp_per_hand, p.gp_ci95, p.matches_won_a) for p in res.pairs]


@pytest.mark.parametrize("mode", ["hand", "hands"])
def test_hand_mode_either_spelling_is_deals(mode):
    res = evaluate(["random", "heuristic"], mode=mode, count=4, seed=2)
    assert res.mode == "hand"
    assert _figures(res) == _figures(evaluate(["random", "heuristic"], deals=4, seed=2))


@pytest.mark.parametrize("mode", ["match", "matches"])
def test_match_mode_either_spelling_is_matches(mode):
    res = evaluate(["random", "heuristic"], mode=mode, count=1, seed=2, rules="santase")
    assert res.mode == "match"
    expected = evaluate(["random", "heuristic"], matches=1, seed=2, rules="santase")
    assert _figures(res) == _figures(expected)


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"mode": "round", "count": 2}, "unknown evaluation mode 'round'; allowed: 'hand'"),
        ({"mode": "hand"}, "mode= and count= go together"),
        ({"deals": 2, "mode": "hand", "count": 2}, "exactly one of"),
        ({}, "exactly one of"),
    ],
)
def test_bad_mode_requests_are_named(kw, message):
    with pytest.raises(ValueError, match=message):
        evaluate(["random", "heuristic"], **kw)


def test_normalize_mode():
    assert [normalize_mode(m) for m in ("hand", "hands", "match", "matches")] == [
        "hand", "hand", "match", "match"
    ]
    with pytest.raises(ValueError, match="allowed"):
        normalize_mode("Hands")


def test_results_round_trip_and_old_files_still_load(tmp_path):
    path = tmp_path / "new.json"
    res = evaluate(["random", "heuristic"], deals=3, seed=1, json_path=str(path))
    data = json.loads(path.read_text())
    assert data["mode"] == "hand" and data["format_version"] == 2
    again = load_result(str(path))
    assert again == res
    # A file written before the modes were unified (format 1, "hands"/"matches").
    old = dict(data, mode="hands", format_version=1)
    (tmp_path / "old.json").write_text(json.dumps(old))
    assert load_result(str(tmp_path / "old.json")) == res
    assert EvalResult.from_dict(dict(old, mode="matches")).mode == "match"
    with pytest.raises(ValueError, match="format_version 99"):
        EvalResult.from_dict(dict(data, format_version=99))
