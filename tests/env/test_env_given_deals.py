"""Given deals (``reset(options=...)``) in ``SixtySix-v0`` and its vector forms.

One checker for both environments (:func:`sixtysix_env.game.engine.parse_deck` for decks,
:mod:`sixtysix_env.env.core` for seats): card ids or card codes (a list, or one string),
integers only (``1.0`` refused as in ``step``), out-of-range values refused naming what is
allowed. A refused reset changes nothing: the episode, the learner's seat and the
generators are as they were, and the re-deal property (the learner's observation does not
depend on the cards it cannot see) holds across one.
"""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pytest

import sixtysix_env  # noqa: F401  (registers SixtySix-v0)
from sixtysix_env import DeckError, IllegalActionError, card_code, random_deck
from sixtysix_env.env.core import MAX_NUM_ENVS, given_seat
from sixtysix_env.env.single_agent import SixtySixEnv
from sixtysix_env.game.engine import parse_deck
from sixtysix_env.game.view import player_view
from sixtysix_env.policy.observation import encode_with_mask

DECK = list(range(24))
CODES = [card_code(c) for c in DECK]
ONE_RULE = "a Python or numpy integer, not a bool, float or array"


def redealt(deck, dealer: int, seat: int, rng: random.Random) -> list[int]:
    """``deck`` with the cards ``seat`` cannot see at the deal (the other hand and the stock;
    the trump card, position 13, is face up) shuffled among their positions."""
    mine = [0, 1, 2, 6, 7, 8] if seat != dealer else [3, 4, 5, 9, 10, 11]
    hidden = [i for i in range(24) if i not in mine and i != 12]
    cards = [deck[i] for i in hidden]
    rng.shuffle(cards)
    out = list(deck)
    for i, c in zip(hidden, cards):
        out[i] = c
    return out


def bad_deal_options(seat: int) -> list[dict]:
    """Refused deals that would move the learner to the other seat."""
    other = 1 - seat
    return [
        {"deck": [0] * 24, "dealer": 0, "learner_seat": other},
        {"deck": DECK, "dealer": 0.5, "learner_seat": other},
        {"deck": DECK, "dealer": 0, "learner_seat": float(other)},
        {"deck": None, "dealer": 0, "learner_seat": other},
        {"deck": [c + 0.5 for c in DECK], "dealer": 1, "learner_seat": other},
    ]


# -- the checker ------------------------------------------------------------------------


def test_parse_deck_takes_ids_and_codes_and_refuses_the_rest():
    assert parse_deck(DECK) == DECK
    assert parse_deck(np.arange(24, dtype=np.int8)) == DECK
    assert parse_deck(CODES) == DECK
    assert parse_deck(" ".join(CODES)) == DECK
    assert parse_deck(",".join(CODES)) == DECK
    for bad, message in [
        (None, "a deck is 24 card codes"),
        (np.array(3), "a deck is 24 card codes"),
        ([1.0] + DECK[1:], f"position 1: 1.0 is not a card code or a card id 0-23 \\({ONE_RULE}"),
        (DECK[:-1] + [24], "position 24: 24 is not a card code or a card id 0-23"),
        (DECK[:-1] + [2**64], "position 24: 18446744073709551616 is not"),
        (DECK[:23], "exactly 24 cards, got 23"),
        (iter(range(10**9)), "exactly 24 cards, got more"),  # stops at the 25th
        (CODES[:-1] + ["XX"], "position 24: unknown card code 'XX'"),
        ([0] * 24, "duplicate card"),
    ]:
        with pytest.raises(DeckError, match=message):
            parse_deck(bad)


def test_given_seats_are_integers_0_or_1():
    assert given_seat(np.int64(1), "dealer") == 1 and type(given_seat(1, "x")) is int
    for bad in (1.0, 0.5, True, np.True_, 2, -1, "1", None, np.array([1]), 2**64):
        with pytest.raises(ValueError, match=f"dealer must be seat 0 or 1 \\({ONE_RULE}\\)"):
            given_seat(bad, "dealer")


