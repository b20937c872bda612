"""``sixtysix benchmark AGENT --submit``: an agent on a clone's leaderboard in one command.

Issue 70: the way the docs gave (``--json`` into the leaderboard's folder, then
``sixtysix leaderboard``) left three of the clone's own tests failing: the standings of the
README and docs/benchmark.md, and the kept pairs. ``--submit`` writes the figures, the
pairs, the page and both standings; these tests run it in a copy of the repository's
leaderboard (its folder, page, README and docs/benchmark.md) and then the same checks the
committed-files tests run (``tests/_leaderboard_checks.py``), on the copy.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from _leaderboard_checks import ROOT, folder_of, page_problem, pair_problems, table_problem

from sixtysix_env import cli
from sixtysix_env.benchmark import pairs as bench_pairs
from sixtysix_env.benchmark import run as bench_run
from sixtysix_env.ranking.standings import PAGES, shipped_table, write_tables

#: An agent on the committed leaderboard (not a rung: its file is not the ladder's).
AGENT = "sixtysix-ppo-v3"


def _clone(root: Path) -> Path:
    """A copy of the repository's leaderboard in ``root``: benchmark-v1's folder, its page,
    the README and docs/benchmark.md, with ``AGENT`` taken off (its file gone, the
    standings written without it); its pairs are kept."""
    shutil.copytree(folder_of(ROOT, "benchmark-v1"), folder_of(str(root), "benchmark-v1"))
    for page in (*PAGES, os.path.join("docs", "leaderboard.md")):
        shutil.copyfile(os.path.join(ROOT, page), root / page)
    os.remove(os.path.join(folder_of(str(root), "benchmark-v1"), f"{AGENT}.json"))
    for result in Path(folder_of(ROOT, "benchmark-v1")).glob("*.json"):
        agent = json.loads(result.read_text(encoding="utf-8")).get("agent", "")
        if isinstance(agent, str) and os.path.isfile(os.path.join(ROOT, agent)):
            # an agent named by its file (not a shipped name): the same file in the copy
            os.makedirs(os.path.dirname(root / agent), exist_ok=True)
            shutil.copyfile(os.path.join(ROOT, agent), root / agent)
    folders = str(root / "docs" / "benchmarks")
    write_tables([str(root / p) for p in PAGES], shipped_table(folder=folders))
    return root


def _checks(root: Path) -> list[str]:
    said = [page_problem(str(root), "benchmark-v1"),
            *(table_problem(str(root), page) for page in PAGES),
            *pair_problems(str(root), "benchmark-v1")]
    return [s for s in said if s]


def _submit(*argv: str) -> int:
    return cli.main(["benchmark", *argv, "--submit", "--no-progress"])


def test_submitting_writes_the_figures_the_page_and_the_standings(tmp_path, monkeypatch,
                                                                  capsys):
    clone = _clone(tmp_path)
    monkeypatch.chdir(clone)
    assert AGENT not in (clone / "README.md").read_text(encoding="utf-8")

    def no_play(*args, **kwargs):
        raise AssertionError("a kept pair was played again")

    monkeypatch.setattr(bench_pairs, "evaluate", no_play)  # every pair of AGENT is kept
    assert _submit(AGENT) == 0
    out = capsys.readouterr().out
    ranked = re.findall(r"^\| \d+ \| `", (clone / "README.md").read_text(encoding="utf-8"), re.M)
    assert f"the leaderboard of {len(ranked)} agents is in docs/leaderboard.md" in out
    assert "the standings are in README.md and docs/benchmark.md" in out
    assert _checks(clone) == []
    for page in PAGES:  # its row is back in both tables
        assert f"| `{AGENT}` |" in (clone / page).read_text(encoding="utf-8")
    # The figures are the committed ones (the same pairs), recorded with their command.
    written = json.loads((folder_of(str(clone), "benchmark-v1") / Path(f"{AGENT}.json"))
                         .read_text(encoding="utf-8"))
    committed = bench_run.load_benchmark(os.path.join(folder_of(ROOT, "benchmark-v1"),
                                                       f"{AGENT}.json"))
    assert bench_run.BenchmarkResult.from_dict(written).figures() == committed.figures()
    assert written["command"] == f"sixtysix benchmark {AGENT} --submit --workers 1"


def test_the_old_way_leaves_the_standings_behind_and_the_checks_say_so(tmp_path, monkeypatch):
    """``--json`` then ``sixtysix leaderboard``, as the docs once said: the page is right,
    the standings and pairs are not, and the checks name what to run."""
    clone = _clone(tmp_path)
    monkeypatch.chdir(clone)
    shutil.copyfile(os.path.join(folder_of(ROOT, "benchmark-v1"), f"{AGENT}.json"),
                    os.path.join(folder_of(str(clone), "benchmark-v1"), f"{AGENT}.json"))
    for pair in Path(folder_of(str(clone), "benchmark-v1"), "pairs").glob(f"{AGENT}--*.json"):
        pair.unlink()
    assert cli.main(["leaderboard", "docs/benchmarks/benchmark-v1", "-o",
                     "docs/leaderboard.md"]) == 0
    said = _checks(clone)
    assert len(said) == 3, said
    assert said[0].startswith("README.md's standings differ") and \
        said[1].startswith(os.path.join("docs", "benchmark.md") + "'s standings differ")
    assert said[2].startswith(f"{AGENT}: its pairs against random, heuristic,") and \
        f"run sixtysix benchmark {AGENT} --submit" in said[2]


@pytest.mark.slow  # plays a pair of 2,000 paired deals and 500 match seeds (about 10 s)
def test_submitting_plays_and_keeps_the_missing_pairs(tmp_path, monkeypatch):
    clone = _clone(tmp_path)
    monkeypatch.chdir(clone)
    pair = Path(folder_of(str(clone), "benchmark-v1"), "pairs", f"{AGENT}--random.json")
    committed = json.loads(pair.read_text(encoding="utf-8"))
    pair.unlink()
    assert _submit(AGENT) == 0
    assert _checks(clone) == []
    played = json.loads(pair.read_text(encoding="utf-8"))
    for part in ("hands", "matches"):  # the same figures: the protocol's seeds
        assert played[part]["pairs"] == committed[part]["pairs"]


@pytest.mark.parametrize(
    "argv, said",
    [
        (["--quick"], "--submit puts full runs on the leaderboard"),
        (["--out-dir", "x"], "--submit writes into docs/benchmarks/PROTOCOL itself"),
        (["--json", "x.json"], "leave out --out-dir and --json"),
    ],
)
def test_submit_with_other_outputs_or_quick_is_refused(tmp_path, monkeypatch, capsys, argv,
                                                       said):
    monkeypatch.chdir(_clone(tmp_path))
    assert _submit("random", *argv) == 2
    assert said in capsys.readouterr().err


def test_submit_outside_a_clone_names_what_is_missing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "README.md").write_text("# mine, no standings\n")
    assert _submit("random") == 2
    err = capsys.readouterr().err
    assert ("--submit runs in the root of a clone of the repository, and writes "
            "docs/benchmarks/benchmark-v1, docs/leaderboard.md, README.md and "
            "docs/benchmark.md: the folder docs/benchmarks/benchmark-v1, README.md with its "
            "standings block, docs/benchmark.md not found in") in err
    assert os.listdir(tmp_path) == ["README.md"]  # nothing written
