"""The benchmark's files, as they are written, kept and read.

* A result is never written over by the figures of another agent spec, protocol or mode:
  ``--quick`` writes ``NAME-quick.json``; any other clash is refused before anything is
  played (exit 2, naming the file and what it holds).
* A kept pair is reused only as the protocol plays it (complete, its agents, mode, seed,
  counts and rules); any other file where a pair is kept is refused by name (exit 2), never
  published and never played over. A pair of another stamp (package version, agent
  file) is played again, as before.
* The leaderboard shows every string from a file as text (no HTML, no link, no end of a
  cell), validates both formats field by field, and reads only small regular files.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
from html.parser import HTMLParser
from pathlib import Path

import pytest
from _leaderboard_checks import ROOT, folder_of, pair_problems

from sixtysix_env import cli
from sixtysix_env.benchmark import BENCHMARK_V1, PROTOCOLS, PairStore
from sixtysix_env.ranking import standings as standings_module
from sixtysix_env.util import version
from sixtysix_env.util.version import GAMES_VERSION

POLICY = os.path.join(ROOT, "checkpoints", "sixtysix-ppo.npz")
OUTSIDER_FILE = "heuristic_likely_points_per_trick_5.json"  # conftest.OUTSIDER's figures


def _json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _write(path, data):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)


def _bench(*argv) -> int:
    return cli.main(["benchmark", *argv, "--protocol", "test-tiny", "--no-progress"])


def _policy(folder) -> str:
    """A copy of a shipped policy as ``folder/policy.npz`` (relative to the current folder)."""
    os.makedirs(folder, exist_ok=True)
    shutil.copyfile(POLICY, os.path.join(folder, "policy.npz"))
    return os.path.join(folder, "policy.npz")


# -- 4. a result is never written over by another's ------------------------------------------


def test_a_quick_run_writes_beside_the_full_result_not_over_it(tiny_board, capsys):
    full = (tiny_board / "random.json").read_bytes()
    assert _bench("random", "--quick", "--out-dir", str(tiny_board)) == 0
    assert (tiny_board / "random.json").read_bytes() == full  # the full run is kept
    assert _json(tiny_board / "random-quick.json")["quick"] is True
    capsys.readouterr()
    # The leaderboard then names the quick file to move out (it takes one protocol).
    assert cli.main(["leaderboard", str(tiny_board)]) == 2
    assert "move the --quick result (random-quick.json) out of the folder" in \
        capsys.readouterr().err


def test_a_quick_ladder_keeps_the_full_ladders_ratings(tiny_board):
    ladder = {"protocol": "test-tiny", "quick": False, "command": "sixtysix benchmark --ladder",
              "ratings": {"random": 1200.0, "heuristic": 1500.0, "sixtysix-ppo": 1600.0}}
    _write(tiny_board / "test-tiny-ladder.json", ladder)
    assert _bench("--ladder", "--quick", "--out-dir", str(tiny_board)) == 0
    assert _json(tiny_board / "test-tiny-ladder.json") == ladder
    assert _json(tiny_board / "test-tiny-ladder-quick.json")["quick"] is True


def _another_policys_figures(board, spec: str) -> None:
    """``board/policy.json`` holding the figures of ``spec`` (an agent outside the ladder)."""
    data = _json(board / OUTSIDER_FILE)
    _write(board / "policy.json", {**data, "agent": spec})


@pytest.mark.parametrize(
    "argv, held",
    [
        # two policy files of one name, from different folders
        (["b/policy.npz", "--out-dir", "board"], "the figures of 'a/policy.npz' (test-tiny)"),
        # --json over another agent's figures, or over the same agent's of another mode
        (["heuristic", "--json", "board/random.json"], "the figures of 'random' (test-tiny)"),
        (["random", "--quick", "--json", "board/random.json"],
         "the figures of 'random' (test-tiny); the figures of 'random' (test-tiny --quick)"),
        # --json over a file that is not a benchmark's
        (["random", "--json", "board/notes.json"], "a JSON file that is not a benchmark's"),
    ],
)
def test_a_file_of_another_spec_or_mode_is_not_written_over(tiny_board, monkeypatch, capsys,
                                                             argv, held):
    monkeypatch.chdir(tiny_board.parent)
    _policy("a")
    _policy("b")
    _another_policys_figures(tiny_board, "a/policy.npz")
    _write(tiny_board / "notes.json", {"note": "mine"})
    before = {p: p.read_bytes() for p in tiny_board.glob("*.json")}
    assert _bench(*argv) == 2
    err = capsys.readouterr().err
    target = argv[argv.index("--json") + 1] if "--json" in argv else "board/policy.json"
    assert f"{target} holds {held}" in err, err
    assert "move that file away first" in err
    assert {p: p.read_bytes() for p in tiny_board.glob("*.json")} == before


def test_two_agents_of_one_run_with_one_file_name_are_refused_before_playing(
        tiny, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _policy("a")
    _policy("b")
    assert _bench("a/policy.npz", "b/policy.npz", "--out-dir", "out") == 2
    err = capsys.readouterr().err
    assert "'a/policy.npz' and 'b/policy.npz' would write their figures to one file, " \
           "out/policy.json" in err
    assert not os.path.exists("out/policy.json") and not os.path.exists("out/pairs")


# -- 5. a kept pair is reused only as the protocol plays it --------------------------------------

PAIR = os.path.join("pairs", "random--heuristic.json")


def _forge(board, change) -> str:
    path = str(board / PAIR)
    data = _json(path)
    change(data)
    _write(path, data)
    return path


def _incomplete(d):
    """A pair stopped after 3 deals, its figures scaled as such a file would hold them."""
    h = d["hands"]
    h.update(complete=False, stopped="interrupted (Ctrl-C)", requested=3)
    h["pairs"][0].update(deals=3, hands=6, gp_per_hand=-2.5, gp_ci95=[-2.9, -2.1],
                         hands_won_a=0, hands_won_b=6, hands_tied=0)


def test_a_forged_pair_is_refused_by_name_and_never_published(tiny_board, capsys):
    path = _forge(tiny_board, _incomplete)
    forged = Path(path).read_bytes()
    published = (tiny_board / "random.json").read_bytes()
    assert _bench("random", "--out-dir", str(tiny_board)) == 2
    err = capsys.readouterr().err
    assert f"{path}: a kept pair this benchmark will not reuse: its hands: complete is False" \
        in err and "Delete the file to play the pair again" in err
    assert Path(path).read_bytes() == forged  # not played over
    assert (tiny_board / "random.json").read_bytes() == published  # its -2.5 not published


def _set(part, **values):
    return lambda d: d[part].update(values)


def _set_pair(part, **values):
    return lambda d: d[part]["pairs"][0].update(values)


def _rules(d):
    d["hands"]["rules"]["marriage_after_close"] = not d["hands"]["rules"]["marriage_after_close"]


@pytest.mark.parametrize(
    "change, said",
    [
        (_incomplete, "its hands: complete is False"),
        (_set("matches", complete=True, stopped="terminated"), "(stopped: 'terminated')"),
        (_set("hands", seed=7), "its hands: seed 7; test-tiny plays them from seed 5"),
        (_set("matches", seed=5), "its matches: seed 5; test-tiny plays them from seed 6"),
        (_set("hands", mode="match"), "its hands: mode 'match'; they are played in mode 'hand'"),
        (_set("matches", requested=5), ("its matches: 5 paired match seeds asked for; "
                                       "test-tiny plays 2")),
        (_set_pair("hands", deals=3), "its hands: 3 paired deals played; test-tiny plays 6"),
        (_rules, "rules that differ from test-tiny's ('altmisalti') in marriage_after_close"),
        (_set("hands", agents=["heuristic", "random"]), "agents ['heuristic', 'random']"),
        (_set_pair("hands", a="heuristic", b="random"), "the figures of 'heuristic' against"),
        (_set("hands", pairs=[]), "its hands: 0 pairs' figures"),
        (_set_pair("hands", gp_per_hand="-2.5"), ("pairs[0].gp_per_hand is '-2.5'; it is a "
                                                 "number")),
        (_set_pair("hands", hands_won_a=13), "that do not add up to its 12 hands"),
        (_set_pair("matches", matches_won_a=9), "9 of 4 matches won"),
        (_set("hands", timing="fast"), "a timing or wall_seconds of the wrong type"),
        (_set("hands", pairs=["x"]), "its hands are not an evaluation's result"),
        # a figure outside its own interval (issue 71): never reused, so never published
        (_set_pair("hands", gp_per_hand=2.5), ("its hands: pairs[0].gp_per_hand 2.5 lies "
                                               "outside its own 95% interval pairs[0].gp_ci95")),
        (_set_pair("matches", match_rate_a=0.0, match_ci95=[0.5, 0.9]),
         "its matches: pairs[0].match_rate_a 0.0 lies outside its own 95% interval"),
        (lambda d: d.pop("matches"), "its matches are not an evaluation's result"),
    ],
)
def test_a_kept_pair_that_the_protocol_would_not_play_is_refused(tiny, tiny_board, change,
                                                                said):
    path = _forge(tiny_board, change)
    store = PairStore(str(tiny_board / "pairs"), tiny)
    with pytest.raises(ValueError, match="a kept pair this benchmark will not reuse") as e:
        ("random", "heuristic") in store  # noqa: B015 (the refusal comes from `in`)
    assert str(e.value).startswith(f"{path}: ") and said in str(e.value), str(e.value)


def _fifo(path: str) -> threading.Timer:
    """A FIFO at ``path``; after 5 s a writer opens and closes it, so that a reader that
    opened it (and would hang) gets an empty file and the test fails instead of hanging."""
    os.mkfifo(path)

    def unblock():
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)
        except OSError:
            pass  # nobody reading

    timer = threading.Timer(5.0, unblock)
    timer.start()
    return timer


@pytest.mark.parametrize("kind", ["no pairs", "a list", "not JSON", "FIFO", "device"])
def test_a_malformed_pair_is_an_error_naming_it_not_a_traceback(tiny_board, capsys, kind):
    path = str(tiny_board / PAIR)
    timer = None
    if kind == "no pairs":
        _forge(tiny_board, _set("hands", pairs=[]))
    elif kind == "a list":
        _write(path, [1, 2])
    elif kind == "not JSON":
        Path(path).write_text("{stamp")
    else:
        os.remove(path)
        if kind == "FIFO":
            timer = _fifo(path)
        else:
            os.symlink(os.devnull, path)
    try:
        assert _bench("random", "--out-dir", str(tiny_board)) == 2
    finally:
        if timer is not None:
            timer.cancel()
    err = capsys.readouterr().err
    said = {"no pairs": "0 pairs' figures", "a list": "it is not a kept pair",
            "not JSON": "not a JSON file", "FIFO": "is not a regular file",
            "device": "is not a regular file"}[kind]
    assert path in err and said in err, err
    assert "Traceback" not in err


def test_a_figure_outside_its_interval_is_not_written(tiny, tiny_board, tmp_path):
    """Where pairs and results are written: a figure outside its own 95% interval is
    refused by the file's name, and nothing is written."""
    from sixtysix_env.benchmark.run import PairRun, load_benchmark
    from sixtysix_env.evaluation.result import EvalResult
    from sixtysix_env.ranking.standings import BenchmarkFileError

    data = _json(tiny_board / PAIR)
    data["hands"]["pairs"][0]["gp_ci95"] = [0.5, 0.6]  # the figure (-1.75 or so) is below
    run = PairRun(EvalResult.from_dict(data["hands"]), EvalResult.from_dict(data["matches"]))
    store = PairStore(str(tmp_path / "pairs"), tiny)
    with pytest.raises(BenchmarkFileError) as e:
        store[("random", "heuristic")] = run
    path = str(tmp_path / PAIR)
    assert str(e.value).startswith(f"{path}: not written: its hands: pairs[0].gp_per_hand ")
    assert "lies outside its own 95% interval pairs[0].gp_ci95 [0.5, 0.6]" in str(e.value)
    assert not os.path.exists(path)

    result = load_benchmark(str(tiny_board / "random.json"))
    result.opponents[0].match_gp_ci95 = [9.0, 9.5]
    with pytest.raises(BenchmarkFileError) as e:
        result.save_json(str(tmp_path / "random.json"))
    assert str(e.value).startswith(f"{tmp_path / 'random.json'}: not written: the opponent "
                                   "heuristic: match_gp_per_hand ")
    assert not os.path.exists(tmp_path / "random.json")


