"""The benchmark says how long it will take before it starts; every refusal of
``sixtysix leaderboard`` names the file and why; a published command holds no path of
the machine it ran on."""

from __future__ import annotations

import json
import os
import types
from dataclasses import replace

import pytest

from sixtysix_env import cli
from sixtysix_env.benchmark import BENCHMARK_V1, benchmark, leaderboard
from sixtysix_env.benchmark.report import public_command, public_name, public_path
from sixtysix_env.benchmark.run import (
    HANDS_PER_MATCH,
    PairTiming,
    duration_text,
    estimate,
    pairs_to_play,
    time_pairs,
)

# -- the time -------------------------------------------------------------------------------


@pytest.mark.slow  # over half a second: the full run, not the fast lane (30 s)
def test_the_pairs_to_play_are_the_pairs_a_benchmark_plays(tiny):
    cache: dict = {}
    benchmark(["random", "heuristic:likely_points_per_trick=5"], tiny, cache=cache)
    assert pairs_to_play(["random", "heuristic:likely_points_per_trick=5"], tiny) == list(cache)
    full = pairs_to_play(["x"], BENCHMARK_V1)
    assert full == [("x", rung) for rung in BENCHMARK_V1.ladder]
    ladder = pairs_to_play(list(BENCHMARK_V1.ladder), BENCHMARK_V1)
    assert len(ladder) == 21 and ("random", "guided") in ladder


def test_the_estimate_scales_each_pairs_timing_by_the_protocols_hands():
    pairs = pairs_to_play(["x"], BENCHMARK_V1)
    timed = {p: PairTiming(0.5 if p[1] in ("expert", "guided") else 0.01, 16.0) for p in pairs}
    ms = {"x": 1.0, "expert": 30.0, "guided": 50.0}
    est = estimate(timed, BENCHMARK_V1, ms, agents=["x"])
    plain = 2 * 2000 + 2 * 500 * HANDS_PER_MATCH  # hands against a rung
    search = 2 * 300 + 2 * 40 * HANDS_PER_MATCH  # against expert or guided
    expected = 5 * plain * 0.01 + 2 * search * 0.5
    assert est.seconds == pytest.approx(expected)
    assert est.decisions == pytest.approx(16 * (5 * plain + 2 * search))
    assert est.search_share == pytest.approx(2 * search * 0.5 / expected)
    two = estimate(timed, BENCHMARK_V1, ms, workers=2)
    assert two.seconds == pytest.approx(expected / 2)
    line = est.describe()
    assert line.startswith(f"estimated time: about {duration_text(expected)} with 1 worker (")
    assert "in 7 pairs" in line and "against expert and guided at 30 and 50 ms" in line
    assert "x 1 ms" in line and "\n" not in line
    quick = BENCHMARK_V1.quick_variant()
    assert estimate(timed, quick, ms).seconds < est.seconds / 10
    kept = estimate({}, BENCHMARK_V1, {}, kept=7).describe()
    assert kept == "estimated time: a few seconds (all 7 pairs are kept from before)"
    some = estimate(dict(list(timed.items())[:2]), BENCHMARK_V1, ms, kept=5).describe()
    assert "in 2 pairs; 5 pairs kept from before" in some


def test_durations_are_rounded_as_estimates():
    assert [duration_text(s) for s in (0.2, 33, 89, 91, 1200, 7300)] == [
        "5 s", "35 s", "90 s", "2 min", "20 min", "2.0 h"]


def test_the_timing_plays_each_pair_once_and_refuses_a_bad_agent(tiny):
    pairs = pairs_to_play(["random"], tiny)
    timed, ms, took = time_pairs(pairs, tiny)
    assert list(timed) == pairs == [("random", "heuristic"), ("random", "sixtysix-ppo")]
    assert all(t.seconds_per_hand > 0 and 4 <= t.decisions_per_hand <= 30
               for t in timed.values())
    assert set(ms) == {"random", "heuristic", "sixtysix-ppo"} and took > 0
    with pytest.raises(ValueError, match="unknown agent"):
        time_pairs([("random", "nobody")], tiny)


def test_the_command_says_its_time_before_it_starts(tiny, tmp_path, capsys):
    out = tmp_path / "b"
    argv = ["benchmark", "heuristic:likely_points_per_trick=5", "--protocol", "test-tiny",
            "--no-progress", "--out-dir", str(out)]
    assert cli.main(argv) == 0
    captured = capsys.readouterr()
    (line,) = [x for x in captured.err.splitlines() if "estimated time" in x]
    assert line.startswith("sixtysix benchmark: estimated time: about ")
    assert "in 3 pairs" in line and "heuristic:likely_points_per_trick=5 " in line
    assert "timed on a paired deal per pair" in line
    assert "Elo: heuristic = 1500" in captured.out  # the table's anchor
    assert cli.main(argv) == 0  # again: every pair is kept in the folder
    assert "a few seconds (all 3 pairs are kept from before)" in capsys.readouterr().err


