"""A protocol small enough for tests, registered for the test that asks for it (``tiny``),
and the files a run of it writes (``tiny_files``, made once per module; ``tiny_board``, a
copy of a test's own)."""

from __future__ import annotations

import pytest

from sixtysix_env.benchmark import PROTOCOLS, Protocol

#: Three rungs, a few deals (the "search" rung is a network here, to exercise the smaller
#: counts without a slow search).
TINY = Protocol(
    name="test-tiny", rules="altmisalti", ladder=("random", "heuristic", "sixtysix-ppo"),
    search=frozenset({"sixtysix-ppo"}), deals=6, matches=2, search_deals=4, search_matches=1,
    hand_seed=5, match_seed=6,
)


@pytest.fixture
def tiny(monkeypatch) -> Protocol:
    monkeypatch.setitem(PROTOCOLS, TINY.name, TINY)
    return TINY


#: An agent outside the ladder (it plays every rung) for the files below.
OUTSIDER = "heuristic:likely_points_per_trick=5"


@pytest.fixture(scope="module")
def tiny_files(tmp_path_factory):
    """The files ``sixtysix benchmark random OUTSIDER --protocol test-tiny --out-dir DIR``
    writes (each agent's figures, the pairs in ``pairs/``), made once per test module:
    copy them before changing them (``tiny_board``)."""
    from sixtysix_env import cli

    out = tmp_path_factory.mktemp("tiny") / "board"
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(PROTOCOLS, TINY.name, TINY)
        assert cli.main(["benchmark", "random", OUTSIDER, "--protocol", TINY.name,
                         "--out-dir", str(out), "--no-progress"]) == 0
    return out


@pytest.fixture(scope="module")
def tiny_two_agents(tmp_path_factory):
    """The files ``sixtysix benchmark random heuristic --protocol test-tiny --out-dir DIR``
    writes, made once per test module: copy them before changing them."""
    from sixtysix_env import cli

    out = tmp_path_factory.mktemp("tiny-two") / "board"
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(PROTOCOLS, TINY.name, TINY)
        assert cli.main(["benchmark", "random", "heuristic", "--protocol", TINY.name,
                         "--out-dir", str(out), "--no-progress"]) == 0
    return out


@pytest.fixture
def tiny_board(tiny, tiny_files, tmp_path):
    """A copy of ``tiny_files`` of this test's own, the tiny protocol registered."""
    import shutil

    return shutil.copytree(tiny_files, tmp_path / "board")