# -- SixtySix-v0 ------------------------------------------------------------------------


def test_single_env_takes_a_deck_as_codes_or_one_string():
    env = gymnasium.make("SixtySix-v0", opponent="heuristic")
    deck = random_deck(3)
    ref, _ = env.reset(options={"deck": deck, "dealer": 1, "learner_seat": 0})
    state = env.unwrapped.state
    for given in ([card_code(c) for c in deck], " ".join(card_code(c) for c in deck)):
        obs, _ = env.reset(options={"deck": given, "dealer": 1, "learner_seat": 0})
        assert env.unwrapped.state == state
        assert obs["observation"].tobytes() == ref["observation"].tobytes()


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"deck": None, "dealer": 0, "learner_seat": 0}, DeckError, "a deck is 24 card codes"),
        ({"deck": DECK, "dealer": 0.5, "learner_seat": 0}, ValueError, "dealer must be seat 0"),
        ({"deck": DECK, "dealer": 1.0, "learner_seat": 0}, ValueError, "dealer must be seat 0"),
        ({"deck": DECK, "dealer": 0, "learner_seat": 1.0}, ValueError, "learner_seat must be"),
        ({"deck": DECK, "dealer": 0, "learner_seat": True}, ValueError, "learner_seat must be"),
        ({"deck": "AH TH", "dealer": 0, "learner_seat": 0}, DeckError, "exactly 24 cards, got 2"),
    ],
)
def test_single_env_refuses_given_deals_by_the_one_rule(options, error, message):
    env = gymnasium.make("SixtySix-v0")
    with pytest.raises(error, match=message):
        env.reset(options=options)


def _play_side_by_side(a, b, obs, steps: int = 200) -> None:
    """Step two envs with the same (first legal) actions; everything they return agrees."""
    for _ in range(steps):
        action = int(np.flatnonzero(obs["action_mask"])[0])
        out_a, out_b = a.step(action), b.step(action)
        assert out_a[0]["observation"].tobytes() == out_b[0]["observation"].tobytes()
        assert out_a[1:4] == out_b[1:4]
        info_a, info_b = out_a[4], out_b[4]
        assert {k: v for k, v in info_a.items() if k != "action_mask"} == {
            k: v for k, v in info_b.items() if k != "action_mask"}
        obs = out_a[0]
        if out_a[2]:
            return
    raise AssertionError("the episode did not end")


@pytest.mark.parametrize("mode", ["hand", "match"])
@pytest.mark.parametrize("with_seed", [False, True])
def test_single_env_a_refused_reset_changes_nothing(mode, with_seed):
    """The episode, the learner's seat and the generators are those of a twin that was
    never asked; before, the learner moved to the other seat and played its hand."""
    env = gymnasium.make("SixtySix-v0", opponent="random", mode=mode)
    twin = gymnasium.make("SixtySix-v0", opponent="random", mode=mode)
    obs, _ = env.reset(seed=4)
    twin.reset(seed=4)
    seat = env.unwrapped.seat
    bad = bad_deal_options(seat) if mode == "hand" else [
        {"match_seed": 1.5, "learner_seat": 1 - seat},
        {"match_seed": 3, "learner_seat": float(1 - seat)}]
    for options in bad:
        with pytest.raises(ValueError):
            env.reset(seed=99 if with_seed else None, options=options)
        assert env.unwrapped.seat == seat
    _play_side_by_side(env, twin, obs, steps=2000)
    a, _ = env.reset()  # the generators were not reseeded or drawn from either
    b, _ = twin.reset()
    assert a["observation"].tobytes() == b["observation"].tobytes()
    _play_side_by_side(env, twin, a, steps=2000)