@pytest.mark.parametrize("key", ["games_version", "package_version"])
def test_a_pair_of_other_games_is_played_again_and_replaced(tiny, tiny_board, key):
    """The decision for a stale pair (not a forged one): a package of other games (or
    another agent file) played it, so it is played again and the file replaced, as before.
    0.1.0 stamped its version as ``package_version``: read as the games' version."""
    def stale(d):
        d["stamp"].pop("games_version", None)
        d["stamp"][key] = "0.0.1"

    path = _forge(tiny_board, stale)
    store = PairStore(str(tiny_board / "pairs"), tiny)
    assert ("random", "heuristic") not in store
    assert _bench("random", "--out-dir", str(tiny_board)) == 0
    assert _json(path)["stamp"]["games_version"] == GAMES_VERSION


def test_a_new_release_of_the_same_games_keeps_every_pair(tiny, tiny_board, monkeypatch):
    """A pair kept by 0.1.0 (its stamp's package_version) is reused by any release whose
    games are 0.1.0's, whatever the package's own version."""
    def as_0_1_0(d):
        d["stamp"].pop("games_version", None)
        d["stamp"]["package_version"] = GAMES_VERSION

    path = _forge(tiny_board, as_0_1_0)
    assert "games_version" not in _json(path)["stamp"]
    monkeypatch.setattr(version, "__version__", "9.9.9")
    assert ("random", "heuristic") in PairStore(str(tiny_board / "pairs"), tiny)


