"""Table-driven scenarios for the 20-card presets and their switches (docs/rules.md §17, §20).

``schnapsen`` is the standard game, ``schnapsen-vu`` the ``schnapsen`` package's engine.
Each switch is also tried alone on the default rules, where it must do the same thing.
Every test runs on both engines (conftest.py: the engine fixture twins each dealt hand
and compares legal masks, observations and results after every action).

Seats: with ``dealer=1`` seat 0 is the non-dealer and leads the first trick. Card
points: J=2 Q=3 K=4 T=10 A=11.
"""

from __future__ import annotations

import random

import pytest

from sixtysix_env import (
    DeckError,
    action_name,
    deal_from_deck,
    make_rules,
    new_hand,
    parse_card,
    play_actions,
    player_view,
)
from sixtysix_env.game.actions import CLOSE, EXCHANGE
from sixtysix_env.game.cards import NINE, card_code, cards_of, rank_of
from sixtysix_env.game.engine import parse_deck, random_deck
from sixtysix_env.game.wording import explain_illegal
from sixtysix_env.policy.observation import INDEX, encode_with_mask

pytestmark = pytest.mark.usefixtures("engine")

SCHNAPSEN = ("schnapsen", "schnapsen-vu")


def deck20(non_dealer: str, dealer: str, trump: str, stock: str = "", rules="schnapsen"):
    """A 20-card deck order (top first): the two hands of five, the trump card, the first
    stock cards; the rest of the stock is the unused cards of the deck in id order."""
    nd, d = non_dealer.split(), dealer.split()
    assert len(nd) == 5 and len(d) == 5, "a hand has five cards"
    head = nd[:3] + d[:3] + nd[3:] + d[3:] + [trump] + stock.split()
    ids = [parse_card(c) for c in head]
    assert len(set(ids)) == len(ids), f"card twice in scenario: {head}"
    rest = [card_code(c) for c in make_rules(rules).deck_cards if c not in ids]
    return head + rest


def deal(seat0: str, seat1: str, trump: str, stock: str = "", *, rules="schnapsen"):
    """A hand (dealer seat 1) where seat 0 holds ``seat0`` and seat 1 holds ``seat1``."""
    return deal_from_deck(deck20(seat0, seat1, trump, stock, rules), dealer=1, rules=rules)


def names(state) -> set[str]:
    return {action_name(a) for a in state.legal_actions()}


# -- the deck and the deal ---------------------------------------------------------


@pytest.mark.parametrize("rules", SCHNAPSEN)
def test_deal_is_five_cards_each_nine_face_down_no_nines(rules):
    for seed in range(50):
        s = new_hand(seed, dealer=seed % 2, rules=rules)
        assert [h.bit_count() for h in s.hands] == [5, 5]
        assert s.stock_left == 9 and s.stock_size == 10
        everything = s.hands[0] | s.hands[1] | 1 << s.trump_card
        for c in s.stock_cards:
            everything |= 1 << c
        assert everything == s.rules.deck_mask
        assert not any(rank_of(c) == NINE for c in cards_of(everything))


def test_deal_order_three_then_two():
    s = deal_from_deck(
        "JC QC KC JD QD KD TC AC TD AD AH JH QH KH TH JS QS KS TS AS", dealer=1, rules="schnapsen"
    )
    assert cards_of(s.hand(0)) == [parse_card(c) for c in ("JC", "QC", "KC", "TC", "AC")]
    assert cards_of(s.hand(1)) == [parse_card(c) for c in ("JD", "QD", "KD", "TD", "AD")]
    assert s.trump_card == parse_card("AH") and s.trump_suit == 2
    assert list(s.stock_cards) == [parse_card(c) for c in ["JH", "QH", "KH", "TH", "JS", "QS", "KS", "TS", "AS"]]


@pytest.mark.parametrize("rules", SCHNAPSEN)
def test_a_24_card_deck_is_refused_naming_the_preset(rules):
    with pytest.raises(DeckError, match=f"the {rules} rules play a 20-card deck.*got 24"):
        deal_from_deck(random_deck(1), rules=rules)
    nine = deck20("JC QC KC JD QD", "KD TC AC TD AD", "AH")
    nine[19] = "9S"
    with pytest.raises(DeckError, match=f"deck position 20: 9S is not in the {rules} rules' "
                       "20-card deck"):
        parse_deck(nine, rules)
    twice = deck20("JC QC KC JD QD", "KD TC AC TD AD", "AH")
    twice[19] = "JC"
    with pytest.raises(DeckError, match="duplicate card.*JC; missing: AS"):
        parse_deck(twice, rules)
    # The 24-card rules still want 24 cards, in the same words as before.
    with pytest.raises(DeckError, match="a deck has exactly 24 cards, got 20"):
        deal_from_deck(random_deck(1, rules))


def test_random_decks_of_the_rules_are_seeded():
    assert random_deck(5, "schnapsen") == random_deck(5, "schnapsen-vu")
    assert len(random_deck(5, "schnapsen")) == 20
    assert random_deck(5) == random_deck(5, "altmisalti")  # the 24-card shuffle unchanged


