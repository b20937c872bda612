"""``schnapsen-vu-v1`` (issue 69, item 4): the protocol of the ``schnapsen-vu`` rules, with
the ``schnapsen`` package's bots on its ladder.

These run without the package (the main suite's venv has none): what only reads the
committed files works without it, and playing a pair with one of its bots says which extra
to install. The checks that need the package are in test_schnapsen_vu_v1_package.py.
"""

from __future__ import annotations

import sys

import pytest
from _leaderboard_checks import ROOT, page_problem, pair_problems

from sixtysix_env import cli
from sixtysix_env.agents import schnapsen as bridge
from sixtysix_env.benchmark import PROTOCOLS, SANTASE_V1, SCHNAPSEN_VU_V1, protocol_for_rules
from sixtysix_env.benchmark.identity import agent_file, unknown_here
from sixtysix_env.benchmark.protocol import get_protocol
from sixtysix_env.ranking.standings import standings

RDEEP = "schnapsen:rdeep:num_samples=16,depth=4"


@pytest.fixture
def no_package(monkeypatch):
    """This process as one without the ``schnapsen`` package: not importable, not found."""
    monkeypatch.setitem(sys.modules, "schnapsen", None)
    monkeypatch.setattr(bridge, "sg", None)


def test_schnapsen_vu_v1_is_the_protocol_the_docs_state():
    p = SCHNAPSEN_VU_V1
    assert p.name == "schnapsen-vu-v1" and p.rules == "schnapsen-vu"
    assert p.ladder == ("random", "schnapsen:bully", "heuristic", RDEEP, "sixtysix-ppo-v5",
                        "expert")
    assert p.search == {RDEEP, "expert"}
    assert p.counts("x", "schnapsen:bully") == (2000, 500)
    assert p.counts("x", RDEEP) == p.counts("expert", "random") == (300, 40)
    assert (p.hand_seed, p.match_seed, p.anchor, p.anchor_elo) == (660031, 660032, "heuristic",
                                                                   1500.0)
    assert PROTOCOLS["schnapsen-vu-v1"] is p and get_protocol("schnapsen-vu-v1") is p
    assert protocol_for_rules("schnapsen-vu") is p
    assert protocol_for_rules("santase") is SANTASE_V1 and protocol_for_rules("schnapsen") is None


def test_selectable_and_without_the_package_the_message_names_the_extra(no_package, capsys):
    """``--protocol schnapsen-vu-v1`` is a choice; its schnapsen rungs need the package, and
    without it the run stops before playing, naming the [schnapsen] extra."""
    assert cli.main(["benchmark", "random", "--protocol", "schnapsen-vu-v1", "--quick",
                     "--no-progress"]) == 1
    out, err = capsys.readouterr()
    assert "schnapsen-vu-v1 (quick): rules schnapsen-vu" in out
    assert 'pip install "sixtysix[schnapsen]"' in err and "schnapsen" in err


def test_an_unknown_protocol_lists_schnapsen_vu_v1(capsys):
    assert cli.main(["benchmark", "random", "--protocol", "schnapsen-vu-v2"]) == 2
    assert "'santase-v1', 'schnapsen-vu-v1')" in capsys.readouterr().err


def test_a_package_bot_without_the_package_is_read_from_its_record(no_package):
    assert agent_file("schnapsen:bully") is None
    assert unknown_here("schnapsen:bully") and unknown_here(RDEEP)
    assert not unknown_here("heuristic") and not unknown_here("schnapsen:mybots:MyBot")


def test_a_bot_of_your_own_is_its_module_file(tmp_path, monkeypatch):
    """``schnapsen:mybots:MyBot`` is the user's module, not the package: it was hashed as the
    package's ``__init__.py`` (or nothing without the package)."""
    (tmp_path / "my_schnapsen_bots.py").write_text("class MyBot:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    file = agent_file("schnapsen:my_schnapsen_bots:MyBot")
    assert file is not None and file["path"].endswith("my_schnapsen_bots.py")


def test_the_committed_files_read_without_the_package(no_package):
    """The page, the standings and the kept pairs of schnapsen-vu-v1 are read without the
    package: its bots' pairs are found kept (not to be played again) on their recorded
    identity."""
    assert page_problem(ROOT, "schnapsen-vu-v1") is None
    assert pair_problems(ROOT, "schnapsen-vu-v1") == []
    rows = {s.agent for s in standings("schnapsen-vu-v1")}
    assert rows >= set(SCHNAPSEN_VU_V1.ladder)