@pytest.mark.parametrize("name", sorted(PROTOCOLS))
def test_every_committed_pair_is_reused(name):
    """The pairs kept beside the leaderboard's files pass the checks: a run of the
    leaderboard's agents plays none of them again, and each agent's are there (a result
    added by --json keeps none: the message names the agent and the command)."""
    problems = pair_problems(ROOT, name)
    assert not problems, "\n".join(problems)


def test_a_result_without_its_pairs_is_named_with_the_command(tmp_path):
    """Issue 70: `sixtysix benchmark my.npz --json docs/benchmarks/benchmark-v1/my.json`
    keeps no pairs; the check says whose pairs are missing and what keeps them (once a bare
    ``assert 63 == 56``)."""
    folder = folder_of(str(tmp_path), "benchmark-v1")
    shutil.copytree(folder_of(ROOT, "benchmark-v1"), folder)
    for pair in Path(folder, "pairs").glob("sixtysix-ppo-v3--*.json"):
        pair.unlink()
    Path(folder, "pairs", "mine--random.json").write_text("{}")
    problems = pair_problems(str(tmp_path), "benchmark-v1")
    assert problems == [
        "sixtysix-ppo-v3: its pairs against random, heuristic, sixtysix-ppo, sixtysix-ppo-v2, "
        "sixtysix-ppo-v2-sym, expert, guided are not kept in docs/benchmarks/benchmark-v1/pairs "
        "(or would be played again: another package version or agent file). A --json result "
        "keeps none: run sixtysix benchmark sixtysix-ppo-v3 --submit in the repository's root, "
        "which plays and keeps them (and rewrites the page and the standings)",
        "docs/benchmarks/benchmark-v1/pairs/mine--random.json: a kept pair of no agent in the "
        "folder: delete it"]


