"""``sixtysix benchmark`` and ``sixtysix leaderboard``: the protocol, its figures, its files."""

from __future__ import annotations

import json
import os
import time

import pytest

from _leaderboard_checks import ROOT, folder_of, page_problem
from sixtysix_env import cli
from sixtysix_env.benchmark import (
    BENCHMARK_V1,
    PAGAT66_V1,
    PROTOCOLS,
    SANTASE_V1,
    BenchmarkResult,
    PairStore,
    benchmark,
    fit_against,
    fit_ladder,
    leaderboard,
    load_benchmark,
    protocol_for_rules,
)
from sixtysix_env.benchmark import pairs as bench_pairs
from sixtysix_env.benchmark import run as bench_run
from sixtysix_env.benchmark.board import read_folder


def test_benchmark_v1_is_the_protocol_the_docs_state():
    p = BENCHMARK_V1
    assert p.name == "benchmark-v1" and p.rules == "altmisalti"
    assert p.ladder == ("random", "heuristic", "sixtysix-ppo", "sixtysix-ppo-v2",
                        "sixtysix-ppo-v2-sym", "expert", "guided")
    assert p.counts("x", "heuristic") == (2000, 500)
    assert p.counts("x", "expert") == p.counts("guided", "random") == (300, 40)
    assert (p.hand_seed, p.match_seed, p.anchor, p.anchor_elo) == (660001, 660002, "heuristic",
                                                                   1500.0)
    q = p.quick_variant()
    assert q.quick and (q.hand_seed, q.match_seed) == (p.hand_seed, p.match_seed)
    assert q.counts("x", "heuristic") == (100, 10) and q.counts("x", "expert") == (10, 2)


def test_santase_v1_is_benchmark_v1_for_the_santase_rules():
    p = SANTASE_V1
    assert p.name == "santase-v1" and p.rules == "santase"
    assert p.ladder == ("random", "heuristic", "sixtysix-ppo-v4", "expert")
    assert p.counts("x", "heuristic") == (2000, 500) and p.counts("x", "expert") == (300, 40)
    assert (p.hand_seed, p.match_seed, p.anchor, p.anchor_elo) == (660011, 660012, "heuristic",
                                                                   1500.0)
    assert protocol_for_rules("santase") is p and protocol_for_rules("altmisalti") is BENCHMARK_V1
    assert protocol_for_rules("pagat66") is PAGAT66_V1


def test_pagat66_v1_is_santase_v1_for_the_pagat66_rules_on_its_own_seeds():
    p = PAGAT66_V1
    assert p.name == "pagat66-v1" and p.rules == "pagat66"
    assert p.ladder == SANTASE_V1.ladder and p.search == SANTASE_V1.search
    assert p.counts("x", "heuristic") == (2000, 500) and p.counts("x", "expert") == (300, 40)
    assert (p.hand_seed, p.match_seed) == (660021, 660022)


