"""``schnapsen-vu-v1`` with the ``schnapsen`` package installed (the [schnapsen] extra; CI's
schnapsen venv runs this file): its bots' identity, a pair with one of them played and
kept, and the committed pairs reused as they are.

Without the package every test here is skipped; test_schnapsen_vu_v1.py checks what
works without it.
"""

from __future__ import annotations

import json
from dataclasses import replace
from importlib.metadata import version

import pytest

pytest.importorskip("schnapsen.game", reason="the [schnapsen] extra is not installed")

from _leaderboard_checks import ROOT, pair_problems

from sixtysix_env.benchmark import PROTOCOLS, SCHNAPSEN_VU_V1
from sixtysix_env.benchmark.identity import agent_file, unknown_here
from sixtysix_env.benchmark.pairs import PairStore
from sixtysix_env.benchmark.run import benchmark

RDEEP = "schnapsen:rdeep:num_samples=16,depth=4"


def test_the_package_bots_are_the_package_by_name_version_and_code():
    """One identity for every bot of the package, whatever its options: its name and
    version and a hash of its code (the same on every install of the release), not the
    path of the install (it was its ``__init__.py``'s absolute path)."""
    file = agent_file("schnapsen:bully")
    assert file == {"path": f"schnapsen {version('schnapsen')}", "sha256": file["sha256"]}
    assert len(file["sha256"]) == 64
    assert agent_file(RDEEP) == agent_file("schnapsen:rdeep:depth=2") == file
    assert not unknown_here("schnapsen:bully")


def test_the_committed_pairs_are_reused_with_the_package():
    """A run of schnapsen-vu-v1's agents with the package plays none of its kept pairs
    again (their recorded identity of the package is this install's)."""
    assert pair_problems(ROOT, "schnapsen-vu-v1") == []


@pytest.mark.slow  # two seconds and more: the full suite and CI's schnapsen venv, not the fast lane
def test_a_pair_with_a_package_bot_is_played_and_kept(tmp_path, monkeypatch):
    """A few deals of a protocol with schnapsen:bully on its ladder: played in the package's
    bot, the same figures twice from one seed, and kept with the package's identity."""
    tiny = replace(SCHNAPSEN_VU_V1, name="test-tiny-vu", ladder=("random", "schnapsen:bully"),
                   search=frozenset(), deals=3, matches=1, anchor="random")
    monkeypatch.setitem(PROTOCOLS, tiny.name, tiny)
    store = PairStore(str(tmp_path / "pairs"), tiny)
    first = benchmark(["random"], tiny, cache=store)[0].opponents[0]
    again = benchmark(["random"], tiny)[0].opponents[0]
    assert first.name == "schnapsen:bully" and first.hands == 6
    assert (first.gp_per_hand, first.hands_won) == (again.gp_per_hand, again.hands_won)
    kept = json.loads((tmp_path / "pairs" / "random--schnapsen_bully.json").read_text())
    assert kept["stamp"]["files"] == [None, agent_file("schnapsen:bully")]
    assert ("random", "schnapsen:bully") in PairStore(str(tmp_path / "pairs"), tiny)