def test_the_command_without_a_file_to_write_prints_its_row(tiny, capsys):
    """It used to fail after playing everything (no --json, no --out-dir)."""
    assert cli.main(["benchmark", "random", "--protocol", "test-tiny", "--no-progress"]) == 0
    assert "| `random` |" in capsys.readouterr().out


# -- the leaderboard's refusals -------------------------------------------------------------


@pytest.fixture
def folder(tiny, tiny_two_agents, tmp_path):
    """A folder with the files of a full run of two agents (played once per module, copied)."""
    import shutil

    return shutil.copytree(tiny_two_agents, tmp_path / "board")


def _refusal(folder, capsys) -> str:
    assert cli.main(["leaderboard", str(folder)]) == 2
    return capsys.readouterr().err


def test_a_quick_result_beside_full_ones_is_named(folder, tmp_path, capsys):
    capsys.readouterr()
    assert cli.main(["benchmark", "sixtysix-ppo-v2", "--protocol", "test-tiny", "--quick",
                     "--json", str(folder / "mine.json"), "--no-progress"]) == 0
    capsys.readouterr()
    err = _refusal(folder, capsys)
    assert "test-tiny: heuristic.json, random.json" in err
    assert "test-tiny --quick: mine.json" in err
    assert "move the --quick result (mine.json) out of the folder" in err


def test_an_unknown_protocol_is_named_with_its_file(folder, capsys):
    for name in ("random.json", "heuristic.json"):
        data = json.loads((folder / name).read_text())
        (folder / name).write_text(json.dumps({**data, "protocol": "benchmark-v9"}))
    err = _refusal(folder, capsys)
    assert "heuristic.json, random.json: unknown benchmark protocol 'benchmark-v9'" in err


@pytest.mark.parametrize(
    "content, said",
    [
        ("{not json", "not a JSON file"),
        (b"\xff\xfe{}", "not a JSON file (not UTF-8 text)"),
        (json.dumps({"format": "sixtysix-benchmark", "format_version": 1, "agent": "x"}),
         "a benchmark file without "),
        (json.dumps({"format": "sixtysix-exploit", "target": "x"}),
         "an exploitability file (sixtysix-exploit) without gp_per_hand"),
    ],
)
def test_a_broken_file_is_named_with_the_reason(folder, capsys, content, said):
    path = folder / "zz-broken.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    err = _refusal(folder, capsys)
    assert f"{path}: " in err and said in err


@pytest.mark.parametrize(
    "name, change",
    [
        ("random.json", {"elo": "high"}),
        ("heuristic.json", {"wall_seconds": None}),
        ("exploit-random.json", {"steps": "many"}),
        ("exploit-random.json", {"gp_ci95": 0.5}),
    ],
)
def test_a_value_of_the_wrong_type_is_named_with_its_file(folder, capsys, name, change):
    exploit = {"format": "sixtysix-exploit", "format_version": 1, "target": "random",
               "gp_per_hand": 1.5,
               "gp_ci95": [1.4, 1.6], "deals": 2000, "steps": 1000, "train_seconds": 60.0,
               "command": "sixtysix exploit random"}
    (folder / "exploit-random.json").write_text(json.dumps(exploit))
    assert cli.main(["leaderboard", str(folder)]) == 0  # as written
    capsys.readouterr()
    data = json.loads((folder / name).read_text())
    (folder / name).write_text(json.dumps({**data, **change}))
    err = _refusal(folder, capsys)
    assert f"{folder / name}: a value of the wrong type" in err


def test_a_benchmark_file_of_another_version_names_its_fields(folder, capsys):
    data = json.loads((folder / "random.json").read_text())
    del data["timing"]
    (folder / "random.json").write_text(json.dumps({**data, "colour": "red"}))
    err = _refusal(folder, capsys)
    assert "random.json: a benchmark file without timing and with fields it does not have: " \
           "colour" in err


def test_two_files_for_one_agent_are_named(folder, capsys):
    (folder / "copy.json").write_text((folder / "random.json").read_text())
    err = _refusal(folder, capsys)
    assert "2 files benchmark the agent 'random': copy.json, random.json" in err


def test_a_folder_without_benchmark_files_says_so(tmp_path, capsys):
    (tmp_path / "notes.json").write_text("{}")
    err = _refusal(tmp_path, capsys)
    assert f"{tmp_path}: no benchmark file in it" in err