# -- the exchange: the trump jack, no trick needed ------------------------------------


@pytest.mark.parametrize("rules", SCHNAPSEN)
def test_trump_jack_exchanged_before_any_trick(rules):
    s = deal("JH QC KC JD QD", "KD TC AC TD AD", "AH", rules=rules)
    assert "exchange" in names(s)
    s = s.apply(EXCHANGE)
    assert s.trump_card == parse_card("JH") and s.hand(0) >> parse_card("AH") & 1
    assert s.current_player() == 0  # the exchange does not pass the lead
    assert "exchange" not in names(s)


def test_exchange_sentence_names_the_jack():
    from sixtysix_env.game.render import describe_event

    s = deal("JH QC KC JD QD", "KD TC AC TD AD", "AH").apply(EXCHANGE)
    assert "exchanges the jack of trumps for" in describe_event(s.events()[-1])


def test_nine_of_trumps_is_no_exchange_card_with_20_cards():
    # Switch alone: the 20-card deck on the default rules still needs a trick for it.
    s = deal("JH QC KC JD QD", "KD TC AC TD AD", "AH", rules=make_rules("altmisalti", deck=20))
    assert "exchange" not in names(s)
    assert "win a trick before you can exchange the jack of trumps" in explain_illegal(
        player_view(s, 0), EXCHANGE
    )


@pytest.mark.slow  # hundreds of random hands, each action twinned: the full suite
@pytest.mark.parametrize(("rules", "legal"), [("schnapsen", False), ("schnapsen-vu", True)])
def test_exchange_with_one_face_down_card_left(rules, legal):
    """``schnapsen``: not with one face-down card left (min_stock_to_exchange 2);
    ``schnapsen-vu``: while the talon has a card (the package's rule)."""
    rng = random.Random(3)
    seen = 0
    for seed in range(400):
        s = new_hand(seed, rules=rules)
        while not s.is_terminal() and not (s.stock_left == 1 and s.lead_card is None):
            moves = [a for a in s.legal_actions() if a not in (EXCHANGE, CLOSE)]
            s = s.apply(rng.choice(moves))
        if s.is_terminal():
            continue
        jack = s.trump_suit * 6 + 1
        if s.hand(s.current_player()) >> jack & 1:
            seen += 1
            assert ("exchange" in names(s)) is legal
    assert seen > 5


# -- marriages: no trick needed, the king only, pending points --------------------------


def test_marriage_before_any_trick_counts_once_a_trick_is_won():
    s = deal("QC KC JD QD KD", "JC TC AC TD AD", "AH")  # trumps hearts
    assert {"marry-QC", "marry-KC", "marry-QD", "marry-KD"} <= names(s)
    s = s.apply("marry-KC")
    assert s.marriage_points == (20, 0) and s.pending_points == (0, 0)
    assert s.points(0) == 0 and not s.is_terminal()  # no trick yet
    s = s.apply("AC")  # seat 1 takes it: 4 + 11
    assert s.points(0) == 0 and s.points(1) == 15
    s = play_actions(s, ["JC", "QC"])  # seat 1 leads JC, seat 0 beats it: 2 + 3
    assert s.points(0) == 5 + 20


@pytest.mark.parametrize("rules", SCHNAPSEN)
def test_marriage_at_the_first_lead(rules):
    s = deal("QC KC JD QD KD", "JC TC AC TD AD", "AH", rules=rules)
    if rules == "schnapsen":
        assert {"marry-QC", "marry-KC", "marry-QD", "marry-KD"} <= names(s)
    else:  # the package leads the king (Marriage.underlying_regular_move)
        assert {"marry-KC", "marry-KD"} <= names(s)
        assert not {"marry-QC", "marry-QD"} & names(s)
        view = player_view(s, 0)
        assert "declared by leading its king" in explain_illegal(view, 24 + 0)


def test_pending_points_wait_for_the_next_won_trick():
    # schnapsen-vu: seat 0 declares 40 in trumps at once and loses the trick.
    s = deal("QH KH JD AD AS", "AH TC AC TD KD", "JH", rules="schnapsen-vu")  # trumps hearts
    s = s.apply("marry-KH")
    assert s.marriage_points == (40, 0) and s.pending_points == (40, 0)
    assert s.points(0) == 0
    view = player_view(s, 1)
    obs = encode_with_mask(view)[0]
    assert obs[INDEX["opp_marriage_pts"]] == 0.0  # declared less pending
    s = s.apply("AH")  # seat 1 wins 15
    assert s.pending_points == (40, 0) and s.points(0) == 0 and s.points(1) == 15
    s = play_actions(s, ["KD", "AD"])  # seat 0 wins its first trick: the 40 are redeemed
    assert s.pending_points == (0, 0) and s.points(0) == 15 + 40
    obs = encode_with_mask(player_view(s, 0))[0]
    assert obs[INDEX["my_marriage_points"]] == pytest.approx(0.4)


