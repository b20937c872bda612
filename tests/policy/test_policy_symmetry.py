"""A network averaged over the renamings of the suits (``symmetry="suits"``).

The index maps are checked against the game itself: a deal and its suit-renamed
twin, played with renamed moves, must give renamed observations and masks at
every step. Then the averaged network must answer every renaming of a position
alike, and its policy file must say so in a way older loaders refuse.
"""

from __future__ import annotations

import itertools
import json
import random
import zipfile

import numpy as np
import pytest
from _lanes import HALF_IN_THE_FAST_LANE

from sixtysix_env.game.actions import NUM_ACTIONS, suit_relabelled_actions
from sixtysix_env.game.cards import NUM_RANKS
from sixtysix_env.game.engine import deal_from_deck, random_deck
from sixtysix_env.game.view import player_view
from sixtysix_env.policy import (
    PolicyAgent,
    PolicyFileError,
    PolicyNetwork,
    read_policy,
    save_policy,
)
from sixtysix_env.policy.observation import OBS_SIZE, action_mask, encode_view, suit_relabelling

PERMS = list(itertools.permutations(range(4)))


def _net(seed: int = 0, symmetry: str | None = None) -> PolicyNetwork:
    rng = np.random.default_rng(seed)
    sizes = [OBS_SIZE, 16, 8, NUM_ACTIONS]
    ws = [rng.normal(0, 0.5, (a, b)).astype(np.float32) for a, b in itertools.pairwise(sizes)]
    bs = [rng.normal(0, 0.1, (b,)).astype(np.float32) for b in sizes[1:]]
    return PolicyNetwork(ws, bs, "relu", symmetry)


def _rename(card: int, perm) -> int:
    return perm[card // NUM_RANKS] * NUM_RANKS + card % NUM_RANKS


# The fast lane plays the first half of the hands; the full suite all of them.
@pytest.mark.parametrize("share", HALF_IN_THE_FAST_LANE)
@pytest.mark.parametrize("preset", ["altmisalti", "pagat66", "santase"])
def test_a_renamed_deal_gives_the_renamed_observation_at_every_step(preset, share):
    rng = random.Random(preset)
    positions = 0
    for hand in range(40 // share):
        perm = PERMS[hand % len(PERMS)] if hand % 3 else rng.choice(PERMS)
        src, act = suit_relabelling(perm), suit_relabelled_actions(perm)
        deck = random_deck(rng.randrange(10**9))
        dealer = hand % 2
        a = deal_from_deck(deck, dealer, preset)
        b = deal_from_deck([_rename(c, perm) for c in deck], dealer, preset)
        while not a.is_terminal():
            assert not b.is_terminal()
            for seat in (0, 1):
                va, vb = player_view(a, seat), player_view(b, seat)
                np.testing.assert_array_equal(encode_view(vb), encode_view(va)[src])
                ma, mb = action_mask(va), action_mask(vb)
                np.testing.assert_array_equal(mb[list(act)], ma)
            move = rng.choice(a.legal_actions())
            a, b = a.apply(move), b.apply(act[move])
            positions += 1
        assert b.is_terminal() and a.returns() == b.returns()
    assert positions > 500 // share


def test_the_maps_are_permutations_and_the_identity_changes_nothing():
    assert list(suit_relabelling((0, 1, 2, 3))) == list(range(OBS_SIZE))
    assert suit_relabelled_actions((0, 1, 2, 3)) == tuple(range(NUM_ACTIONS))
    for perm in PERMS:
        assert sorted(suit_relabelling(perm)) == list(range(OBS_SIZE))
        assert sorted(suit_relabelled_actions(perm)) == list(range(NUM_ACTIONS))
        assert suit_relabelled_actions(perm)[32:] == (32, 33)  # exchange, close
    for bad in [(0, 1, 2), (0, 0, 1, 2), (1, 2, 3, 4)]:
        with pytest.raises(ValueError, match="permutation of 0-3"):
            suit_relabelling(bad)
        with pytest.raises(ValueError, match="permutation of 0-3"):
            suit_relabelled_actions(bad)


def test_the_averaged_network_is_the_mean_over_renamings_and_answers_them_alike():
    plain, sym = _net(1), _net(1, "suits")
    x = (np.random.default_rng(2).random((6, OBS_SIZE)) < 0.3).astype(np.float32)
    want = np.mean(
        [
            plain.logits(x[:, suit_relabelling(p)])[:, list(suit_relabelled_actions(p))]
            for p in PERMS
        ],
        axis=0,
    )
    got = sym.logits(x)
    assert got.shape == (6, NUM_ACTIONS) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(sym.logits(x[3]), got[3], rtol=1e-5, atol=1e-5)
    assert not np.allclose(got, plain.logits(x), atol=1e-3)  # it is not the plain network
    np.testing.assert_array_equal(sym.layer_logits(x), plain.logits(x))
    for p in PERMS:
        renamed = sym.logits(x[:, suit_relabelling(p)])[:, list(suit_relabelled_actions(p))]
        np.testing.assert_allclose(renamed, got, rtol=1e-4, atol=1e-4)


def test_an_unknown_symmetry_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown symmetry 'colours'.*'suits'"):
        _net(0, "colours")


def test_the_file_says_its_symmetry_and_is_version_2(tmp_path):
    sym, plain = _net(3, "suits"), _net(3)
    save_policy(tmp_path / "sym.npz", sym, {"name": "s"})
    save_policy(tmp_path / "plain.npz", plain, {"name": "p"})
    net, meta = read_policy(tmp_path / "sym.npz")
    assert net.symmetry == "suits" and meta["architecture"]["symmetry"] == "suits"
    assert meta["format_version"] == 2  # a loader reading only version 1 refuses it
    x = (np.random.default_rng(4).random((3, OBS_SIZE)) < 0.3).astype(np.float32)
    np.testing.assert_array_equal(net.logits(x), sym.logits(x))
    net, meta = read_policy(tmp_path / "plain.npz")
    assert net.symmetry is None and meta["format_version"] == 1
    assert "symmetry" not in meta["architecture"]


def _rewrite_metadata(src, dst, edit) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "metadata.npy":
                arr = np.load(__import__("io").BytesIO(data))
                meta = json.loads(arr.tobytes().decode())
                edit(meta)
                buf = __import__("io").BytesIO()
                np.save(buf, np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
                data = buf.getvalue()
            zout.writestr(info, data)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda m: m.update(format_version=1), "version 1 declares a symmetry"),
        (lambda m: m["architecture"].update(symmetry="colours"), "symmetry 'colours'"),
        (lambda m: m["architecture"].pop("symmetry"), "symmetry None"),
        (lambda m: m.update(format_version=3), "version 3 declares a symmetry"),
        (lambda m: m.update(format_version=4), "format version 4; this loader reads versions 1"),
        (lambda m: m.update(format_version=True), "format version True"),
    ],
)
def test_a_file_whose_symmetry_does_not_fit_its_version_is_refused(tmp_path, edit, message):
    save_policy(tmp_path / "sym.npz", _net(5, "suits"), {"name": "s"})
    _rewrite_metadata(tmp_path / "sym.npz", tmp_path / "bad.npz", edit)
    with pytest.raises(PolicyFileError, match=message):
        read_policy(tmp_path / "bad.npz")


