"""Properties over thousands of seeded random hands in every preset."""

from __future__ import annotations

import pickle
import random
from collections import Counter

import pytest

from sixtysix_env import (
    PRESETS,
    Match,
    State,
    determinize,
    new_hand,
    player_view,
    random_deck,
)
from sixtysix_env.game.cards import CARD_POINTS, TOTAL_CARD_POINTS, mask_points
from sixtysix_env.game.engine import Trick

PRESET_NAMES = sorted(PRESETS)
# Random hands per preset on each engine (the batched one is checked against the
# reference at every action: conftest.py's engine fixture).
HANDS = {"reference": 1500, "batched": 200}
MAX_ACTIONS_PER_HAND = 12 * 2 + 2  # every card, one exchange, one close


def random_positions(rules: str, hands: int, seed: int):
    """(state, action) pairs along seeded random games, and the final states."""
    rng = random.Random(seed)
    for i in range(hands):
        s = new_hand(rng, dealer=i % 2, rules=rules)
        steps = 0
        while not s.is_terminal():
            legal = s.legal_actions()
            a = legal[rng.randrange(len(legal))]
            yield s, a
            s = s.apply(a)
            steps += 1
            assert steps <= MAX_ACTIONS_PER_HAND
        yield s, None


def check_cards_conserved(s: State) -> None:
    h0, h1 = s.hands
    p0, p1 = s.played
    stock = 0
    for c in s.stock_cards:
        stock |= 1 << c
    places = [h0, h1, p0, p1, stock]
    if s.stock_left:
        places.append(1 << s.trump_card)
    total = 0
    for m in places:
        assert total & m == 0, "a card is in two places"
        total |= m
    assert total == s.rules.deck_mask, "a card is missing (or one not in the deck is dealt)"


# Two presets in the fast lane (a 24-card game and a 20-card one); the others in the full suite.
LANE_PRESETS = [p if p in ("altmisalti", "schnapsen") else pytest.param(p, marks=pytest.mark.slow)
                for p in PRESET_NAMES]

#: The share of a test's random hands it plays: the fast lane a quarter of them (the first
#: ones of the same seeded games), the full suite all of them.
SHARE = [pytest.param(4, id="quarter"), pytest.param(1, id="all", marks=pytest.mark.slow)]


@pytest.mark.parametrize("share", SHARE)
@pytest.mark.parametrize("rules", LANE_PRESETS)
def test_random_play_invariants(rules, engine, share):
    hands = 0
    wanted = HANDS[engine] // share
    for s, a in random_positions(rules, wanted, seed=PRESET_NAMES.index(rules)):
        check_cards_conserved(s)
        tricks = [e for e in s.events() if type(e) is Trick]
        in_tricks = sum(CARD_POINTS[t.lead] + CARD_POINTS[t.follow] for t in tricks)
        assert sum(s.card_points) == in_tricks
        assert sum(s.tricks_won) == len(tricks) == s.tricks_done
        if a is None:
            hands += 1
            res = s.result
            r = s.returns()
            assert r[0] + r[1] == 0
            assert res.game_points in ((0,) if res.winner is None else (1, 2, 3))
            assert s.legal_actions() == [] and s.current_player() == -1
            if res.reason in ("last_trick", "tie"):
                assert sum(res.card_points) == TOTAL_CARD_POINTS
                assert len(tricks) == s.rules.num_tricks
                bonus = 0 if s.rules.last_trick_wins else 10
                assert sum(res.totals) == TOTAL_CARD_POINTS + bonus + sum(
                    m - p for m, p, t in zip(res.marriage_points, s.pending_points, res.tricks_won)
                    if t
                )
            if res.reason == "last_trick" and s.rules.last_trick_wins:
                # Schnapsen: the last trick wins the hand by itself, for one game point.
                assert (res.winner, res.game_points) == (tricks[-1].winner, 1)
            if s.rules.marriage_points_pending and res.winner is not None:
                # Points never redeemed never count; a redeemed declaration needed a won trick.
                for seat in (0, 1):
                    counted = res.marriage_points[seat] - s.pending_points[seat]
                    assert res.totals[seat] == res.card_points[seat] + counted
            if res.reason == "tie":
                assert res.totals == (65, 65)
        else:
            legal = s.legal_actions()
            assert legal, "no legal action before the end"
            assert s.current_player() in (0, 1)
    assert hands == wanted


