"""The observation encoder: its documented layout, no leak of hidden cards, and
that everything a player may know shows in it."""

from __future__ import annotations

import dataclasses
import random
import re

import numpy as np
import pytest

from sixtysix_env import (
    PRESETS,
    Exchange,
    Marriage,
    RuleConfig,
    Trick,
    determinize,
    new_hand,
    player_view,
    sixtysix_v0,
)
from sixtysix_env.policy import observation as ob
from sixtysix_env.policy.observation import (
    FIELDS,
    INDEX,
    OBS_SIZE,
    OBS_VERSION,
    action_mask,
    check_obs_version,
    encode_view,
)

CUSTOM = RuleConfig(
    name="custom",
    failed_close_penalty="3",
    opponent_totals_at="close",
    tie_rule="carry-over",
    match_target=5,
)


def random_positions(rules, games: int, seed: int):
    """Every position of ``games`` random hands (terminal ones too), with a random match score."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        score = (rng.randrange(rules.match_target), rng.randrange(rules.match_target))
        state = new_hand(rng, rng.randrange(2), rules, score)
        while True:
            out.append(state)
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state = state.apply(legal[rng.randrange(len(legal))])
    return out


@pytest.fixture(scope="module")
def positions():
    out = []
    for i, rules in enumerate([*PRESETS.values(), CUSTOM]):
        out += random_positions(rules, 60, seed=i)
    return out


# -- the documented layout --------------------------------------------------------


def _doc_rows(doc: str, pattern: str) -> list[tuple[int, int, str]]:
    rows = []
    for m in re.finditer(pattern, doc, re.MULTILINE):
        first = int(m.group(1))
        last = int(m.group(2)) if m.group(2) else first
        rows.append((first, last, m.group(3)))
    return rows


@pytest.mark.parametrize(
    "doc, pattern",
    [
        (ob.__doc__, r"^(\d+)(?:-(\d+))?\s+([a-z_]+)\s"),
        (sixtysix_v0.__doc__, r"^\| (\d+)(?:-(\d+))?\s+\| ([a-z_]+)\s+\|"),
    ],
    ids=["observation-module", "sixtysix_v0-page"],
)
def test_documented_index_table_matches_the_code(doc, pattern):
    rows = _doc_rows(doc, pattern)
    expected = [(start, start + n - 1, name) for name, start, n in FIELDS]
    assert rows == expected
    assert rows[-1][1] == OBS_SIZE - 1


def test_fields_tile_the_vector():
    pos = 0
    for _, start, n in FIELDS:
        assert start == pos
        pos += n
    assert pos == OBS_SIZE == 349
    assert INDEX["hand"] == 0 and INDEX["last_trick_bonus"] == 348


def test_obs_version_check():
    check_obs_version(OBS_VERSION)
    with pytest.raises(ValueError, match=f"expects observation version {OBS_VERSION + 1}"):
        check_obs_version(OBS_VERSION + 1)


def test_values_dtype_and_range(positions):
    for state in positions[::7]:
        for seat in (0, 1):
            obs = encode_view(player_view(state, seat))
            assert obs.dtype == np.float32 and obs.shape == (OBS_SIZE,)
            assert obs.min() >= 0.0 and obs.max() <= 1.0


def test_every_index_is_used(positions):
    seen = np.zeros(OBS_SIZE, bool)
    for state in positions:
        for seat in (0, 1):
            seen |= encode_view(player_view(state, seat)) > 0
    unused = [name for name, start, n in FIELDS for i in range(start, start + n) if not seen[i]]
    assert not unused


def test_fields_read_back(positions):
    """Spot checks that each plane holds what the table says, from the view's own fields."""
    for state in positions[::5]:
        for seat in (0, 1):
            view = player_view(state, seat)
            f = ob.describe(encode_view(view))

            def plane(name, f=f):
                return sum(1 << i for i, x in enumerate(f[name]) if x)

            assert plane("hand") == view.hand
            assert plane("my_played") == view.played[seat]
            assert plane("opp_played") == view.played[1 - seat]
            assert plane("opp_known") == view.opponent_known
            assert plane("opp_excluded") == view.opponent_excluded
            assert plane("unseen") == view.unseen()
            assert plane("my_known") == view.own_known
            assert plane("lead") == (0 if view.lead_card is None else 1 << view.lead_card)
            assert plane("trump_card") == (1 << view.trump_card if view.stock_left else 0)
            assert plane("opp_void") == sum(1 << s for s in view.opponent_void_suits())
            assert f["trump_suit"][view.trump_suit] == 1
            assert f["stock_left"][(view.stock_left + 1) // 2] == 1 and f["stock_left"].sum() == 1
            assert f["my_turn"][0] == (view.to_move == seat)
            assert f["hand_over"][0] == (view.result is not None)
            assert f["my_card_points"][0] == np.float32(view.card_points[seat] / 120)
            won = [0, 0]
            for t in view.tricks():
                won[t.winner] |= 1 << t.lead | 1 << t.follow
            assert plane("my_won") == won[seat] and plane("opp_won") == won[1 - seat]
            mask = action_mask(view)
            assert mask.dtype == np.int8
            assert sum(1 << i for i, x in enumerate(mask) if x) == view.legal_mask


# -- no leak -------------------------------------------------------------------------


@pytest.mark.slow  # over a second: the full run, not the fast lane
def test_no_leak_redealt_hidden_cards_give_identical_observations(positions):
    """Re-deal what the player cannot see: its observation and mask stay bit for bit the same."""
    rng = random.Random(99)
    checked = changed_hidden = 0
    for state in positions:
        for seat in (0, 1):
            view = player_view(state, seat)
            obs, mask = ob.encode_with_mask(view)
            for _ in range(2):
                other = determinize(view, rng)
                o = 1 - seat
                if other.hand(o) != state.hand(o) or other.stock_cards != state.stock_cards:
                    changed_hidden += 1
                obs2, mask2 = ob.encode_with_mask(player_view(other, seat))
                assert obs2.tobytes() == obs.tobytes()
                assert mask2.tobytes() == mask.tobytes()
                checked += 1
    assert checked > 4000
    assert changed_hidden > checked // 2  # the re-deals really moved hidden cards


def test_observation_ignores_hidden_cards_directly():
    """Two deals that differ only in the opponent's hand and the stock order."""
    rng = random.Random(5)
    for _ in range(200):
        state = new_hand(rng, rng.randrange(2))
        seat = rng.randrange(2)
        other = determinize(player_view(state, seat), rng)
        assert other.hand(seat) == state.hand(seat)
        a = encode_view(player_view(state, seat))
        b = encode_view(player_view(other, seat))
        assert a.tobytes() == b.tobytes()


# -- the converse: every knowable item shows ------------------------------------------


def _swap_card(mask: int, pool: int) -> int:
    """``mask`` with its lowest card replaced by the lowest card of ``pool``."""
    low = mask & -mask
    new = pool & -pool
    return (mask & ~low) | new


def _flip_trick_winner(events):
    for i, e in enumerate(events):
        if type(e) is Trick:
            return events[:i] + (e._replace(winner=1 - e.winner),) + events[i + 1 :]
    return None


def _changes(view):
    """(item, replacement fields) for each item the player may know; None = not applicable."""
    s, o = view.seat, 1 - view.seat
    unseen = view.unseen()

    def two(pair, i, val):
        return tuple(val if j == i else pair[j] for j in (0, 1))

    yield "hand", ({"hand": _swap_card(view.hand, unseen)} if view.hand and unseen else None)
    yield "trump_suit", {"trump_suit": (view.trump_suit + 1) % 4}
    yield "trump_card", ({"trump_card": (view.trump_card + 1) % 24} if view.stock_left else None)
    yield "lead_card", {"lead_card": None if view.lead_card is not None else 5}
    yield "my_played", {"played": two(view.played, s, view.played[s] ^ 1 << 7)}
    yield "opp_played", {"played": two(view.played, o, view.played[o] ^ 1 << 7)}
    yield "opp_known", {"opponent_known": view.opponent_known ^ 1 << 3}
    yield "opp_excluded", {"opponent_excluded": view.opponent_excluded ^ 1 << 3}
    yield "own_known", {"own_known": view.own_known ^ 1 << 3}
    yield "own_excluded", {"own_excluded": view.own_excluded ^ 1 << 3}
    yield "stock_left", {"stock_left": (view.stock_left + 2) % 12}
    yield "closed_by", {"closed_by": o if view.closed_by is None else None}
    yield (
        "closed_by_who",
        ({"closed_by": 1 - view.closed_by} if view.closed_by is not None else None),
    )
    yield "my_tricks", {"tricks_won": two(view.tricks_won, s, view.tricks_won[s] + 1)}
    yield "opp_tricks", {"tricks_won": two(view.tricks_won, o, view.tricks_won[o] + 1)}
    yield "my_card_points", {"card_points": two(view.card_points, s, view.card_points[s] + 2)}
    yield "opp_card_points", {"card_points": two(view.card_points, o, view.card_points[o] + 2)}
    yield (
        "my_marriage",
        {"marriage_points": two(view.marriage_points, s, view.marriage_points[s] + 20)},
    )
    yield (
        "opp_marriage",
        {"marriage_points": two(view.marriage_points, o, view.marriage_points[o] + 20)},
    )
    yield "my_score", {"match_score": two(view.match_score, s, (view.match_score[s] + 1) % 7)}
    yield "opp_score", {"match_score": two(view.match_score, o, (view.match_score[o] + 1) % 7)}
    yield "dealer", {"dealer": 1 - view.dealer}
    yield "leader", {"leader": 1 - view.leader}
    yield "to_move", {"to_move": o if view.to_move == s else s}
    yield "just_closed", {"just_closed": not view.just_closed}
    ci = view.close_info
    # (None means "not closed", which the closed flags already show.)
    yield "close_card_points", {"close_info": (ci[0] + 2, ci[1], ci[2]) if ci else (30, 0, 0)}
    yield "close_marriage_points", {"close_info": (ci[0], ci[1] + 20, ci[2]) if ci else (0, 20, 0)}
    yield "close_tricks", {"close_info": (ci[0], ci[1], 1 - min(ci[2], 1)) if ci else (0, 0, 1)}
    yield "opponent_hand_size", {"opponent_hand_size": (view.opponent_hand_size + 1) % 7}
    yield (
        "trick_winner",
        ({"events": _flip_trick_winner(view.events)} if _flip_trick_winner(view.events) else None),
    )
    for who, side in (("my", s), ("opp", o)):
        married = {e.suit for e in view.marriages() if e.seat == side}
        free = [suit for suit in range(4) if suit not in married]
        yield (
            who + "_marriage_event",
            {
                "events": view.events
                + (Marriage(side, free[0], 20, 6 * free[0] + 2, 6 * free[0] + 3),)
            },
        )
        exchanged = any(e.seat == side for e in view.exchanges())
        yield (
            who + "_exchange_event",
            (None if exchanged else {"events": view.events + (Exchange(side, 20, 18),)}),
        )
    yield "hand_over", {"result": None if view.result is not None else object()}
    for switch, value in [
        ("must_beat_in_suit", not view.rules.must_beat_in_suit),
        ("marriage_after_close", not view.rules.marriage_after_close),
        ("close_on_first_lead", not view.rules.close_on_first_lead),
        ("closing", not view.rules.closing),
        ("min_stock_to_exchange", view.rules.min_stock_to_exchange % 3 + 1),
        ("failed_close_penalty", "3" if view.rules.failed_close_penalty != "3" else "2"),
        ("opponent_totals_at", "close" if view.rules.opponent_totals_at == "end" else "end"),
        ("tie_rule", "carry-over" if view.rules.tie_rule == "no-points" else "no-points"),
        ("going_out", view.rules.going_out + 1),
        ("last_trick_bonus", view.rules.last_trick_bonus + 1),
    ]:
        yield "rules." + switch, {"rules": view.rules.replace(**{switch: value})}
    # Where the stock cannot be closed, how many cards a close would need is not in it.
    yield "rules.min_stock_to_close", (
        {"rules": view.rules.replace(min_stock_to_close=view.rules.min_stock_to_close % 3 + 1)}
        if view.rules.closing else None)


@pytest.mark.slow  # over a second: the full run, not the fast lane
def test_each_knowable_item_changes_the_observation(positions):
    hits: dict[str, int] = {}
    for state in positions[::9]:
        for seat in (0, 1):
            view = player_view(state, seat)
            base = encode_view(view).tobytes()
            for item, change in _changes(view):
                if change is None:
                    continue
                changed = dataclasses.replace(view, **change)
                assert encode_view(changed).tobytes() != base, f"{item} does not show"
                hits[item] = hits.get(item, 0) + 1
    names = {item for item, _ in _changes(player_view(positions[0], 0))}
    assert set(hits) == names  # every item was exercised at least once


def test_the_mask_is_the_legal_mask_of_the_view(positions):
    for state in positions[::11]:
        for seat in (0, 1):
            view = player_view(state, seat)
            changed = dataclasses.replace(view, legal_mask=view.legal_mask ^ 1 << 33)
            assert action_mask(changed).tobytes() != action_mask(view).tobytes()