def test_no_training_config_or_document_uses_the_protocol_seeds():
    """The benchmark's deals are fresh: no config trains or selects on them, and no two
    protocols share a seed."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    seeds = [s for p in PROTOCOLS.values() for s in (p.hand_seed, p.match_seed)]
    assert len(set(seeds)) == len(seeds)
    for folder in ("configs",):
        for name in os.listdir(os.path.join(root, folder)):
            if not name.endswith((".yaml", ".py")):  # __pycache__, where Python writes one
                continue
            text = open(os.path.join(root, folder, name), encoding="utf-8").read()
            for seed in seeds:
                assert str(seed) not in text, (name, seed)


@pytest.mark.slow  # over half a second: the full run, not the fast lane (30 s)
def test_same_figures_with_one_worker_or_two(tiny):
    one = benchmark(["heuristic:likely_points_per_trick=5"], tiny, workers=1)[0]
    two = benchmark(["heuristic:likely_points_per_trick=5"], tiny, workers=2)[0]
    assert one.figures() == two.figures()
    assert [o.name for o in one.opponents] == list(tiny.ladder)
    assert [o.deals for o in one.opponents] == [6, 6, 4]
    assert [o.match_seeds for o in one.opponents] == [2, 2, 1]
    assert one.opponent("heuristic").hands == 12


def test_a_pair_of_rungs_gives_the_same_figures_from_either_side(tiny):
    cache: dict = {}
    random_r, heuristic_r = benchmark(["random", "heuristic"], tiny, cache=cache)
    assert set(cache) == {("random", "heuristic"), ("random", "sixtysix-ppo"),
                          ("heuristic", "sixtysix-ppo")}
    a, b = random_r.opponent("heuristic"), heuristic_r.opponent("random")
    assert a.gp_per_hand == pytest.approx(-b.gp_per_hand)
    assert a.gp_ci95 == pytest.approx([-b.gp_ci95[1], -b.gp_ci95[0]])
    assert (a.hands_won, a.hands_lost, a.hands_tied) == (b.hands_lost, b.hands_won, b.hands_tied)
    assert a.matches_won + b.matches_won == a.matches
    assert a.match_rate == pytest.approx(1 - b.match_rate)
    # Played alone, heuristic's benchmark has the same figures as in the run of both
    # (the ratings differ: alone, it did not play the ladder's whole round robin).
    alone = benchmark(["heuristic"], tiny)[0]
    assert alone.figures()["opponents"] == heuristic_r.figures()["opponents"]
    assert alone.ladder_elo == {} and heuristic_r.ladder_elo["heuristic"] == 1500.0
    assert benchmark(["random"], tiny)[0].elo is None  # no ratings to fit against


def test_the_ladder_round_robin_fixes_the_ratings_and_anchors_them(tiny):
    results = benchmark(list(tiny.ladder), tiny)
    ladder = results[0].ladder_elo
    assert set(ladder) == set(tiny.ladder) and ladder["heuristic"] == 1500.0
    for r in results:
        # A rung's own fit against the others is its rating in the joint fit.
        assert r.elo == pytest.approx(ladder[r.agent], abs=0.2)
        assert r.ladder_elo == ladder
    assert ladder["random"] < ladder["heuristic"] < ladder["sixtysix-ppo"]


def test_fit_against_fixed_ratings(tiny):
    ratings = {"a": 1500.0, "b": 1700.0}
    # Winning half the hands against each, with the prior: between the two.
    r = fit_against({"a": (50.0, 100.0), "b": (50.0, 100.0)}, ratings)
    assert 1500 < r < 1700
    # Winning 76% against a 1500 player: about 200 points above it.
    r = fit_against({"a": (7600.0, 10000.0)}, ratings)
    assert r == pytest.approx(1500 + 400 * __import__("math").log10(0.76 / 0.24), abs=2)
    # A clean sweep stays finite.
    assert fit_against({"a": (100.0, 100.0)}, ratings) < 3000
    wins = {("random", "heuristic"): (10.0, 100.0), ("random", "sixtysix-ppo"): (5.0, 100.0),
            ("heuristic", "sixtysix-ppo"): (40.0, 100.0)}
    fitted = fit_ladder(tiny, wins)
    assert fitted["heuristic"] == 1500.0
    assert fitted["random"] < 1500 < fitted["sixtysix-ppo"]


def test_the_json_file_round_trips_and_names_what_was_measured(tiny, tmp_path):
    r = benchmark(["heuristic"], tiny)[0]
    path = tmp_path / "h.json"
    r.save_json(str(path))
    data = json.loads(path.read_text())
    assert data["format"] == "sixtysix-benchmark" and data["format_version"] == 1
    for key in ("agent", "protocol", "quick", "rules", "package_version", "agent_file",
                "opponents", "elo", "ladder_elo", "elo_anchor", "timing", "machine", "workers",
                "wall_seconds", "protocol_text"):
        assert key in data, key
    assert data["elo_anchor"] == {"heuristic": 1500.0}
    assert data["timing"]["against"] == "random" and data["timing"]["decisions"] > 0
    back = load_benchmark(str(path))
    assert back == r
    shipped = benchmark(["sixtysix-ppo"], tiny)[0]
    assert shipped.agent_file["path"] == "sixtysix-ppo.npz"
    assert len(shipped.agent_file["sha256"]) == 64
    path.write_text(json.dumps({**data, "format_version": 9}))
    with pytest.raises(ValueError, match="format_version"):
        load_benchmark(str(path))


def test_an_agent_class_of_ones_own_is_benchmarked(tiny, tmp_path, monkeypatch):
    (tmp_path / "my_bots.py").write_text(
        "class FirstLegal:\n"
        "    name = 'first-legal'\n"
        "    def act(self, view, rng):\n"
        "        mask = view.legal_mask\n"
        "        return (mask & -mask).bit_length() - 1\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    r = benchmark(["my_bots:FirstLegal"], tiny)[0]
    assert r.agent_file["path"].endswith("my_bots.py")
    assert r.opponent("random").hands == 12


def test_a_stopped_run_resumes_from_the_pairs_it_kept(tiny, tmp_path, monkeypatch):
    folder = str(tmp_path / "pairs")
    first = benchmark(["random"], tiny, cache=PairStore(folder, tiny))[0]
    assert sorted(os.listdir(folder)) == ["random--heuristic.json", "random--sixtysix-ppo.json"]

    def no_play(*a, **k):
        raise AssertionError("a kept pair was played again")

    monkeypatch.setattr(bench_pairs, "evaluate", no_play)
    again = benchmark(["random"], tiny, cache=PairStore(folder, tiny))[0]
    assert again.figures() == first.figures()
    # A pair kept under another protocol (here: the quick variant) is not reused.
    with pytest.raises(AssertionError, match="played again"):
        benchmark(["random"], tiny.quick_variant(), cache=PairStore(folder, tiny.quick_variant()))


def test_cli_writes_the_files_and_the_leaderboard(tiny, tmp_path, capsys):
    out = tmp_path / "board"
    rc = cli.main(["benchmark", "--ladder", "sixtysix-ppo-v2", "--protocol", "test-tiny",
                   "--out-dir", str(out), "--no-progress"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "| `sixtysix-ppo-v2` | `altmisalti` |" in text
    assert "| agent | trained for | Elo |" in text
    names = sorted(os.listdir(out))
    assert "test-tiny-ladder.json" in names and "sixtysix-ppo-v2.json" in names
    ratings = json.loads((out / "test-tiny-ladder.json").read_text())["ratings"]
    assert ratings["heuristic"] == 1500.0
    (out / "exploit-sixtysix-ppo.json").write_text(json.dumps({
        "format": "sixtysix-exploit", "format_version": 1, "target": "sixtysix-ppo",
        "gp_per_hand": 0.5,
        "gp_ci95": [0.4, 0.6], "deals": 2000, "steps": 1000000, "train_seconds": 600.0,
        "command": "sixtysix exploit sixtysix-ppo",
    }))
    page = tmp_path / "leaderboard.md"
    assert cli.main(["leaderboard", str(out), "-o", str(page)]) == 0
    md = page.read_text()
    assert md.startswith("# Leaderboard: test-tiny")
    for agent in (*tiny.ladder, "sixtysix-ppo-v2"):
        assert f"| `{agent}` |" in md
    assert "+0.500 [+0.400, +0.600]" in md
    # Beside it, the rung that wins most against the target, from the target's own file.
    ppo = json.loads((out / "sixtysix-ppo.json").read_text())
    best = min(ppo["opponents"], key=lambda o: o["gp_per_hand"])
    row = next(line for line in md.splitlines() if line.startswith("| `sixtysix-ppo` | +0.500"))
    assert row.endswith(f"`{best['name']}` {-best['gp_per_hand']:+.3f} "
                        f"[{-best['gp_ci95'][1]:+.3f}, {-best['gp_ci95'][0]:+.3f}] | – |")
    results, exploits = read_folder(str(out))
    assert len(results) == 4 and len(exploits) == 1

    # With a local best response, the last column plays the ladder's best on the LBR's own
    # deals, from the file in same-deals/ that has that pair on the same seed and deals.
    (out / "lbr-sixtysix-ppo.json").write_text(json.dumps({
        "format": "sixtysix-exploit", "format_version": 2, "method": "lbr",
        "target": "sixtysix-ppo", "gp_per_hand": 0.3, "gp_ci95": [0.2, 0.4], "deals": 50,
        "seed": 7, "command": "sixtysix exploit sixtysix-ppo --method lbr --seed 7"}))
    (out / "same-deals").mkdir()

    def same(seed, gp, deals=50, a=best["name"]):
        return json.dumps({
            "agents": [a, "sixtysix-ppo"], "rules": {"name": "altmisalti"}, "seed": seed,
            "mode": "hand", "format_version": 2, "command": f"sixtysix eval {a} x --seed {seed}",
            "pairs": [{"a": a, "b": "sixtysix-ppo", "deals": deals, "gp_per_hand": gp,
                       "gp_ci95": [gp - 0.1, gp + 0.1]}]})
    (out / "same-deals" / "a.json").write_text(same(8, 0.9))  # other deals
    (out / "same-deals" / "b.json").write_text(same(7, 0.9, deals=49))  # fewer deals
    (out / "same-deals" / "c.json").write_text(same(7, 0.9, a="random"))  # not the best
    (out / "same-deals" / "d.json").write_text(same(7, 0.25))
    assert cli.main(["leaderboard", str(out), "-o", str(page)]) == 0
    md = page.read_text()
    row = next(line for line in md.splitlines() if line.startswith("| `sixtysix-ppo` | +0.500"))
    assert row.endswith(f"| `{best['name']}` +0.250 [+0.150, +0.350], 50 |")
    assert f"    sixtysix eval {best['name']} x --seed 7" in md.splitlines()
    assert "--seed 8" not in md
    # A file there that is not an evaluation's is refused by name.
    (out / "same-deals" / "e.json").write_text(json.dumps({"pairs": "x"}))
    assert cli.main(["leaderboard", str(out)]) == 2
    assert "e.json: not an evaluation file" in capsys.readouterr().err
    (out / "same-deals" / "e.json").write_text(same(7, 0.5).replace("0.5", '"high"', 1))
    assert cli.main(["leaderboard", str(out)]) == 2
    assert "pairs[0].gp_per_hand is 'high'; it is a number or null" in capsys.readouterr().err
    (out / "same-deals" / "e.json").write_text(same(7, 0.5).replace('"hand"', '"rounds"'))
    assert cli.main(["leaderboard", str(out)]) == 2
    assert "e.json: unknown evaluation mode 'rounds'" in capsys.readouterr().err
    (out / "same-deals" / "e.json").unlink()
    # An estimate made under other rules than the protocol's is refused by name.
    other = json.loads((out / "lbr-sixtysix-ppo.json").read_text())
    (out / "lbr-santase.json").write_text(json.dumps({**other, "rules": "santase"}))
    assert cli.main(["leaderboard", str(out)]) == 2
    assert ("lbr-santase.json: an exploitability estimate under the santase rules beside "
            "benchmark files of the altmisalti rules") in capsys.readouterr().err
    (out / "lbr-santase.json").write_text(json.dumps({**other, "rules": "altmisalti"}))
    assert cli.main(["leaderboard", str(out)]) == 0
    capsys.readouterr()
    (out / "lbr-santase.json").unlink()
    # Rows are ranked by Elo.
    ranked = [r.agent for r in sorted(results, key=lambda r: -r.elo)]
    rows = [line.split("|")[1].strip(" `") for line in md.splitlines()
            if line.startswith("| `")][:4]
    assert rows == ranked


def test_leaderboard_refuses_mixed_protocols(tiny):
    r = benchmark(["random"], tiny)[0]
    other = BenchmarkResult(**{**r.__dict__, "quick": True})
    with pytest.raises(ValueError, match="different protocols"):
        leaderboard([r, other])


@pytest.mark.parametrize(
    "argv, message",
    [
        (["benchmark"], "name an agent"),
        (["benchmark", "random", "heuristic", "--json", "x.json"], "--json takes one"),
        (["benchmark", "--ladder"], "give --out-dir"),
        (["benchmark", "random", "--workers", "0"], "--workers must be >= 1"),
        (["benchmark", "random", "--address", "127.0.0.1:1"], "cannot reach the Ray cluster"),
        (["benchmark", "random", "--address", "nowhere"], "is not 'auto'"),
        (["benchmark", "random", "--json", "/no/such/folder/x.json"], "does not exist"),
    ],
)
def test_cli_refuses_bad_options_at_once(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    t0 = time.perf_counter()
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err
    assert time.perf_counter() - t0 < 10


def test_cli_names_an_unknown_agent(tiny, capsys):
    assert cli.main(["benchmark", "nobody", "--protocol", "test-tiny", "--no-progress"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err


@pytest.mark.slow
def test_sigterm_stops_with_143_and_the_pairs_played_resume(tmp_path):
    import signal
    import subprocess
    import sys

    out = tmp_path / "b"
    cmd = [sys.executable, "-m", "sixtysix_env", "benchmark", "random", "--quick", "--out-dir",
           str(out), "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        while not any("random vs sixtysix-ppo:" in x for x in lines):
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            lines.append(line)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 143, err
    assert "the pairs played in full are kept" in err
    kept = sorted(os.listdir(out / "pairs"))
    assert "random--heuristic-quick.json" in kept and "random--sixtysix-ppo-quick.json" in kept
    assert not list(out.glob("random*.json"))  # no figures for an unfinished agent


@pytest.mark.parametrize("name", sorted(PROTOCOLS))
def test_the_committed_leaderboard_is_the_one_its_files_make(name):
    """Each protocol's page is generated: regenerating it from its folder changes nothing,
    and the ladder's ratings installed with the package are the folder's."""
    protocol = PROTOCOLS[name]
    folder = folder_of(ROOT, name)
    problem = page_problem(ROOT, name)
    assert problem is None, problem
    results, _ = read_folder(folder)
    assert {r.agent for r in results} >= set(protocol.ladder)
    assert all(not r.quick and r.protocol == name for r in results)
    with open(os.path.join(folder, f"{name}-ladder.json"), encoding="utf-8") as f:
        ratings = json.load(f)["ratings"]
    assert bench_run.reference_ratings(protocol) == ratings
    for r in results:
        assert r.ladder_elo == ratings