@pytest.mark.parametrize("share", SHARE)
@pytest.mark.parametrize("rules", LANE_PRESETS)
def test_apply_never_changes_its_input(rules, engine, share):
    for s, a in random_positions(rules, (300 if engine == "reference" else 40) // share, seed=7):
        if a is None:
            continue
        before = pickle.dumps(s)
        v_before = list(s.v)
        s.apply(a)
        assert s.v == v_before
        assert pickle.dumps(s) == before


# One preset in the fast lane (30 s), on a quarter of the hands; the others in the full suite.
@pytest.mark.parametrize("share", SHARE)
@pytest.mark.parametrize("rules", [p if p == "altmisalti" else pytest.param(p, marks=pytest.mark.slow)
                                   for p in PRESET_NAMES])
def test_determinized_state_agrees_with_view(rules, share):
    rng = random.Random(11)
    checked = 0
    for s, a in random_positions(rules, 400 // share, seed=3):
        for seat in (0, 1):
            view = player_view(s, seat)
            d = determinize(view, rng)
            assert player_view(d, seat) == view
            assert d.hand(seat) == s.hand(seat)
            assert d.legal_mask() == s.legal_mask() or view.to_move != seat
            check_cards_conserved(d)
            if a is not None and view.to_move == seat:
                # The determinized state plays on like any other.
                assert d.apply(a).current_player() in (-1, 0, 1)
            checked += 1
    assert checked > 1000 // share


@pytest.mark.slow  # over a second: the full run, not the fast lane
def test_determinize_keeps_exclusions_and_known_cards():
    """After a close, a revealed void must never be dealt back to the opponent."""
    rng = random.Random(5)
    found = 0
    for s, _ in random_positions("altmisalti", 3000, seed=21):
        if s.is_terminal() or s.closed_by is None:
            continue
        for seat in (0, 1):
            view = player_view(s, seat)
            if not view.opponent_excluded and not view.opponent_known:
                continue
            found += 1
            for _ in range(5):
                d = determinize(view, rng)
                opp = d.hand(1 - seat)
                assert opp & view.opponent_excluded == 0
                assert opp & view.opponent_known == view.opponent_known
    assert found > 100


def test_determinize_is_uniform_over_unseen_cards():
    """At the first lead each of the 17 unseen cards is in the opponent's hand 6/17 of the time."""
    s = new_hand(123)
    view = player_view(s, 0)
    rng = random.Random(0)
    n = 17000
    counts = Counter()
    for _ in range(n):
        opp = determinize(view, rng).hand(1)
        for c in range(24):
            if opp >> c & 1:
                counts[c] += 1
    unseen = [c for c in range(24) if view.unseen() >> c & 1]
    assert len(unseen) == 17
    expected = n * 6 / 17
    sd = (n * 6 / 17 * 11 / 17) ** 0.5
    for c in unseen:
        assert abs(counts[c] - expected) < 5 * sd, (c, counts[c], expected)
    assert set(counts) == set(unseen)


def test_same_seed_same_deal_and_game():
    assert random_deck(42) == random_deck(42)
    assert random_deck(42) != random_deck(43)
    # Python's Mersenne Twister shuffle is the same on every platform: pin one deal.
    assert new_hand(42).hands == new_hand(42).hands

    def game(seed):
        return [(s.v[:], a) for s, a in random_positions("santase", 5, seed)]

    assert game(9) == game(9)
    assert game(9) != game(10)


@pytest.mark.parametrize("rules", PRESET_NAMES)
def test_match_ends_at_target_with_alternating_deal(rules):
    rng = random.Random(1)
    for seed in range(30):
        m = Match(rules, seed=seed)
        dealers = [m.hand.dealer]
        while not m.is_over():
            legal = m.legal_actions()
            res = m.apply(legal[rng.randrange(len(legal))])
            if res is not None and not m.is_over():
                dealers.append(m.hand.dealer)
                assert m.hand.match_score == tuple(m.score)
        target = PRESETS[rules].match_target
        assert max(m.score) >= target > min(m.score)
        assert m.score[m.winner] >= target
        assert sum(sum(x) for x in m.scored) == sum(m.score)
        # Reached exactly with the last hand, not before.
        before = [a - b for a, b in zip(m.score, m.scored[-1])]
        assert max(before) < target
        assert all(dealers[i] != dealers[i + 1] for i in range(len(dealers) - 1))


def check_view_roundtrip(seed: int, rules: str, depth: int) -> None:
    """Plays ``depth`` random actions from a seeded deal, then each seat's view survives a
    determinization and counts its hand's points."""
    rng = random.Random(seed)
    s = new_hand(rng, dealer=seed % 2, rules=rules)
    for _ in range(depth):
        if s.is_terminal():
            break
        legal = s.legal_actions()
        s = s.apply(legal[rng.randrange(len(legal))])
    for seat in (0, 1):
        view = player_view(s, seat)
        assert player_view(determinize(view, seed), seat) == view
        in_hand = [c for c in range(24) if view.hand >> c & 1]
        assert mask_points(view.hand) == sum(CARD_POINTS[c] for c in in_hand)


def test_view_roundtrip_at_seeded_positions():
    """The fast lane's sample of test_view_roundtrip_anywhere: every preset, depths 0 to 30."""
    rng = random.Random(17)
    for i in range(12 * len(PRESET_NAMES)):
        check_view_roundtrip(rng.randrange(2**32), PRESET_NAMES[i % len(PRESET_NAMES)],
                             rng.randrange(31))


@pytest.mark.slow  # hypothesis's search; imported here, so that collecting the lane does not
def test_view_roundtrip_anywhere():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=200, deadline=None)
    @given(seed=st.integers(0, 2**32 - 1), rules=st.sampled_from(PRESET_NAMES),
           depth=st.integers(0, 30))
    def roundtrip(seed, rules, depth):
        check_view_roundtrip(seed, rules, depth)

    roundtrip()