def test_single_env_redeal_property_holds_across_a_refused_reset():
    """Two deals that differ only in what the learner cannot see (the learner to lead), then
    a refused reset that would move the learner to the other seat: the observation of the
    next step (an illegal action, which ends the episode before the opponent moves) is bit
    for bit the same for both, and the learner's own view. Before, it was the other seat's,
    its hand included."""
    rng = random.Random(71)
    checked = 0
    for _ in range(40):
        deck, dealer = random_deck(rng), rng.randrange(2)
        seat = 1 - dealer  # the learner leads: nothing of the opponent's shown yet
        seen = []
        for given in (deck, redealt(deck, dealer, seat, rng)):
            env = gymnasium.make("SixtySix-v0", opponent="random", illegal_action="lose")
            obs, _ = env.reset(seed=0, options={"deck": given, "dealer": dealer,
                                                "learner_seat": seat})
            for options in bad_deal_options(seat):
                with pytest.raises(ValueError):
                    env.reset(options=options)
            want, _ = encode_with_mask(player_view(env.unwrapped.state, seat))
            illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
            after, _, done, _, info = env.step(illegal)
            assert done and info["illegal_action"] == illegal and info["learner_seat"] == seat
            assert after["observation"].tobytes() == want.tobytes()
            seen.append(after["observation"].tobytes())
        assert seen[0] == seen[1]
        checked += 1
    assert checked == 40


# -- the vector environments --------------------------------------------------------------


@pytest.fixture
def vector():
    pytest.importorskip("numba", reason="numba (the [fast] extra) is not installed")
    from sixtysix_env.env import vector

    return vector


def _vector_bad_options(n: int, seats: np.ndarray) -> list[dict]:
    good = np.array([random_deck(i) for i in range(n)])
    other = 1 - seats
    return [
        {"decks": np.zeros((n, 24), np.int64), "dealers": np.zeros(n, np.int64),
         "learner_seats": other},
        {"decks": good + 0.5, "dealers": np.zeros(n, np.int64), "learner_seats": other},
        {"decks": good, "dealers": np.full(n, 1.9), "learner_seats": other},
        {"decks": good, "dealers": np.zeros(n, np.int64), "learner_seats": other + 0.7},
        {"decks": [[2**64] + list(range(1, 24))] * n, "dealers": [0] * n,
         "learner_seats": other},
    ]


def _same_vector_steps(a, b, obs, steps: int) -> None:
    for _ in range(steps):
        actions = obs["action_mask"].argmax(axis=1)
        out_a, out_b = a.step(actions), b.step(actions)
        for x, y in zip(out_a[:4], out_b[:4]):
            if isinstance(x, dict):
                x, y = x["observation"], y["observation"]
            assert np.array_equal(x, y)
        for key, value in out_a[4].items():
            assert np.array_equal(value, out_b[4][key]), key
        obs = out_a[0]


def test_vector_env_a_refused_reset_changes_nothing(vector):
    n = 16
    env = vector.SixtySixVectorEnv(num_envs=n, opponent="heuristic")
    twin = vector.SixtySixVectorEnv(num_envs=n, opponent="heuristic")
    obs, info = env.reset(seed=5)
    twin.reset(seed=5)
    seats = info["learner_seat"].copy()
    for options in _vector_bad_options(n, seats):
        with pytest.raises(ValueError):
            env.reset(seed=123, options=options)
    _same_vector_steps(env, twin, obs, steps=30)  # through the auto-resets too


def test_vector_env_redeal_property_holds_across_a_refused_reset(vector):
    """Lanes i and i + n/2 hold deals that differ only in what the learner cannot see; after
    a refused reset, an illegal action in every lane (ending each episode before the
    opponent moves) shows each lane its own seat's view, the same for both deals."""
    rng = random.Random(17)
    half = 20
    decks, dealers, seats = [], [], []
    for _ in range(half):
        decks.append(random_deck(rng))
        dealers.append(rng.randrange(2))
        seats.append(1 - dealers[-1])  # the learner leads: nothing of the opponent's shown yet
    decks += [redealt(d, e, s, rng) for d, e, s in zip(decks, dealers, seats)]
    dealers, seats = np.array(dealers * 2), np.array(seats * 2)
    env = vector.SixtySixVectorEnv(num_envs=2 * half, opponent="random")
    obs, _ = env.reset(seed=0, options={"decks": np.array(decks), "dealers": dealers,
                                        "learner_seats": seats})
    for options in _vector_bad_options(2 * half, seats):
        with pytest.raises(ValueError):
            env.reset(options=options)
    want = obs["observation"].copy()
    after, _, term, _, info = env.step(obs["action_mask"].argmin(axis=1))
    assert term.all() and (info["illegal_action"] >= 0).all()
    assert np.array_equal(after["observation"][:half], after["observation"][half:])
    assert np.array_equal(after["observation"], want)  # the learner's view, unchanged
    assert np.array_equal(info["learner_seat"], seats)