# -- 6. the leaderboard: escaped, validated, small regular files ---------------------------------

#: Strings a benchmark or exploitability file may hold, each an attack on a page that
#: copied it as it is.
HOSTILE = {
    "agent": "mine<script>alert(1)</script>|x`y",
    "machine": "<img src=x onerror=alert(2)> [click](javascript:alert(3)) | *b* _i_",
    "package_version": "0.1.0</td><td>&amp;\"'",
    "file": "<svg onload=alert(4)>.npz",
    "target": "[t](javascript:alert(5))",
    "start": "<b onmouseover=alert(6)>x</b>",
}
#: A recorded command with a quoted line break: raw HTML on the next line, outside the code block.
COMMAND = "sixtysix benchmark 'a\n<script>alert(7)</script>' --workers 1"


class _Page(HTMLParser):
    """The tags, attributes, text and table rows of a rendered page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.text, self.rows, self._cells = set(), set(), [], [], None

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs.update(name for name, _ in attrs)
        if tag == "tr":
            self._cells = 0
        elif tag in ("td", "th"):
            self._cells += 1

    def handle_endtag(self, tag):
        if tag == "tr":
            self.rows.append(self._cells)

    def handle_data(self, data):
        self.text.append(data)


def test_every_string_from_a_file_is_shown_as_text_on_the_page(tiny_board, capsys):
    data = _json(tiny_board / OUTSIDER_FILE)
    data.update(agent=HOSTILE["agent"], machine=HOSTILE["machine"], command=COMMAND,
                package_version=HOSTILE["package_version"],
                agent_file={"path": HOSTILE["file"], "sha256": "ab" * 32})
    _write(tiny_board / OUTSIDER_FILE, data)
    _write(tiny_board / "exploit.json", {
        "format": "sixtysix-exploit", "format_version": 1, "target": HOSTILE["target"],
        "gp_per_hand": 0.1, "gp_ci95": [0.0, 0.2], "deals": 10, "steps": 100,
        "train_seconds": 60.0, "command": COMMAND,
        "start": {"from": "init", "agent": HOSTILE["start"], "symmetry_dropped": False}})
    out = tiny_board / "page.md"
    assert cli.main(["leaderboard", str(tiny_board), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    # No character of HTML's from a file is on the page as it is outside a code block
    # (whose text is shown as it is): the only "<" opens the page's own comment; every
    # line of a table has its columns, no more.
    prose = "\n".join(line for line in page.splitlines() if not line.startswith("    "))
    assert prose.count("<") == prose.count("<!--") == 1
    assert "](javascript" not in re.sub(r"`[^`]*`", "", prose).replace("\\](javascript", "")
    for line in page.splitlines():
        if line.startswith("| "):
            assert line.replace("\\|", "").count("|") in (5, 7, 8, 10), line
    shown = "    sixtysix benchmark 'a\ufffd<script>alert(7)</script>' --workers 1"
    assert page.splitlines().count(shown) == 2  # the exploitability estimate's and the result's
    mdit = pytest.importorskip("markdown_it", reason="markdown-it-py (rich's) renders the page")
    rendered = _Page()
    rendered.feed(mdit.MarkdownIt("commonmark").enable("table").render(page))
    assert rendered.tags <= {"h1", "h2", "p", "table", "thead", "tbody", "tr", "th", "td",
                             "code", "pre"}, rendered.tags
    assert rendered.attrs <= {"style"}, rendered.attrs  # the columns' alignment only
    assert set(rendered.rows) == {4, 6, 7, 9}  # hands (7), matches (4), exploit (9), files (6)
    text = "".join(rendered.text)
    for value in HOSTILE.values():  # each shown as it is
        assert value in text, value
    assert "a\ufffd<script>alert(7)</script>" in text  # the line break shown as U+FFFD


@pytest.mark.parametrize(
    "name, change, said",
    [
        ("random.json", {"agent": ["x"]}, "agent is ['x']; it is a name"),
        ("random.json", {"protocol": {"v": 1}}, "protocol is {'v': 1}; it is a name"),
        ("random.json", {"quick": "no"}, "quick is 'no'; it is true or false"),
        ("random.json", {"elo": float("nan")}, "elo is nan; it is a number or null"),
        ("random.json", {"ladder_elo": {"random": "low"}}, "ladder_elo is {'random': 'low'}"),
        ("random.json", {"timing": {"median_ms": "fast"}}, "timing is {'median_ms': 'fast'}"),
        ("random.json", {"agent_file": {"path": 1}}, "agent_file is {'path': 1}"),
        ("random.json", {"opponents": [{"name": "heuristic"}]},
         "the opponent 'heuristic' without deals"),
        ("random.json", {"opponents": "all"}, "opponents is 'all'; it is a list of objects"),
        ("exploit.json", {"format_version": 3}, ("format_version 3; this version reads "
                                                "sixtysix-exploit files of format_version 1 or 2")),
        ("exploit.json", {"format_version": 2, "method": "dqn"},
         "method 'dqn'; an exploitability file's method is 'ppo' or 'lbr'"),
        ("exploit.json", {"target": ["x"]}, "target is ['x']; it is a name"),
        ("exploit.json", {"start": "init"}, "start is 'init'; it is an object or null"),
        ("exploit.json", {"start": {"agent": None}}, "start.agent is None; it is a name"),
        ("exploit.json", {"deals": -1}, "deals is -1; it is a whole number, 0 or more"),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_by_its_file_and_field(tiny_board, capsys, name,
                                                                     change, said):
    _write(tiny_board / "exploit.json", {
        "format": "sixtysix-exploit", "format_version": 1, "target": "random",
        "gp_per_hand": 1.5, "gp_ci95": [1.4, 1.6], "deals": 2000, "steps": 1000,
        "train_seconds": 60.0, "command": "sixtysix exploit random"})
    data = _json(tiny_board / name)
    _write(tiny_board / name, {**data, **change})
    assert cli.main(["leaderboard", str(tiny_board)]) == 2  # an error, not a traceback
    err = capsys.readouterr().err
    assert f"{tiny_board / name}: " in err and said in err, err


def _counts(o, deals=None, seeds=None):
    if deals is not None:
        o.update(deals=deals, hands=2 * deals, hands_won=2 * deals, hands_lost=0, hands_tied=0)
    if seeds is not None:
        o.update(match_seeds=seeds, matches=2 * seeds, matches_won=0)


@pytest.mark.parametrize(
    "change, said",
    [
        (lambda d: _counts(d["opponents"][0], deals=3),
         ("not played as test-tiny plays: 3 paired deals and 2 match seeds against heuristic; "
         "test-tiny plays 6 and 2")),
        (lambda d: _counts(d["opponents"][1], seeds=40),
         "40 match seeds against sixtysix-ppo; test-tiny plays 4 and 1"),
        (lambda d: d["opponents"].pop(), ("opponents heuristic; test-tiny plays heuristic, "
                                         "sixtysix-ppo")),
        (lambda d: d.update(rules="santase"), "rules 'santase'; test-tiny plays 'altmisalti'"),
        (lambda d: d["opponents"][0].update(hands_won=0), "do not add up to its 12 hands"),
        (lambda d: d["opponents"][0].update(gp_per_hand=3.75),
         "gp_per_hand 3.75 lies outside its own 95% interval gp_ci95"),
    ],
)
def test_a_result_not_played_as_its_protocol_plays_is_not_mixed_in(tiny_board, capsys, change,
                                                                   said):
    data = _json(tiny_board / "random.json")
    change(data)
    _write(tiny_board / "random.json", data)
    assert cli.main(["leaderboard", str(tiny_board)]) == 2
    err = capsys.readouterr().err
    assert "random.json" in err and said in err, err


@pytest.mark.parametrize("kind", ["FIFO", "device", "folder", "too big", "too deep"])
def test_the_leaderboard_reads_only_small_regular_files(tiny_board, capsys, kind):
    path = str(tiny_board / "zz.json")
    timer = None
    if kind == "FIFO":
        timer = _fifo(path)
    elif kind == "device":  # as /dev/zero would be, which never ends
        os.symlink(os.devnull, path)
    elif kind == "folder":
        os.mkdir(path)
    elif kind == "too big":
        with open(path, "wb") as f:  # a sparse file: no disk taken
            f.truncate((4 << 20) + 1)  # standings.MAX_RESULT_BYTES + 1
    else:
        Path(path).write_text("[" * 100_000 + "]" * 100_000)
    try:
        assert cli.main(["leaderboard", str(tiny_board)]) == 2
    finally:
        if timer is not None:
            timer.cancel()
    err = capsys.readouterr().err
    if kind == "too big":
        bound = standings_module.MAX_RESULT_BYTES
        said = f"{path} is {bound + 1} bytes; a benchmark or exploitability file is at most {bound}"
    else:
        said = {"too deep": f"{path}: not a JSON file (nested too deeply)"}.get(
            kind, f"{path} is not a regular file (a folder, FIFO or device)")
    assert said in err, err


@pytest.mark.parametrize(
    "text, code, shown",
    [
        ("sixtysix-ppo", True, "`sixtysix-ppo`"),
        ("0.1.0", False, "0.1.0"),
        ("AMD EPYC, 2 CPU cores, Linux 6.1-fc (x)", False, "AMD EPYC, 2 CPU cores, Linux 6.1-fc (x)"),
        ("a|b", True, "a\\|b"),
        ("a`b", True, "a\\`b"),
        ("<script>", False, "&lt;script&gt;"),
        ("x & \"y\" 'z'", True, "x &amp; &quot;y&quot; &#39;z&#39;"),
        ("[x](javascript:alert(1))", False, "\\[x\\](javascript:alert(1))"),
        ("*a* _b_ ~c~ \\", False, "\\*a\\* \\_b\\_ \\~c\\~ \\\\"),
        ("a\nb\u2028c\u202ed", True, "`a\ufffdb\ufffdc\ufffdd`"),
        (" padded ", True, " padded "),
    ],
)
def test_a_cell_shows_its_text_and_nothing_else(text, code, shown):
    assert standings_module.markdown_cell(text, code=code) == shown


def test_every_field_of_a_benchmark_file_is_checked():
    """A field added to the file is given its kind, or this fails."""
    from dataclasses import fields

    from sixtysix_env.benchmark.run import (
        OPPONENT_KINDS,
        RESULT_KINDS,
        BenchmarkResult,
        Opponent,
    )

    assert set(RESULT_KINDS) == {f.name for f in fields(BenchmarkResult)}
    assert set(OPPONENT_KINDS) == {f.name for f in fields(Opponent)}


def test_a_ladder_file_of_another_protocol_or_mode_is_refused():
    from sixtysix_env.benchmark.run import ladder_file_ratings, reference_ratings

    shipped = _json(os.path.join(ROOT, "sixtysix_env", "benchmark", "benchmark-v1-ladder.json"))
    assert ladder_file_ratings(shipped, BENCHMARK_V1) == reference_ratings(BENCHMARK_V1)
    for change, said in [({"quick": True}, "quick True; wanted: benchmark-v1, quick False"),
                         ({"protocol": "benchmark-v0"}, "protocol 'benchmark-v0'"),
                         ({"ratings": {"random": 1}}, "ratings of random;"),
                         ({"ratings": "high"}, "not a ladder's ratings file")]:
        with pytest.raises(ValueError) as e:
            ladder_file_ratings({**shipped, **change}, BENCHMARK_V1)
        assert said in str(e.value)


# -- the standings (README, docs/benchmark.md, sixtysix agents) -----------------------------------


@pytest.fixture
def standings_folder(tmp_path, monkeypatch):
    """The standings read from a copy of the leaderboard's full results."""
    folder = tmp_path / "benchmark-v1"
    folder.mkdir()
    source = os.path.join(ROOT, "docs", "benchmarks", "benchmark-v1")
    for name in ("heuristic.json", "random.json"):
        shutil.copyfile(os.path.join(source, name), folder / name)
    monkeypatch.setattr(standings_module, "_folder", lambda folder=None: tmp_path)
    return folder