def test_pending_declaration_never_ends_the_hand():
    """Under the standard rules a declarer with a trick goes out by declaring; under
    ``marriage_points_pending`` the follower still plays and the points come with a won trick."""
    hands = ("AC TC QH KH JD", "JC QC KC QD KD", "AH", "TD AD JS QS KS TS AS TH JH")
    # seat 0 leads AC (seat 1 answers JC) and TC (QC): 11+2+10+3 = 26 ... then needs 40.
    for rules, ended in (("schnapsen", True), ("schnapsen-vu", False)):
        s = deal(*hands, rules=rules)
        s = play_actions(s, ["AC", "JC", "TC", "QC"])
        assert s.card_points[0] == 26
        s = s.apply("marry-KH")  # 26 + 40 = 66
        assert s.is_terminal() is ended
        if not ended:
            assert s.pending_points[0] == 40 and s.points(0) == 26
            s = s.apply("KC")  # seat 1 cannot beat KH (trumps hearts): seat 0 wins
            assert s.is_terminal() and s.result.winner == 0
            assert s.result.totals[0] == 26 + 40 + 8


# -- closing ------------------------------------------------------------------------


def test_no_closing_in_schnapsen_vu():
    s = deal("QC KC JD QD KD", "JC TC AC TD AD", "AH", rules="schnapsen-vu")
    assert "close" not in names(s)
    assert "These rules have no closing" in explain_illegal(player_view(s, 0), CLOSE)
    obs = encode_with_mask(player_view(s, 0))[0]
    assert obs[INDEX["min_stock_to_close"]] == 0.0


def test_closing_in_schnapsen_from_the_first_lead():
    s = deal("QC KC JD QD KD", "JC TC AC TD AD", "AH", rules="schnapsen")
    assert "close" in names(s)
    s = s.apply(CLOSE)
    assert s.closed_by == 0 and s.close_info == (0, 0, 0)


# -- the last trick ------------------------------------------------------------------


@pytest.mark.slow  # hundreds of random hands, each action twinned: the full suite
@pytest.mark.parametrize("rules", SCHNAPSEN)
def test_last_trick_wins_the_hand_for_one_point(rules):
    rng = random.Random(1)
    lower = 0
    for seed in range(300):
        s = new_hand(seed, rules=rules)
        while not s.is_terminal():
            moves = [a for a in s.legal_actions() if a != CLOSE]
            s = s.apply(rng.choice(moves))
        res = s.result
        if res.reason != "last_trick":
            continue
        assert res.winner == s.tricks()[-1].winner and res.game_points == 1
        assert res.last_trick_bonus == 0 and res.winner is not None
        if res.totals[res.winner] < res.totals[1 - res.winner]:
            lower += 1
            assert "wins the last trick, which wins the hand: 1 game point" in res.explain()
    assert lower > 0, "no hand where the last trick's winner had the lower total"


# -- each switch alone on the default rules --------------------------------------------


@pytest.mark.parametrize(
    ("base", "switches", "check"),
    [
        ({}, {"closing": False}, lambda s: "close" not in names(s)),
        ({}, {"marriage_needs_trick": False}, lambda s: {"marry-QC", "marry-KC"} <= names(s)),
        ({}, {"exchange_needs_trick": False}, lambda s: "exchange" in names(s)),
        ({"marriage_needs_trick": False}, {"marriage_lead": "king"},
         lambda s: "marry-KC" in names(s) and "marry-QC" not in names(s)),
    ],
)
def test_each_switch_alone_at_the_first_lead(base, switches, check):
    head = ["QC", "KC", "9H", "JD", "QD", "KD", "JC", "TC", "AC", "TD", "AD", "JH", "AH"]  # seat 0: QC KC 9H JC TC AC
    deck = head + [card_code(c) for c in range(24) if card_code(c) not in head]
    before = deal_from_deck(deck, rules=make_rules("altmisalti", **base))
    s = deal_from_deck(deck, rules=make_rules("altmisalti", **base, **switches))
    assert not check(before)
    assert check(s)


@pytest.mark.slow  # a hundred random hands, each action twinned: the full suite
def test_last_trick_wins_and_pending_on_24_cards():
    rules = make_rules("altmisalti", last_trick_wins=True, marriage_points_pending=True)
    rng = random.Random(2)
    for seed in range(100):
        s = new_hand(seed, rules=rules)
        while not s.is_terminal():
            s = s.apply(rng.choice(s.legal_actions()))
        if s.result.reason == "last_trick":
            assert s.result.winner == s.tricks()[-1].winner and s.result.game_points == 1
        assert s.result.reason != "tie"


def test_to_dict_keeps_old_records_and_round_trips():
    assert "deck" not in make_rules("santase").to_dict()
    d = make_rules("schnapsen-vu").to_dict()
    assert d["deck"] == 20 and d["closing"] is False and d["marriage_lead"] == "king"
    assert make_rules(d).replace(name="schnapsen-vu") == make_rules("schnapsen-vu")