def test_vector_env_takes_card_codes_and_refuses_coercion(vector):
    env = vector.SixtySixVectorEnv(num_envs=2, opponent="heuristic")
    ids = np.array([random_deck(1), random_deck(2)])
    ref, _ = env.reset(options={"decks": ids, "dealers": [0, 1], "learner_seats": [1, 0]})
    codes = [[card_code(c) for c in ids[0]], " ".join(card_code(c) for c in ids[1])]
    obs, _ = env.reset(options={"decks": codes, "dealers": [0, 1], "learner_seats": [1, 0]})
    assert np.array_equal(obs["observation"], ref["observation"])
    for options, error, message in [
        ({"decks": ids + 0.5, "dealers": [0, 1], "learner_seats": [0, 0]}, DeckError,
         r"deck 0: deck position 1: (np\.float64\()?\d+\.5\)? is not a card code or a card id"),
        ({"decks": ids, "dealers": [0, 1.9], "learner_seats": [0, 0]}, ValueError,
         f"'dealers' must be 2 seats, each 0 or 1 \\({ONE_RULE}\\); entry 1 is 1.9"),
        ({"decks": ids, "dealers": [0, 1], "learner_seats": [1.7, 0]}, ValueError,
         "'learner_seats' must be 2 seats.*entry 0 is 1.7"),
        ({"decks": ids, "dealers": [0, 1], "learner_seats": [1.0, 0]}, ValueError,
         "entry 0 is 1.0"),
        ({"decks": [codes[0], ["XX"] * 24], "dealers": [0, 1], "learner_seats": [0, 0]},
         DeckError, "deck 1: deck position 1: unknown card code 'XX'"),
        ({"decks": [DECK, DECK[:-1] + [2**64]], "dealers": [0, 1], "learner_seats": [0, 0]},
         DeckError, "deck 1: deck position 24: 18446744073709551616 is not"),
        ({"decks": ids, "dealers": [0, 2**64], "learner_seats": [0, 0]}, ValueError,
         "entry 1 is 18446744073709551616"),
        ({"decks": "AH TH", "dealers": [0, 1], "learner_seats": [0, 0]}, DeckError,
         r"'decks' must be 2 decks \(shape \(2, 24\)\)"),
    ]:
        with pytest.raises(error, match=message):
            env.reset(options=options)


def test_self_play_vector_env_refuses_float_actions_and_bad_resets(vector):
    env = vector.SixtySixSelfPlayVectorEnv(num_envs=4)
    twin = vector.SixtySixSelfPlayVectorEnv(num_envs=4)
    obs, _ = env.reset(seed=2)
    twin.reset(seed=2)
    before = env.hands.S.copy()
    legal = obs["action_mask"].argmax(axis=1)
    for bad in (legal + 0.5, legal.astype(np.float64), legal.astype(bool)):
        with pytest.raises(IllegalActionError, match="integer action ids 0-33"):
            env.step(bad)
    with pytest.raises(DeckError, match="deck 0"):
        env.reset(seed=9, options={"decks": np.zeros((4, 24), np.int64), "dealers": [0] * 4})
    with pytest.raises(ValueError, match="'dealers' must be 4 seats"):
        env.reset(seed=9, options={"decks": [DECK] * 4, "dealers": [0.0] * 4})
    assert np.array_equal(env.hands.S, before)
    for _ in range(40):  # the same games and the same re-deals as the twin's
        actions = obs["action_mask"].argmax(axis=1)
        out_a, out_b = env.step(actions), twin.step(actions)
        assert np.array_equal(out_a[0]["observation"], out_b[0]["observation"])
        assert np.array_equal(out_a[1], out_b[1])
        obs = out_a[0]