def test_the_standings_read_the_folder_afresh(standings_folder):
    """A file added since the last call is in the next answer (no cache across calls)."""
    assert [s.agent for s in standings_module.standings()] == ["heuristic", "random"]
    source = os.path.join(ROOT, "docs", "benchmarks", "benchmark-v1", "sixtysix-ppo-v3.json")
    shutil.copyfile(source, standings_folder / "sixtysix-ppo-v3.json")
    assert [s.agent for s in standings_module.standings()] == ["sixtysix-ppo-v3", "heuristic",
                                                               "random"]


def test_the_standings_table_escapes_the_agents_name(standings_folder):
    data = _json(standings_folder / "random.json")
    _write(standings_folder / "random.json", {**data, "agent": "<b>r|x</b>"})
    table = standings_module.standings_table()
    assert "| 2 | &lt;b&gt;r\\|x&lt;/b&gt; | 1187 |" in table
    assert "<b>" not in table


@pytest.mark.parametrize(
    "change, said",
    [
        ({"elo": "high"}, "elo is 'high'; it is a number"),
        ({"opponents": [{"name": "random", "gp_per_hand": 1.0, "gp_ci95": None, "deals": 3}]},
         "opponents[0].gp_ci95 is None; it is a list of two numbers"),
        ({"format_version": 2}, ("format_version 2; this version reads sixtysix-benchmark files "
                                "of format_version 1")),
        ({"protocol": "benchmark-v2"}, ("a benchmark file of protocol 'benchmark-v2' in the "
                                       "folder of benchmark-v1")),
        ({"opponents": [{"name": "random", "gp_per_hand": 1.0, "gp_ci95": [-0.2, 0.2],
                         "deals": 3}]},
         "opponents[0].gp_per_hand 1.0 lies outside its own 95% interval"),
    ],
)
def test_the_standings_refuse_a_broken_file_by_name(standings_folder, capsys, change, said):
    data = _json(standings_folder / "random.json")
    _write(standings_folder / "random.json", {**data, **change})
    with pytest.raises(ValueError) as e:
        standings_module.standings()
    assert str(e.value).startswith(f"{standings_folder / 'random.json'}") and said in str(e.value)
    assert standings_module.main([]) == 2  # python -m sixtysix_env.ranking.standings: no traceback
    assert said in capsys.readouterr().err