def test_an_averaged_policy_plays_legal_moves():
    agent = PolicyAgent(_net(6, "suits"), name="sym")
    rng = random.Random(7)
    for i in range(10):
        state = deal_from_deck(random_deck(i), i % 2)
        while not state.is_terminal():
            view = player_view(state, state.current_player())
            a = agent.act(view, rng)
            assert a in state.legal_actions()
            state = state.apply(a)


def test_moves_a_renaming_maps_onto_each_other_are_a_tie_won_by_the_lowest_id():
    """The 9 of clubs and of diamonds, alone in hand, nothing else telling C and D apart."""
    from sixtysix_env.policy import SYMMETRY_TIE

    sym = _net(8, "suits")
    x = np.zeros(OBS_SIZE, dtype=np.float32)
    x[0] = x[6] = 1.0  # hand: 9C, 9D
    x[304] = x[305] = 1.0  # my turn, I lead
    logits = sym.logits(x)
    assert abs(logits[0] - logits[6]) < SYMMETRY_TIE / 10  # equal up to rounding

    class View:  # the two parts of a view PolicyAgent.act reads
        legal_mask = (1 << 0) | (1 << 6)
        seat = 0

    agent = PolicyAgent(sym, name="sym")
    import sixtysix_env.policy.agent as policy

    for nudge in (+1e-6, -1e-6):  # rounding either way: the same move
        saved = policy.encode_view
        try:
            policy.encode_view = lambda view: x
            original = sym.logits
            sym.logits = lambda obs: original(obs) + np.eye(NUM_ACTIONS, dtype=np.float32)[6] * nudge
            assert agent.act(View(), random.Random(0)) == 0
        finally:
            policy.encode_view = saved
            del sym.logits