def test_num_envs_has_a_bound_checked_before_anything_is_built(vector):
    assert MAX_NUM_ENVS == vector.MAX_NUM_ENVS == 65536
    message = "num_envs must be an int from 1 to 65536"
    for n in (MAX_NUM_ENVS + 1, 10**6, 0, 2.0):
        with pytest.raises(ValueError, match=message):
            vector.SixtySixVectorEnv(num_envs=n)
        with pytest.raises(ValueError, match=message):
            vector.SixtySixSelfPlayVectorEnv(num_envs=n)
    with pytest.raises(ValueError, match=message):
        gymnasium.make_vec("SixtySix-v0", num_envs=10**6, vectorization_mode="vector_entry_point")


def test_vector_env_match_seeds_are_any_integers_as_in_the_single_env(vector):
    """A seed past 2**63 (an object array) was refused as "not integers"; it is one, and
    the single environment takes it: both deal the same match."""
    seeds = [2**64 + 5, 3]
    env = vector.SixtySixVectorEnv(num_envs=2, mode="match", opponent="heuristic")
    obs, _ = env.reset(options={"match_seeds": seeds, "learner_seats": [0, 1]})
    for i, seed in enumerate(seeds):
        single = gymnasium.make("SixtySix-v0", mode="match", opponent="heuristic")
        o, _ = single.reset(options={"match_seed": seed, "learner_seat": i})
        assert np.array_equal(obs["observation"][i], o["observation"])
    for bad in ([1.5, 2], [2**64, 2.0], [[1], [2, 3]]):
        with pytest.raises(ValueError, match="'match_seeds' must be 2 integers"):
            env.reset(options={"match_seeds": bad, "learner_seats": [0, 1]})


def test_single_env_a_reset_its_opponent_breaks_leaves_nothing_to_step():
    """An opponent that answers an illegal action on its first move fails the reset after
    the deal; the learner cannot then step for the seat to act (before, it played the
    opponent's move, from the opponent's position)."""

    class Cheater:
        name = "cheater"

        def act(self, view, rng):
            return next(a for a in range(34) if not view.legal_mask >> a & 1)

    env = SixtySixEnv(opponent=Cheater(), illegal_action="raise")
    options = {"deck": DECK, "dealer": 1, "learner_seat": 1}  # the opponent leads
    with pytest.raises(IllegalActionError, match="opponent 'cheater'"):
        env.reset(options=options)
    legal = env.state.legal_actions()[0]  # the opponent's legal move
    with pytest.raises(IllegalActionError, match="the episode is over; call reset"):
        env.step(legal)


def test_vector_env_a_reset_its_opponent_breaks_leaves_nothing_to_step(vector):
    class CheatsOnce:
        name = "cheater"
        cheated = False

        def act(self, view, rng):
            legal = view.legal_actions()
            if self.cheated:
                return legal[0]
            self.cheated = True
            return next(a for a in range(34) if a not in legal)

    env = vector.SixtySixVectorEnv(num_envs=2, opponent=CheatsOnce(), illegal_action="raise")
    options = {"decks": [DECK, DECK], "dealers": [1, 1], "learner_seats": [1, 1]}
    with pytest.raises(IllegalActionError, match="opponent 'cheater'"):
        env.reset(options=options)
    legal = env.states.legal_masks()  # the opponent's legal moves, seat 0 to act
    actions = np.array([int(m & -m).bit_length() - 1 for m in legal.tolist()])
    with pytest.raises(IllegalActionError, match=r"the last reset\(\) failed"):
        env.step(actions)
    obs, _ = env.reset(options=options)  # a reset that succeeds lets it step again
    env.step(obs["action_mask"].argmax(axis=1))
