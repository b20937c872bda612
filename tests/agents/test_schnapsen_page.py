"""docs/schnapsen.md, the page for the schnapsen platform's bot writers: its blocks run as
written (issue 69, item 5).

The python blocks are run in a temporary folder, in the page's order where one needs what
another wrote (``mybot.py``, ``my_schnapsen.zip``); the shell blocks through the CLI's
``main`` in-process (``sixtysix eval`` with 2 deals instead of the page's 200) or, for the
speed script, in a fresh interpreter with small counts. The package's GUI is replaced by a
bot that plays random moves (a browser is not there to click). Skipped without the
``[schnapsen]`` extra; training needs the ``[train]`` extra too (.ci/run's schnapsen step
installs both).
"""

from __future__ import annotations

import json
import random
import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path
from typing import ClassVar

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "schnapsen.md"
NETWORK = "sixtysix-ppo-schnapsen-vu"


def _text() -> str:
    return PAGE.read_text(encoding="utf-8")


def _section(title: str) -> str:
    return _text().split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def _blocks(title: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", _section(title), flags=re.MULTILINE | re.DOTALL)


def _run(block: str, scope: dict | None = None, name: str = "block") -> dict:
    scope = {} if scope is None else scope
    exec(compile(block, f"{PAGE.name} ({name})", "exec"), scope)  # noqa: S102
    return scope


@pytest.fixture
def schnapsen():
    return pytest.importorskip("schnapsen.game", reason="the [schnapsen] extra is not installed")


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A clean folder, importable, with ``mybot`` forgotten afterwards."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("mybot", "badbot"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    yield tmp_path
    for name in ("mybot", "badbot"):
        sys.modules.pop(name, None)


def test_the_network_the_page_names_is_the_one_shipped_for_these_rules():
    """Every place that names a network names the one trained for schnapsen-vu, which
    ships with the package and records the preset (no rules warning on this page)."""
    from sixtysix_env.policy.shipped import shipped_policies, trained_preset

    assert NETWORK in shipped_policies()
    assert trained_preset(NETWORK) == "schnapsen-vu"
    text = _text()
    assert text.count(NETWORK) >= 4  # the eval command, its list item, the tournament, the GUI
    assert "sixtysix-ppo-v5" not in text


def test_the_install_block_names_extras_that_exist():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"]["optional-dependencies"]
    (block,) = _blocks("Install", "bash")
    named = re.fullmatch(r'pip install -e "\.\[([a-z,]+)\]"\n', block)
    assert named, block
    assert set(named.group(1).split(",")) <= set(extras)
    assert {"schnapsen", "train"} <= set(named.group(1).split(","))


def _eval_argv(json_path: str) -> list[str]:
    """The page's ``sixtysix eval`` command, with 2 deals, as the CLI's main takes it."""
    (block,) = _blocks("Evaluate your Bot", "bash")
    argv = shlex.split(block)
    assert argv[:2] == ["sixtysix", "eval"], argv  # mybot.py from the current folder
    argv = argv[1:]
    at = argv.index("--deals")
    assert argv[at + 1] == "200"
    argv[at + 1] = "2"
    return [*argv, "--json", json_path, "--no-progress", "--plain"]


@pytest.mark.slow  # 24 games in the package's engine, twice, rdeep(16, 4) in 12 of them (4 s)
def test_your_bot_is_evaluated_in_one_command_and_the_same_command_gives_the_same_games(
        schnapsen, folder, capsys):
    from sixtysix_env.cli import main

    (mybot,) = _blocks("Evaluate your Bot", "python")
    assert mybot.startswith("# mybot.py\n")
    (folder / "mybot.py").write_text(mybot, encoding="utf-8")
    results = []
    for run in (1, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sixtysix-ppo-v5's rules warning, as the page says
            assert main(_eval_argv(f"run{run}.json")) == 0
        results.append(json.loads((folder / f"run{run}.json").read_text(encoding="utf-8")))
    out = capsys.readouterr().out
    assert "Evaluation in the schnapsen package's engine" in out
    first, second = results
    assert first["agents"] == ["schnapsen:mybot:MyBot", NETWORK,
                               "schnapsen:rdeep:num_samples=16,depth=4", "schnapsen:bully"]
    assert first["referee"] == "schnapsen" and first["rules"]["name"] == "schnapsen-vu"
    assert len(first["pairs"]) == 6 and all(p["hands"] == 4 for p in first["pairs"])
    assert first["elo_anchor"] == "schnapsen:mybot:MyBot"  # the page: your bot at 1000
    keys = ("a", "b", "gp_per_hand", "hands_won_a", "hands_won_b", "hands_tied")
    assert [[p[k] for k in keys] for p in first["pairs"]] == \
        [[p[k] for k in keys] for p in second["pairs"]]


BAD_BOT = '''
from schnapsen.deck import Card
from schnapsen.game import Bot, RegularMove


class BadBot(Bot):
    """Leads the ace of spades, held or not."""

    def get_move(self, perspective, leader_move):
        if leader_move is None:
            return RegularMove(Card.ACE_SPADES)
        return perspective.valid_moves()[0]
'''


@pytest.mark.slow  # imports the package's bots (2 s)
def test_an_illegal_move_stops_the_run_with_the_message_the_page_shows(schnapsen, folder,
                                                                       capsys):
    from sixtysix_env.cli import main

    (folder / "badbot.py").write_text(BAD_BOT, encoding="utf-8")
    rc = main(["eval", "schnapsen:badbot:BadBot", "schnapsen:rand", "--rules", "schnapsen-vu",
               "--referee", "schnapsen", "--deals", "5", "--no-progress", "--plain"])
    out, err = capsys.readouterr()
    assert rc == 1  # the page: exit status 1
    assert "Evaluation in" not in out  # and no table
    shape = (r"sixtysix eval: agent '{name}' returned the illegal move "
             r"RegularMove\(card=Card\.ACE_SPADES\) \(AS\); legal moves: RegularMove\(card=Card\.")
    assert re.search(shape.format(name=re.escape("schnapsen:badbot:BadBot")), err), err
    (shown,) = _blocks("Evaluate your Bot", "text")
    assert re.match(shape.format(name=re.escape("schnapsen:mybot:MyBot")), shown), shown


@pytest.mark.slow  # one MaskablePPO update on 64 games, then a game against RdeepBot (10 s)
def test_the_training_blocks_train_play_and_export_a_bot(schnapsen, folder):
    pytest.importorskip("sb3_contrib", reason="the [train] extra is not installed")
    from sixtysix_env.policy.agent import RulesMismatchWarning

    train, play, export = _blocks("Train an RL agent for the platform", "python")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RulesMismatchWarning)
        model = _run(train, name="training")["model"]
        assert model.num_timesteps == 2_048
        assert (folder / "my_schnapsen.zip").is_file()
        scope = _run(play, name="the model as a Bot")
        assert scope["game_points"] in (1, 2, 3)
        assert str(scope["winner"]) in ("my-ppo", "rdeep")
        (command,) = _blocks("Train an RL agent for the platform", "bash")
        argv = shlex.split(command)
        assert argv[:2] == ["sixtysix", "export"], argv
        from sixtysix_env.cli import main

        assert main(argv[1:]) == 0
        bot = _run(export, name="export")["bot"]
        # the file records schnapsen-vu: a game with it gives no rules warning
        engine = schnapsen.SchnapsenGamePlayEngine()
        bully = pytest.importorskip("schnapsen.bots").BullyBot(random.Random(1))
        _, game_points, _ = engine.play_game(bot, bully, random.Random(3))
    assert game_points in (1, 2, 3)
    assert (folder / "my_schnapsen.npz").is_file()


@pytest.mark.slow  # 30 games in the package's engine, 20 with RdeepBot(16, 4) (4 s)
def test_the_tournament_block_plays_every_pair(schnapsen):
    (tournament, _gui) = _blocks("Our agents in your tournaments and GUI", "python")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sixtysix-ppo-v5's rules warning, as the page says
        wins = _run(tournament, name="tournament")["wins"]
    assert set(wins) == {NETWORK, "rdeep-16-4", "bully"}
    assert sum(wins.values()) == 30


class _Browser:
    """The package's SchnapsenServer with a random player in place of the browser."""

    entered: ClassVar[list[str]] = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def make_gui_bot(self, name):
        from schnapsen.bots import RandBot

        self.entered.append(name)
        return RandBot(random.Random(0), name)


@pytest.mark.slow  # imports the package's bots (2 s)
def test_the_gui_block_plays_a_game_against_the_network(schnapsen, monkeypatch):
    from schnapsen import bots

    played = []
    engine = schnapsen.SchnapsenGamePlayEngine
    monkeypatch.setattr(bots, "SchnapsenServer", _Browser)
    monkeypatch.setattr(engine, "play_game",
                        lambda self, *a, _f=engine.play_game: played.append(_f(self, *a)))
    _Browser.entered = []
    (_tournament, gui) = _blocks("Our agents in your tournaments and GUI", "python")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sixtysix-ppo-v5's rules warning
        scope = _run(gui, name="GUI")
    assert _Browser.entered == ["you"]
    assert scope["ours"].name == NETWORK
    assert len(played) == 1 and played[0][1] in (1, 2, 3)


def _speed_rows(text: str) -> list[str]:
    """The names of a speed table's rows: the script prints the machine, the columns' names
    and a row per measurement (then, on stderr, how long it took)."""
    lines = [line for line in text.strip().splitlines() if " took " not in line]
    assert "games/s" in lines[1], text
    return [line[:44].strip() for line in lines[2:]]


@pytest.mark.slow  # the speed script in a fresh interpreter, small counts (5 s)
def test_the_speed_section_is_what_the_script_prints(schnapsen):
    (command,) = _blocks("Speed", "bash")
    assert shlex.split(command) == ["nice", "python", "speed/bench_schnapsen.py"]
    (table,) = _blocks("Speed", "text")
    out = subprocess.run(
        [sys.executable, "speed/bench_schnapsen.py", "--games", "20", "--vector-games", "100",
         "--sizes", "16", "4096", "--rounds", "1"],
        capture_output=True, text=True, cwd=ROOT, timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    assert re.search(r"^bench_schnapsen\.py took \d+ s$", out.stderr, flags=re.MULTILINE)
    assert "rules schnapsen-vu" in out.stdout and "rules schnapsen-vu" in table
    rows = _speed_rows(out.stdout)
    assert rows == [
        "schnapsen SchnapsenGamePlayEngine, 2 RandBot", "SixtySix-v0, opponent random",
        "vector env, 16 games, opponent random", "vector env, 4096 games, opponent random",
        "vector env, 16 games, both seats", "vector env, 4096 games, both seats",
    ]
    page_rows = _speed_rows(table)
    assert page_rows[:2] == rows[:2] and set(page_rows) >= set(rows)
    assert re.search(r"^bench_schnapsen\.py took \d+ s$", table, flags=re.MULTILINE)