def test_an_output_in_a_missing_folder_is_refused(folder, tmp_path, capsys):
    assert cli.main(["leaderboard", str(folder), "-o", str(tmp_path / "no" / "page.md")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_mixed_results_without_files_are_named_by_agent(tiny):
    r = benchmark(["random"], tiny)[0]
    other = replace(r, agent="other", quick=True)
    with pytest.raises(ValueError, match="different protocols") as e:
        leaderboard([r, other])
    assert "test-tiny --quick: `other`" in str(e.value) and "test-tiny: `random`" in str(e.value)


# -- no path of the machine on the page -----------------------------------------------------


@pytest.mark.parametrize(
    "command, shown",
    [
        ("sixtysix benchmark /home/ann/agents/mine.npz --out-dir /home/ann/bench --workers 2",
         "sixtysix benchmark mine.npz --out-dir bench --workers 2"),
        ("sixtysix benchmark --ladder --out-dir docs/benchmarks/benchmark-v1 --workers 2",
         "sixtysix benchmark --ladder --out-dir docs/benchmarks/benchmark-v1 --workers 2"),
        ("sixtysix benchmark ../up/a.npz --json=/tmp/a.json --address=auto --workers 1",
         "sixtysix benchmark a.npz --json=a.json --workers 1"),
        ("sixtysix benchmark x.npz --address ray://10.0.0.1:10001 --workers 4",
         "sixtysix benchmark x.npz --workers 4"),
        ("sixtysix benchmark 'expert:prior=/home/ann/p.npz,samples=4' '~/b.npz:deterministic=false'",
         "sixtysix benchmark expert:prior=p.npz,samples=4 b.npz:deterministic=false"),
        ("sixtysix benchmark '/home/ann/my files/a b.npz' mybots:Greedy",
         "sixtysix benchmark 'a b.npz' mybots:Greedy"),
        ("sixtysix exploit /home/ann/t.npz --run-dir /home/ann/runs/e --steps 100",
         "sixtysix exploit t.npz --run-dir e --steps 100"),
    ],
)
def test_a_published_command_holds_no_path_of_the_machine(command, shown):
    assert public_command(command) == shown


def test_public_paths():
    assert public_path("/home/ann/bench/") == "bench"
    assert public_path("runs/a.npz") == "runs/a.npz"  # below the folder it ran in
    assert public_path("runs/../../x/a.npz") == "a.npz"
    assert public_name("/srv/m.npz:deterministic=false") == "m.npz:deterministic=false"


def test_the_page_shows_no_path_of_the_machine(tiny, tmp_path, monkeypatch):
    """An agent given by its absolute path, written to an absolute --out-dir: the page names
    the agent, its file and its command by base names."""
    policy = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "checkpoints", "sixtysix-ppo.npz")
    mine = tmp_path / "secret-place" / "mine.npz"
    mine.parent.mkdir()
    mine.write_bytes(open(policy, "rb").read())
    out = tmp_path / "secret-place" / "bench"
    assert cli.main(["benchmark", str(mine), "random", "--protocol", "test-tiny",
                     "--out-dir", str(out), "--no-progress"]) == 0
    recorded = json.loads((out / "mine.json").read_text())
    assert str(out) in recorded["command"]  # the file keeps it, for its owner
    page = tmp_path / "page.md"
    assert cli.main(["leaderboard", str(out), "-o", str(page)]) == 0
    text = page.read_text()
    assert "secret-place" not in text and str(tmp_path) not in text
    assert "| `mine.npz` |" in text and "`mine.npz` (" in text
    assert "sixtysix benchmark mine.npz random --protocol test-tiny --out-dir bench" in text
    assert "Generated by `sixtysix leaderboard bench -o page.md`" in text


def test_the_trained_for_column_reads_the_preset_from_the_file_benchmarked(tmp_path):
    """A network's row names the preset its file records; a built-in agent's, a file that
    changed since it was benchmarked, or one not here, none."""
    import shutil

    from sixtysix_env.benchmark.run import agent_file, recorded_policy
    from sixtysix_env.policy.shipped import shipped_policies

    assert recorded_policy(agent_file("sixtysix-ppo"))["rules"] == "altmisalti"
    assert agent_file("heuristic") is None and recorded_policy(None) is None
    copy = tmp_path / "mine.npz"
    shutil.copy(shipped_policies()["sixtysix-ppo"].path, copy)
    recorded = agent_file(str(copy))
    assert recorded_policy(recorded)["rules"] == "altmisalti"
    copy.write_bytes(copy.read_bytes() + b"\0")  # changed since: not the file benchmarked
    assert recorded_policy(recorded) is None
    assert recorded_policy({"path": str(tmp_path / "gone.npz"), "sha256": "0" * 64}) is None


def test_a_network_trained_on_whole_matches_says_so_in_its_row_and_listing():
    """The leaderboard's trained-for cell and `sixtysix agents` read match_play and the
    policy training started from out of the file; a network trained on hands has neither."""
    from sixtysix_env.agents.listing import describe_agents
    from sixtysix_env.benchmark.report import _trained_for
    from sixtysix_env.benchmark.run import agent_file, recorded_policy

    match, hands = recorded_policy(agent_file("sixtysix-ppo-match")), recorded_policy(
        agent_file("sixtysix-ppo-v5"))
    assert match["match_play"] and match["started_from"] == "sixtysix-ppo-v5"
    assert not hands["match_play"] and hands["started_from"] is None

    def cell(agent):  # the cell reads only the row's recorded file
        return _trained_for(types.SimpleNamespace(agent_file=agent_file(agent)))

    assert cell("sixtysix-ppo-match") == "`altmisalti` (matches)"
    assert cell("sixtysix-ppo-v5") == "`altmisalti`" and cell("heuristic") == "–"
    listing = describe_agents()
    assert "sixtysix-ppo-match altmisalti rules, whole matches, 2,502,656 training steps " \
           "from sixtysix-ppo-v5;" in " ".join(listing.split())
