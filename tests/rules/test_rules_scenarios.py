"""Table-driven rule scenarios on fixed decks: every numbered rule of
docs/rules.md (§1-§16) and every switch of its preset table (§17).

Each scenario deals a deck chosen so that the play is short and forced, then
asserts exact values. Rule numbers in test names are the sections of
docs/rules.md: ``test_rule7_...`` checks §7.

Seats: with ``dealer=1`` (the default of :func:`deal`) seat 0 is the
non-dealer and leads the first trick. Card points: 9=0 J=2 Q=3 K=4 T=10 A=11.
The comments beside each action sequence give the running card points.
"""

from __future__ import annotations

import copy

import pytest

from sixtysix_env import (
    DeckError,
    Exchange,
    IllegalActionError,
    Marriage,
    Match,
    RuleConfig,
    RuleConfigError,
    Trick,
    action_name,
    deal_from_deck,
    make_rules,
    parse_action,
    parse_card,
    play_actions,
    player_view,
)
from sixtysix_env.game.actions import CLOSE, EXCHANGE, FIRST_MARRIAGE
from sixtysix_env.game.cards import card_code, cards_of, mask_of
from sixtysix_env.game.engine import Close
from sixtysix_env.game.rules import SWITCHES

# Every test here runs on both engines (conftest.py: the engine fixture).
pytestmark = pytest.mark.usefixtures("engine")

PRESETS = ("altmisalti", "pagat66", "santase")
POINTS = {"9": 0, "J": 2, "Q": 3, "K": 4, "T": 10, "A": 11}


# -- helpers ------------------------------------------------------------------


def deck(non_dealer: str, dealer: str, trump: str, stock: str = "") -> list[str]:
    """A deck order (top first) from the two hands, the trump card and the
    first stock cards in drawing order; the rest of the stock is the unused
    cards in id order (chosen so that no scenario depends on them)."""
    nd, d = non_dealer.split(), dealer.split()
    assert len(nd) == 6 and len(d) == 6, "a hand has six cards"
    head = nd[:3] + d[:3] + nd[3:] + d[3:] + [trump] + stock.split()
    ids = [parse_card(c) for c in head]
    assert len(set(ids)) == len(ids), f"card twice in scenario: {head}"
    return head + [card_code(c) for c in range(24) if c not in ids]


def deal(
    seat0: str, seat1: str, trump: str, stock: str = "", *, dealer: int = 1, rules="altmisalti"
):
    """A hand where seat 0 holds ``seat0`` and seat 1 holds ``seat1``."""
    hands = (seat0, seat1)
    return deal_from_deck(
        deck(hands[1 - dealer], hands[dealer], trump, stock), dealer=dealer, rules=rules
    )


def run(state, actions: str):
    return play_actions(state, actions.split())


def names(actions) -> set[str]:
    return {action_name(a) for a in actions}


def codes(mask: int) -> set[str]:
    return {card_code(c) for c in cards_of(mask)}


def bit(code: str) -> int:
    return 1 << parse_card(code)


def marriage_ids(state) -> set[str]:
    return {action_name(a) for a in state.legal_actions() if FIRST_MARRIAGE <= a < EXCHANGE}


def summary(result) -> tuple:
    return (result.winner, result.game_points, result.reason)


# -- the scenario decks ---------------------------------------------------------

# LONG: 12 tricks without a close. Trumps spades (AS face up). In tricks 1-6
# seat 0 leads its clubs and diamonds and seat 1 throws its hearts, so seat 0
# wins all six (10 + 30 = 40 points) and the draws are forced:
# seat 0 draws AC KC TD 9S JS QS, seat 1 draws TC KD AD KS TS and then the
# face-up AS.
LONG = {
    "seat0": "9C JC QC 9D JD QD",
    "seat1": "9H JH QH KH TH AH",
    "trump": "AS",
    "stock": "AC TC KC KD TD AD 9S KS JS TS QS",
}
# The same, but seat 0 draws KS (after trick 4) and QS (after trick 6), so it
# holds the trump marriage once the stock is exhausted.
LONG_MARRIAGE = dict(LONG, stock="AC TC KC KD TD AD KS 9S JS TS QS")
PHASE1 = "9C 9H JC JH QC QH 9D KH JD TH QD AH"


def long_hand(rules="altmisalti", variant=LONG):
    return deal(variant["seat0"], variant["seat1"], variant["trump"], variant["stock"], rules=rules)


# -- rule 1: cards, points, rank order -------------------------------------------


RANK_ORDER = "9JQKTA"


@pytest.mark.parametrize(
    "lead,follow",
    [(a, b) for a in RANK_ORDER for b in RANK_ORDER if a != b],
)
def test_rule1_rank_order_and_points_in_one_suit(lead, follow):
    # Clubs only; fillers are diamonds (seat 0) and hearts (seat 1), trumps spades.
    s = deal(f"{lead}C 9D JD QD KD TD", f"{follow}C 9H JH QH KH TH", "AS")
    s = run(s, f"{lead}C {follow}C")
    winner = 0 if RANK_ORDER.index(lead) > RANK_ORDER.index(follow) else 1
    pts = POINTS[lead] + POINTS[follow]
    assert s.tricks()[-1].winner == winner
    expected = [0, 0]
    expected[winner] = pts
    assert s.card_points == tuple(expected)


def test_rule1_deck_has_24_cards_worth_120():
    cards = [r + s for s in "CDHS" for r in RANK_ORDER]
    assert len({parse_card(c) for c in cards}) == 24
    # All 24 cards are played between the two hands of LONG: 120 points.
    s = run(long_hand(), PHASE1 + " AC TC KC KS AD TD KD 9S JS TS AS QS")
    assert sum(s.result.card_points) == 120 == sum(POINTS[c[0]] for c in cards)


# -- rule 2: the deal -------------------------------------------------------------

DEAL_ORDER = "AC KD 9S TC QD JS AH 9H QC KS JD 9D TH JC QH KH AD TD QS AS KC 9C JH TS"


@pytest.mark.parametrize("dealer", [0, 1])
def test_rule2_deal_order_and_non_dealer_leads(dealer):
    cards = DEAL_ORDER.split()
    s = deal_from_deck(DEAL_ORDER, dealer=dealer)
    non = 1 - dealer
    assert s.hand(non) == mask_of(parse_card(c) for c in cards[0:3] + cards[6:9])
    assert s.hand(dealer) == mask_of(parse_card(c) for c in cards[3:6] + cards[9:12])
    assert s.hand(0).bit_count() == s.hand(1).bit_count() == 6
    assert s.trump_card == parse_card("TH") and s.trump_suit == 2  # hearts
    assert [card_code(c) for c in s.stock_cards] == cards[13:]
    assert s.stock_left == 11
    # Rule 3: the non-dealer leads the first trick.
    assert s.dealer == dealer and s.current_player() == non and s.leader == non
    assert player_view(s, non).hand == s.hand(non)
    assert player_view(s, non).trump_card == parse_card("TH")


@pytest.mark.parametrize(
    "lead,follow,winner_role",
    [
        ("AC", "TC", "non-dealer"),  # ace beats ten: the leader wins
        ("9S", "KS", "dealer"),  # king beats nine: the follower wins
        ("QC", "TC", "dealer"),  # ten beats queen
        ("9H", "KS", "non-dealer"),  # a trump led (hearts) beats a king of spades
    ],
)
@pytest.mark.parametrize("dealer", [0, 1])
def test_rule5_trick_winner_draws_first(dealer, lead, follow, winner_role):
    cards = DEAL_ORDER.split()
    s = run(deal_from_deck(DEAL_ORDER, dealer=dealer), f"{lead} {follow}")
    winner = 1 - dealer if winner_role == "non-dealer" else dealer
    assert s.tricks()[-1].winner == winner
    assert s.hand(winner) & bit(cards[13]) and s.hand(1 - winner) & bit(cards[14])
    assert s.hand(0).bit_count() == s.hand(1).bit_count() == 6
    assert s.stock_left == 9
    assert s.current_player() == winner  # the winner leads next


# -- rule 4: who wins a trick ----------------------------------------------------


@pytest.mark.parametrize(
    "lead,follow,winner,points",
    [
        ("AH", "TH", 0, 21),  # higher card of the suit led
        ("KH", "QH", 0, 7),
        ("9H", "JH", 1, 2),
        ("KH", "TH", 1, 14),  # the 10 ranks above the king
        ("AH", "QS", 1, 14),  # a trump beats the ace of another suit
        ("JS", "AC", 0, 13),  # a trump led beats any non-trump
        ("JS", "QS", 1, 5),  # the higher trump wins
        ("9C", "AD", 0, 11),  # another non-trump suit never wins
        ("QD", "AD", 1, 14),
        ("9H", "AC", 0, 11),
    ],
)
def test_rule4_trick_winner(lead, follow, winner, points):
    s = deal("AH KH 9H JS 9C QD", "TH QH JH QS AC AD", "9S")  # spades trumps
    s = run(s, f"{lead} {follow}")
    assert s.tricks()[-1] == Trick(1, 0, parse_card(lead), parse_card(follow), winner)
    assert s.card_points[winner] == points and s.card_points[1 - winner] == 0
    assert s.tricks_won[winner] == 1 and s.tricks_won[1 - winner] == 0


# -- rules 5, 6, 7: drawing, open phase, trick 6, strict phase -----------------


@pytest.mark.parametrize("rules", PRESETS)
def test_rule5_draws_and_trick6_loser_takes_face_up_trump(rules):
    s = long_hand(rules)
    stock = LONG["stock"].split()
    pairs = PHASE1.split()
    for k in range(6):
        s = run(s, f"{pairs[2 * k]} {pairs[2 * k + 1]}")
        assert s.tricks()[-1].winner == 0
        # Winner (seat 0) draws first, then the loser.
        if k < 5:
            assert s.hand(0) & bit(stock[2 * k]) and s.hand(1) & bit(stock[2 * k + 1])
            assert s.stock_left == 9 - 2 * k
            assert s.phase() == "open"
    # Trick 6: the winner draws the last face-down card, the loser the face-up AS.
    assert s.hand(0) & bit("QS") and s.hand(1) & bit("AS")
    assert codes(s.hand(0)) == {"AC", "KC", "TD", "9S", "JS", "QS"}
    assert codes(s.hand(1)) == {"TC", "KD", "AD", "KS", "TS", "AS"}
    assert s.stock_left == 0 and s.is_strict() and s.closed_by is None
    assert s.card_points == (40, 0) and s.result is None
    # Once the stock is exhausted both hands are known to both players.
    assert player_view(s, 0).opponent_known == s.hand(1)
    assert player_view(s, 1).opponent_known == s.hand(0)


@pytest.mark.parametrize("rules", PRESETS)
def test_rule6_open_phase_any_card_and_trick6_still_open(rules):
    s = long_hand(rules)
    # First trick: seat 1 holds hearts only, seat 0 leads a club; any card goes.
    s1 = s.apply("9C")
    assert names(s1.legal_actions()) == {"9H", "JH", "QH", "KH", "TH", "AH"}
    # Trick 6: one face-down card is left; seat 1 holds KD and AD but may
    # still throw AH on the led QD.
    s = run(s, " ".join(PHASE1.split()[:10]))
    assert s.stock_left == 1 and not s.is_strict() and s.phase() == "open"
    s = s.apply("QD")
    assert names(s.legal_actions()) == {"AH", "TC", "KD", "AD", "KS", "TS"}
    s = s.apply("AH")
    assert s.tricks()[-1].winner == 0


@pytest.mark.parametrize(
    "rules,lead,expected",
    [
        # Following suit need not beat the card led, except in pagat66/santase.
        ("altmisalti", "TD", {"KD", "AD"}),
        ("pagat66", "TD", {"AD"}),
        ("santase", "TD", {"AD"}),
        ({"preset": "altmisalti", "must_beat_in_suit": True}, "TD", {"AD"}),
        ({"preset": "pagat66", "must_beat_in_suit": False}, "TD", {"KD", "AD"}),
        ("altmisalti", "AC", {"TC"}),  # must follow suit
        ("pagat66", "AC", {"TC"}),  # must follow even if it cannot beat
        ("santase", "KC", {"TC"}),
        ("altmisalti", "9S", {"KS", "TS", "AS"}),  # trump led: follow with trumps
        ("pagat66", "JS", {"KS", "TS", "AS"}),
    ],
)
def test_rule7_strict_phase_after_exhaustion(rules, lead, expected):
    s = run(long_hand(rules), PHASE1)
    assert s.phase() == "strict (stock exhausted)"
    # The leader may lead any card.
    assert names(s.legal_actions()) == {"AC", "KC", "TD", "9S", "JS", "QS"}
    s = s.apply(lead)
    assert names(s.legal_actions()) == expected


# STRICT: trumps spades (9S face up). Seat 0 wins trick 1 (9C over seat 1's
# JD), seat 1 draws 9D, seat 0 closes and leads. Seat 1 then holds the five
# listed cards and 9D.
STRICT_SEAT0 = "9C QH QS AD KD QD"


@pytest.mark.parametrize(
    "seat1,lead,expected",
    [
        (
            "9H KH AS JS JC",
            "QH",
            {"altmisalti": {"9H", "KH"}, "pagat66": {"KH"}, "santase": {"KH"}},
        ),
        ("9H JH AS JS JC", "QH", {p: {"9H", "JH"} for p in PRESETS}),  # follow, cannot beat
        ("AS JS JC QC KC", "QH", {p: {"AS", "JS"} for p in PRESETS}),  # void: must trump
        # void in the suit led and in trumps: any card
        ("JC QC KC AC TC", "QH", {p: {"JC", "QC", "KC", "AC", "TC", "9D"} for p in PRESETS}),
        (
            "JS AS 9H KH JC",
            "QS",
            {"altmisalti": {"JS", "AS"}, "pagat66": {"AS"}, "santase": {"AS"}},
        ),
        ("9H KH AH JC TC", "QS", {p: {"9H", "KH", "AH", "JC", "TC", "9D"} for p in PRESETS}),
    ],
)
@pytest.mark.parametrize("rules", PRESETS)
def test_rule7_strict_phase_after_close(rules, seat1, lead, expected):
    s = deal(STRICT_SEAT0, seat1 + " JD", "9S", "TD 9D", rules=rules)
    s = run(s, "9C JD close")
    assert s.phase() == "strict (stock closed by seat 0)"
    s = s.apply(lead)
    assert names(s.legal_actions()) == expected[rules]


@pytest.mark.parametrize("rules", PRESETS)
def test_rule10_after_close_nobody_draws(rules):
    s = run(deal(STRICT_SEAT0, "9H KH AS JS JC JD", "9S", "TD 9D", rules=rules), "9C JD close")
    assert s.stock_left == 9 and s.closed_by == 0
    s = run(s, "QH KH")
    assert s.tricks()[-1].winner == 1
    assert s.hand(0).bit_count() == s.hand(1).bit_count() == 5
    assert s.stock_left == 9
    # Close and exchange are gone once the stock is closed.
    assert CLOSE not in s.legal_actions() and EXCHANGE not in s.legal_actions()


# -- rule 8: marriages -------------------------------------------------------------

# MARRIAGE: hearts trumps (9H face up); seat 0 holds the club and the trump
# marriage and wins trick 1 with AD.
MARRIAGE = ("KC QC KH QH AD JS", "9C JC 9D JD TS AS", "9H")


@pytest.mark.parametrize("rules", PRESETS)
def test_rule8_no_marriage_before_first_trick(rules):
    s = deal(*MARRIAGE, rules=rules)
    assert marriage_ids(s) == set()
    assert {"KC", "QC", "KH", "QH"} <= names(s.legal_actions())
    for a in ("marry-KC", "marry-QC", "marry-KH", "marry-QH"):
        with pytest.raises(IllegalActionError):
            s.apply(a)
    # A king may still be led without a declaration.
    assert s.apply("KH").marriage_points == (0, 0)


@pytest.mark.parametrize(
    "action,points,shown",
    [
        ("marry-QC", 20, "KC"),
        ("marry-KC", 20, "QC"),
        ("marry-QH", 40, "KH"),
        ("marry-KH", 40, "QH"),
    ],
)
@pytest.mark.parametrize("rules", PRESETS)
def test_rule8_marriage_after_a_trick(rules, action, points, shown):
    s = run(deal(*MARRIAGE, rules=rules), "AD 9D")
    assert s.card_points == (11, 0) and s.current_player() == 0
    assert marriage_ids(s) == {"marry-QC", "marry-KC", "marry-QH", "marry-KH"}
    assert {a for a in s.legal_actions() if FIRST_MARRIAGE <= a < EXCHANGE} == {24, 25, 28, 29}
    led = action.split("-")[1]
    s = s.apply(action)
    assert s.marriage_points == (points, 0) and s.card_points == (11, 0)
    assert s.lead_card == parse_card(led)
    assert s.events()[-1] == Marriage(
        0, parse_card(led) // 6, points, parse_card(led), parse_card(shown)
    )
    # The other card is shown: the opponent now knows it.
    assert player_view(s, 1).opponent_known == bit(shown)
    assert player_view(s, 0).own_known == bit(shown)
    # One marriage per lead: the follower is to play, with cards only.
    assert s.current_player() == 1 and max(s.legal_actions()) < FIRST_MARRIAGE
    assert s.result is None


# MARRIAGE_AFTER_CLOSE: hearts trumps (9H face up). Seat 0 wins trick 1
# (AD, 11) and closes holding the club and spade marriages; seat 1 draws KD
# and so holds the diamond marriage.
MAC = ("AD KC QC KS QS 9C", "9D JD QD AS TS JS", "9H", "9S KD")


@pytest.mark.parametrize(
    "rules,later",
    [
        ("altmisalti", False),
        ("pagat66", False),
        ("santase", True),
        ({"preset": "altmisalti", "marriage_after_close": True}, True),
        ({"preset": "santase", "marriage_after_close": False}, False),
    ],
)
def test_rule8_marriage_after_close(rules, later):
    s = run(deal(*MAC[:3], MAC[3], rules=rules), "AD 9D close")
    # The lead right after one's own close may carry a marriage (docs/rules.md
    # §8: it counts as made before the close), in every preset: pagat66 too,
    # whose published example is "exchange, declare 40, close, lead the queen".
    assert marriage_ids(s) == {"marry-QC", "marry-KC", "marry-QS", "marry-KS"}
    s = run(s, "marry-KC JD")  # seat 0: 11 + 4 + 2 = 17 card points, 20 marriage
    assert s.points(0) == 37 and s.current_player() == 0
    # A later lead of the closer: only where marriages survive a close.
    assert marriage_ids(s) == ({"marry-QS", "marry-KS"} if later else set())
    s = run(s, "9S AS")  # seat 1 wins with the ace and leads, holding KD QD
    assert s.current_player() == 1 and s.tricks_won == (2, 1)
    assert marriage_ids(s) == ({"marry-QD", "marry-KD"} if later else set())
    if not later:
        with pytest.raises(IllegalActionError):
            s.apply("marry-KD")


@pytest.mark.parametrize(
    "rules,allowed", [("altmisalti", False), ("pagat66", False), ("santase", True)]
)
def test_rule8_marriage_after_exhaustion(rules, allowed):
    s = run(long_hand(rules, LONG_MARRIAGE), PHASE1)
    assert codes(s.hand(0)) == {"AC", "KC", "TD", "KS", "JS", "QS"}
    assert s.card_points == (40, 0) and s.stock_left == 0
    if not allowed:
        assert marriage_ids(s) == set()
        with pytest.raises(IllegalActionError):
            s.apply("marry-KS")
        return
    assert marriage_ids(s) == {"marry-QS", "marry-KS"}
    # 40 card points + 40 for the trump marriage: out at once (rule 12).
    s = s.apply("marry-KS")
    assert summary(s.result) == (0, 3, "went_out")
    assert s.result.totals == (80, 0)


# -- rule 9: exchanging the trump 9 -------------------------------------------

# EXCHANGE: spades trumps (AS face up). Seat 0 keeps 9S and wins tricks 1-5
# by leading clubs and diamonds while seat 1 throws hearts.
EXCHANGE_DECK = ("9S JC QC 9D JD QD", "9H JH QH KH TH AH", "AS", "KC TC AC 9C KD TD AD JS QS KS TS")
EXCHANGE_TRICKS = ["JC 9H", "QC JH", "9D QH", "JD KH", "QD TH"]


@pytest.mark.parametrize(
    "rules,exchange_ok,close_ok",
    [
        # lead of trick:     1      2     3     4     5     6
        # face-down cards:  11      9     7     5     3     1
        ("altmisalti", [False, True, True, True, True, True], [True, True, True, True, True, True]),
        ("pagat66", [False, True, True, True, True, True], [False, True, True, True, True, True]),
        ("santase", [False, True, True, True, True, False], [False, True, True, True, True, False]),
        (
            {"preset": "altmisalti", "min_stock_to_exchange": 5, "min_stock_to_close": 3},
            [False, True, True, True, False, False],
            [True, True, True, True, True, False],
        ),
        (
            {"preset": "pagat66", "close_on_first_lead": True},
            [False, True, True, True, True, True],
            [True, True, True, True, True, True],
        ),
    ],
)
def test_rules9_10_exchange_and_close_minimum_stock(rules, exchange_ok, close_ok):
    s = deal(*EXCHANGE_DECK[:3], EXCHANGE_DECK[3], rules=rules)
    for k in range(6):
        assert s.current_player() == 0 and s.stock_left == 11 - 2 * k
        assert s.hand(0) & bit("9S")
        legal = s.legal_actions()
        assert (EXCHANGE in legal) is exchange_ok[k], f"exchange at lead of trick {k + 1}"
        assert (CLOSE in legal) is close_ok[k], f"close at lead of trick {k + 1}"
        if not exchange_ok[k]:
            with pytest.raises(IllegalActionError):
                s.apply("exchange")
        if not close_ok[k]:
            with pytest.raises(IllegalActionError):
                s.apply("close")
        if k < 5:
            s = run(s, EXCHANGE_TRICKS[k])


@pytest.mark.parametrize("rules", ["altmisalti", "pagat66"])
def test_rule9_exchange_at_trick6_then_loser_takes_the_nine(rules):
    s = run(deal(*EXCHANGE_DECK[:3], EXCHANGE_DECK[3], rules=rules), " ".join(EXCHANGE_TRICKS))
    assert s.stock_left == 1 and s.card_points == (29, 0)
    s = s.apply("exchange")
    # The turn is not passed; the 9 lies under the stock, the ace is in hand.
    assert s.current_player() == 0 and s.lead_card is None
    assert s.trump_card == parse_card("9S")
    assert s.hand(0) & bit("AS") and not s.hand(0) & bit("9S")
    assert s.events()[-1] == Exchange(0, parse_card("AS"), parse_card("9S"))
    assert player_view(s, 1).opponent_known & bit("AS")
    assert EXCHANGE not in s.legal_actions()
    s = run(s, "KC AH")  # seat 0 wins trick 6: 29 + 4 + 11 = 44
    assert s.tricks()[-1].winner == 0 and s.card_points == (44, 0)
    assert s.hand(0) & bit("TS")  # the last face-down card
    assert s.hand(1) & bit("9S")  # the loser takes the 9 that replaced the AS
    assert codes(s.hand(1)) == {"TC", "9C", "TD", "JS", "KS", "9S"}
    assert s.stock_left == 0 and s.phase() == "strict (stock exhausted)"


@pytest.mark.parametrize("rules", PRESETS)
def test_rule9_exchange_does_not_pass_the_turn(rules):
    s = run(deal(*EXCHANGE_DECK[:3], EXCHANGE_DECK[3], rules=rules), "JC 9H")
    before = s.stock_left
    s2 = s.apply("exchange")
    assert s2.current_player() == 0 and s2.stock_left == before == 9
    assert s2.hand(0) == (s.hand(0) & ~bit("9S")) | bit("AS")
    assert s2.hand(1) == s.hand(1)
    assert player_view(s2, 1).opponent_known == bit("AS")
    # Exchange, close: the turn stays with the leader until a card is led.
    s3 = s2.apply("close")
    assert s3.current_player() == 0 and s3.closed_by == 0
    with pytest.raises(IllegalActionError):
        s3.apply("exchange")  # rule 11: exchange comes before the close
    with pytest.raises(IllegalActionError):
        s.apply("close").apply("exchange")


# ECM: spades trumps with KS face up; seat 0 holds 9S and QS, wins trick 1,
# then exchanges (taking KS), closes and declares the trump marriage.
ECM = ("AC 9S QS JD 9D QC", "9C JC 9H JH QH KH", "KS", "TD AH")


@pytest.mark.parametrize("rules", PRESETS)
def test_rule11_exchange_close_marriage_on_one_lead(rules):
    s = run(deal(*ECM[:3], ECM[3], rules=rules), "AC 9C")
    assert marriage_ids(s) == set() and {EXCHANGE, CLOSE} <= set(s.legal_actions())
    s = s.apply("exchange")
    assert s.current_player() == 0
    assert marriage_ids(s) == {"marry-QS", "marry-KS"}
    assert EXCHANGE not in s.legal_actions() and CLOSE in s.legal_actions()
    s = s.apply("close")
    assert s.current_player() == 0 and s.closed_by == 0
    assert marriage_ids(s) == {"marry-QS", "marry-KS"}
    assert EXCHANGE not in s.legal_actions() and CLOSE not in s.legal_actions()
    s = s.apply("marry-QS")
    assert s.marriage_points == (40, 0) and s.points(0) == 51 and s.result is None
    assert [type(e) for e in s.events()] == [Trick, Exchange, Close, Marriage]
    assert s.events()[1:] == (
        Exchange(0, parse_card("KS"), parse_card("9S")),
        Close(0, 1),
        Marriage(0, 3, 40, parse_card("QS"), parse_card("KS")),
    )
    # Seat 1 has no spade (the trump suit led): any card.
    assert s.current_player() == 1
    assert names(s.legal_actions()) == {"JC", "9H", "JH", "QH", "KH", "AH"}
    with pytest.raises(IllegalActionError):
        s.apply("close")


@pytest.mark.parametrize(
    "rules,allowed", [("altmisalti", True), ("pagat66", False), ("santase", False)]
)
def test_rule10_close_on_the_very_first_lead(rules, allowed):
    s = deal(*MARRIAGE, rules=rules)
    assert (CLOSE in s.legal_actions()) is allowed
    if not allowed:
        with pytest.raises(IllegalActionError):
            s.apply("close")
        return
    s = s.apply("close")
    # No trick yet: no marriage even on the lead right after the close.
    assert s.current_player() == 0 and marriage_ids(s) == set()
    assert s.phase() == "strict (stock closed by seat 0)"
    s = s.apply("AD")  # seat 1 holds JD and 9D: must follow suit
    assert names(s.legal_actions()) == {"9D", "JD"}


# -- rules 12, 13: going out, closing ---------------------------------------------

# GOING_OUT: hearts trumps (9H face up). Seat 0 takes 46 card points in three
# tricks (AC+AS, TC+TS, JD+JC), then declares its spade marriage.
GOING_OUT = ("AC TC JD KS QS 9D", "AS TS JC 9C QD JH", "9H")


@pytest.mark.parametrize("rules", PRESETS)
@pytest.mark.parametrize("marry", ["marry-KS", "marry-QS"])
def test_rule12_going_out_by_declaring(rules, marry):
    s = run(deal(*GOING_OUT, rules=rules), "AC AS TC TS JD JC")
    assert s.card_points == (46, 0) and s.result is None
    s = s.apply(marry)  # 46 + 20 = 66: out before the follower plays
    assert summary(s.result) == (0, 3, "went_out")
    assert s.result.totals == (66, 0) and s.result.marriage_points == (20, 0)
    assert s.result.tricks_won == (3, 0) and s.result.closed_by is None
    assert s.is_terminal() and s.current_player() == -1 and s.legal_actions() == []
    assert s.hand(1).bit_count() == 6 and len(s.tricks()) == 3
    assert s.returns() == (3, -3)


@pytest.mark.parametrize("rules", PRESETS)
def test_rule12_65_is_not_out_and_marriage_counts_after_a_trick(rules):
    s = run(deal(*GOING_OUT, rules=rules), "AC AS TC TS JD 9C")  # 44
    s = s.apply("marry-KS")  # 44 + 20 = 64: play goes on
    assert s.result is None and s.current_player() == 1 and s.points(0) == 64
    s = s.apply("QD")  # seat 0 wins KS + QD: 51 + 20 = 71, out after the trick
    assert summary(s.result) == (0, 3, "went_out")
    assert s.result.card_points == (51, 0) and s.result.totals == (71, 0)


@pytest.mark.parametrize("rules", PRESETS)
def test_rules12_13_closer_goes_out_by_declaring_right_after_closing(rules):
    s = run(deal(*GOING_OUT, rules=rules), "AC AS TC TS JD JC close")
    assert s.closed_by == 0 and marriage_ids(s) == {"marry-QS", "marry-KS"}
    s = s.apply("marry-QS")  # 46 + 20 = 66: the closer is out, scored by rule 15
    assert summary(s.result) == (0, 3, "went_out")
    assert s.result.closed_by == 0 and s.result.totals == (66, 0)


# MARRY_OUT: hearts trumps (9H face up); seat 0 closes after trick 1 and
# seat 1 reaches 52 with the K and Q of clubs still in hand.
MARRY_OUT = ("AC 9D KD QD KS QS", "9C KC AD TD AS TS", "9H", "JD QC")
MARRY_OUT_PLAY = "AC 9C close 9D AD AS QS TS KS TD QD"  # seat 1: 11, 25, 39, 52


@pytest.mark.parametrize("rules", PRESETS)
def test_rule13_closer_fails_when_opponent_declares_out_santase(rules):
    s = run(deal(*MARRY_OUT[:3], MARRY_OUT[3], rules=rules), MARRY_OUT_PLAY)
    assert s.current_player() == 1 and s.card_points == (11, 52)
    if rules == "santase":
        s = s.apply("marry-KC")  # 52 + 20 = 72: out before seat 0 plays
        assert summary(s.result) == (1, 3, "failed_close")
        assert s.result.marriage_points == (0, 20) and s.result.totals == (11, 72)
        return
    assert marriage_ids(s) == set()
    s = run(s, "KC KD QC JD")  # seat 1: 60, 65; never 66
    expected = 3 if rules == "pagat66" else 2  # seat 1 had no trick at the close
    assert summary(s.result) == (1, expected, "failed_close")
    assert s.result.card_points == (11, 65) and s.result.totals == (11, 65)


# CLOSER: spades trumps (9S face up). Seat 0 wins trick 1, closes with the
# opponent trickless, loses one trick (JD ruffed by JS: 4 points) and goes out
# at 66 with one trick still to play.
CLOSER = ("AH TH AC TC AD JD", "9H JS 9C JC QC KC", "9S", "TD KH")
CLOSER_PLAY = "AH 9H close JD JS KC AC TH KH AD QC TD JC"  # 11, (4), 26, 40, 54, 66


@pytest.mark.parametrize(
    "rules,game_points",
    [
        ("altmisalti", 2),  # at the end seat 1 has a trick and 4 < 33
        ("pagat66", 2),
        ("santase", 2),
        ({"preset": "altmisalti", "opponent_totals_at": "close"}, 3),  # at the close: no trick
        ({"preset": "pagat66", "opponent_totals_at": "close"}, 3),
    ],
)
def test_rule13_closer_goes_out(rules, game_points):
    s = run(deal(*CLOSER[:3], CLOSER[3], rules=rules), "AH 9H close JD")
    assert names(s.legal_actions()) == {"JS"}  # void in diamonds: must trump
    s = run(s, CLOSER_PLAY.split(None, 4)[4])
    assert summary(s.result) == (0, game_points, "went_out")
    assert s.result.card_points == (66, 4) and s.result.tricks_won == (5, 1)
    assert s.result.closed_by == 0
    assert s.hand(0).bit_count() == s.hand(1).bit_count() == 1
    if game_points == 2:
        assert s.result.totals == (66, 4)


# FAILED: hearts trumps (AH face up, so no 9 to exchange and nothing drawn
# after a close). Small cards only: nobody can reach 66 after the close.
FAILED = ("AC 9S JD QD KC 9D", "9C TS JS QS KD JC", "AH", "QC JH QH TC")
FAILED_RUNS = {
    # seat 0 wins trick 1 and closes; seat 1 had no trick at the close.
    # seat 0: 11, 17; seat 1: 2, 12, 17, 24, 29.
    "A": ("AC 9C close 9S JS TS 9D QS JD KD QD JC KC QC JH", 0, (17, 29), (2, 5)),
    # seat 1 wins trick 1, seat 0 trick 2 and closes: seat 1 had a trick.
    # seat 1: 2, 6, 20; seat 0: 11, 23, 28, 33, 39 (more points, still < 66).
    "B": ("9S JS 9C AC close 9D KD TC KC TS JH QH JC JD QS QD QC", 0, (39, 20), (5, 3)),
    # seat 1 (the dealer) wins trick 1 and closes; seat 0 had no trick.
    # seat 0: 11, 17, 29, 34, 40; seat 1: 2, 6.
    "C": ("9S JS close 9C AC KC JC 9D KD TS JH JD QC QD QS", 1, (40, 6), (5, 2)),
}


@pytest.mark.parametrize(
    "rules,points",
    [
        ("altmisalti", {"A": 2, "B": 2, "C": 2}),
        ("pagat66", {"A": 3, "B": 2, "C": 3}),  # 3 if the opponent had no trick at the close
        ("santase", {"A": 3, "B": 3, "C": 3}),
        ({"preset": "altmisalti", "failed_close_penalty": "2-or-3"}, {"A": 3, "B": 2, "C": 3}),
        ({"preset": "pagat66", "failed_close_penalty": "3"}, {"A": 3, "B": 3, "C": 3}),
    ],
)
@pytest.mark.parametrize("which", ["A", "B", "C"])
def test_rule13_closer_fails_by_running_out(rules, points, which):
    actions, closer, card_points, tricks = FAILED_RUNS[which]
    s = run(deal(*FAILED[:3], FAILED[3], rules=rules), actions)
    assert s.result is not None and s.hand(0) == s.hand(1) == 0
    assert summary(s.result) == (1 - closer, points[which], "failed_close")
    assert s.result.closed_by == closer
    assert s.result.card_points == card_points and s.result.tricks_won == tricks
    # No last-trick 10 in a closed hand.
    assert s.result.totals == card_points
    assert s.stock_left == (7 if which == "B" else 9)  # closed: nothing drawn after


# OPP_OUT: hearts trumps (9H face up); seat 0 closes, seat 1 goes out at 66.
OPP_OUT = ("AC 9D KD QD KS QS", "9C TC AD TD AS TS", "9H", "KC JD 9S JC")
OPP_OUT_RUNS = {
    # seat 0 wins trick 1 and closes at once; seat 1: 11, 25, 39, 52, 66.
    "no-trick": "AC 9C close 9D AD AS QS TS KS TD QD TC KC",
    # seat 1 wins trick 1, seat 0 trick 2 and closes; seat 1: 11, 26, 39, 53, 66.
    "had-trick": "9D AD 9C AC close KS AS TS QS TD KD TC QD",
}


@pytest.mark.parametrize(
    "rules,points",
    [
        ("altmisalti", {"no-trick": 2, "had-trick": 2}),
        ("pagat66", {"no-trick": 3, "had-trick": 2}),
        ("santase", {"no-trick": 3, "had-trick": 3}),
    ],
)
@pytest.mark.parametrize("which", ["no-trick", "had-trick"])
def test_rule13_closer_fails_when_opponent_goes_out(rules, points, which):
    s = run(deal(*OPP_OUT[:3], OPP_OUT[3], rules=rules), OPP_OUT_RUNS[which])
    assert summary(s.result) == (1, points[which], "failed_close")
    assert s.result.closed_by == 0 and s.result.card_points[1] == 66
    assert s.result.card_points[0] == 11
    # The hand ended at once, with cards still in hand.
    left = 1 if which == "no-trick" else 2
    assert s.hand(0).bit_count() == s.hand(1).bit_count() == left


# -- rule 14: running out -------------------------------------------------------

# After PHASE1 (seat 0: 40 points, 6 tricks): tricks 7-12, the result
# (winner, game points, reason), card points, totals, last-trick winner
# (ANY: not asserted), returns.
ANY = object()
# fmt: off
LONG_ENDINGS = {
    # 7: AC+TC seat 0 61; 8: KC ruffed by KS; 9: AD+TD; 10: KD ruffed by 9S, 65;
    # 11: JS+TS; 12: AS+QS: seat 1 55 + 10 for the last trick = 65.
    "tie": ("AC TC KC KS AD TD KD 9S JS TS AS QS", (None, 0, "tie"), (65, 55), (65, 65), 1, (0, 0)),
    # The last trick's 10 turns 61-59 into 61-69; seat 0 has 61 >= 33: 1.
    "flip": ("AC TC TD AD KS 9S TS JS AS QS KD KC", (1, 1, "last_trick"), (61, 59), (61, 69), 1, (-1, 1)),
    "last0": ("TD AD KS 9S TS JS AS QS KD KC TC AC", (0, 1, "last_trick"), (61, 59), (71, 59), 0, (1, -1)),
    # Seat 1 reaches 66 with the last trick (44 + AD + AC): that is going out
    # (rule 12, checked after every trick), so no last-trick 10 is added.
    "out12": ("KC TC KD TD 9S KS TS JS AS QS AD AC", (1, 1, "went_out"), (54, 66), (54, 66), ANY, (-1, 1)),
}
# fmt: on


@pytest.mark.parametrize("rules", PRESETS)
@pytest.mark.parametrize("which", list(LONG_ENDINGS))
def test_rule14_last_trick_ten_and_tie(rules, which):
    actions, expected, card_points, totals, last, returns = LONG_ENDINGS[which]
    s = run(long_hand(rules), PHASE1 + " " + actions)
    assert summary(s.result) == expected
    assert s.result.card_points == card_points and s.result.totals == totals
    assert s.result.closed_by is None
    assert last is ANY or s.result.last_trick_winner == last
    assert s.returns() == returns



@pytest.mark.parametrize(
    "switches,which,says,never",
    [
        ({}, "flip", ["Nobody reached 66", "last trick +10 included"], []),
        ({"last_trick_bonus": 20}, "flip", ["(79 to 61, last trick +20 included)"], ["+10"]),
        ({"last_trick_bonus": 0}, "last0", ["(61 to 59)"], ["last trick", "+10"]),
        ({"going_out": 70}, "flip", ["Nobody reached 70"], ["66"]),
    ],
)
def test_rule14_explain_uses_the_rules_values(switches, which, says, never):
    # HandResult.explain names the going-out figure and the bonus the hand used.
    s = run(long_hand({"preset": "altmisalti", **switches}), PHASE1 + " " + LONG_ENDINGS[which][0])
    text = s.result.explain()
    assert s.result.reason == "last_trick"
    for words in says:
        assert words in text
    for words in never:
        assert words not in text


@pytest.mark.parametrize("going_out", [66, 70])
def test_rule13_explain_failed_close_names_the_going_out_figure(going_out):
    rules = {"preset": "altmisalti", "going_out": going_out}
    s = run(deal(*FAILED[:3], FAILED[3], rules=rules), FAILED_RUNS["A"][0])
    assert s.result.reason == "failed_close"
    assert f"did not reach {going_out}:" in s.result.explain()

# -- rule 15: game points --------------------------------------------------------

# SCORE_A: hearts trumps (JH face up). SCORE_B: hearts trumps (9H face up).
SCORE_A = ("AC TC AD 9S KH QH", "9C JC 9D JD 9H QS", "JH")
SCORE_B = ("JC TH AD TD KH QH", "AC TC KS QS 9D JD", "9H")


@pytest.mark.parametrize(
    "hands,actions,game_points,card_points,marriage_points,tricks,totals",
    [
        # Seat 1 wins no trick: 3.   seat 0: 11, 17 (+40), 27 card points
        (SCORE_A, "AC 9C marry-KH JC TC 9D", 3, (27, 0), (40, 0), (3, 0), (67, 0)),
        # Seat 1 ruffs 9S with 9H: a trick worth 0 points still counts: 2.
        (SCORE_A, "9S 9H 9C AC marry-KH JC TC 9D", 2, (27, 0), (40, 0), (3, 1), (67, 0)),
        # Seat 1: 13 card points and a 20 marriage = 33: 1.
        # seat 0: 13 (QS+TH), 17 (+40), 30 card points
        (SCORE_B, "JC AC marry-QS TH marry-KH 9D AD JD", 1, (30, 13), (40, 20), (3, 1), (70, 33)),
        # 12 + 20 = 32: 2.
        (SCORE_B, "JC TC marry-QS TH marry-KH 9D AD JD", 2, (30, 12), (40, 20), (3, 1), (70, 32)),
        # The same 13 points without the marriage: 2.
        (SCORE_B, "JC AC QS TH marry-KH 9D AD JD", 2, (30, 13), (40, 0), (3, 1), (70, 13)),
    ],
)
@pytest.mark.parametrize("rules", PRESETS)
def test_rule15_game_points(
    rules, hands, actions, game_points, card_points, marriage_points, tricks, totals
):
    s = run(deal(*hands, rules=rules), actions)
    assert summary(s.result) == (0, game_points, "went_out")
    r = s.result
    assert (r.card_points, r.marriage_points, r.tricks_won, r.totals) == (
        card_points,
        marriage_points,
        tricks,
        totals,
    )
    assert s.returns() == (game_points, -game_points)


# -- rules 3, 16: the match ------------------------------------------------------

# Scripted hands by role (non-dealer hand, dealer hand, trump, stock, actions).
SCRIPTS = {
    "nd3": (*SCORE_A, "", "AC 9C marry-KH JC TC 9D"),  # non-dealer scores 3
    "nd1": (*SCORE_B, "", "JC AC marry-QS TH marry-KH 9D AD JD"),  # non-dealer scores 1
    "tie": (LONG["seat0"], LONG["seat1"], LONG["trump"], LONG["stock"],
            PHASE1 + " " + LONG_ENDINGS["tie"][0]),
}  # fmt: skip


def play_match(rules, plan, first_dealer=1):
    """Play scripted hands in a Match; returns (dealers, scores, over flags)."""
    m = Match(rules, seed=0, first_dealer=first_dealer)
    dealers, scores, over = [], [], []
    for kind in plan:
        nd, d, trump, stock, actions = SCRIPTS[kind]
        dealer = m.hand.dealer
        dealers.append(dealer)
        assert m.hand.match_score == tuple(m.score)
        m.hand = deal_from_deck(deck(nd, d, trump, stock), dealer=dealer, rules=m.rules,
                                match_score=m.hand.match_score)  # fmt: skip
        results = [m.apply(a) for a in actions.split()]
        assert results[-1] is not None and all(r is None for r in results[:-1])
        scores.append(tuple(m.score))
        over.append(m.is_over())
    return m, dealers, scores, over


@pytest.mark.parametrize(
    "rules,plan,scores",
    [
        # Deal alternates, also after the tie; 7 ends the match.
        (
            "altmisalti",
            ["nd3", "tie", "nd3", "nd3", "nd1"],
            [(3, 0), (3, 0), (6, 0), (6, 3), (7, 3)],
        ),
        ("pagat66", ["nd3", "tie", "nd3", "nd3", "nd1"], [(3, 0), (3, 0), (6, 0), (6, 3), (7, 3)]),
        (
            "santase",
            ["nd3", "tie", "nd3", "nd3", "nd1", "nd3", "nd3", "nd3", "nd1"],
            [(3, 0), (3, 0), (6, 0), (6, 3), (7, 3), (7, 6), (10, 6), (10, 9), (11, 9)],
        ),
        ({"preset": "altmisalti", "match_target": 3}, ["tie", "nd3"], [(0, 0), (0, 3)]),
    ],
)
def test_rules3_16_match_end_and_alternating_deal(rules, plan, scores):
    m, dealers, got_scores, over = play_match(rules, plan)
    assert dealers == [1 - i % 2 for i in range(len(plan))]  # first dealer 1, then 0, 1, ...
    assert got_scores == scores
    assert over == [False] * (len(plan) - 1) + [True]
    target = make_rules(rules).match_target
    assert max(scores[-1]) >= target > max(scores[-2])
    assert m.winner == (0 if scores[-1][0] >= target else 1)
    assert m.legal_actions() == [] and m.current_player() == -1
    assert [r.reason for r in m.results].count("tie") == plan.count("tie")


def test_match_target_per_preset():
    assert [Match(p, seed=1).target for p in PRESETS] == [7, 7, 11]


def test_tie_carry_over_switch():
    # Not in any preset: a tie carries one game point to the next hand's winner.
    m, _, scores, _ = play_match({"preset": "altmisalti", "tie_rule": "carry-over"}, ["tie", "nd3"])
    assert scores == [(0, 0), (0, 4)]
    assert m.scored == [(0, 0), (0, 4)]


# -- the preset table ------------------------------------------------------------

PRESET_TABLE = {
    "must_beat_in_suit": (False, True, True),
    "marriage_after_close": (False, False, True),
    "close_on_first_lead": (True, False, False),
    "min_stock_to_close": (1, 1, 2),
    "min_stock_to_exchange": (1, 1, 2),
    "failed_close_penalty": ("2", "2-or-3", "3"),
    "opponent_totals_at": ("end", "end", "end"),
    "tie_rule": ("no-points", "no-points", "no-points"),
    "match_target": (7, 7, 11),
}


@pytest.mark.parametrize("switch", list(PRESET_TABLE))
@pytest.mark.parametrize("i,preset", list(enumerate(PRESETS)))
def test_preset_table(i, preset, switch):
    assert getattr(make_rules(preset), switch) == PRESET_TABLE[switch][i]
    assert make_rules(preset).name == preset


def test_default_preset_and_switch_names():
    assert make_rules(None) == make_rules("altmisalti") == RuleConfig()
    assert set(PRESET_TABLE) <= set(SWITCHES)


# -- bad input -----------------------------------------------------------------


ILLEGAL = [
    # (rules, hands, stock, prefix, action, phase word)
    ("altmisalti", MARRIAGE, "", "", "marry-KH", "open"),  # no trick won yet
    ("altmisalti", MARRIAGE, "", "", "9C", "open"),  # not in hand
    ("pagat66", MARRIAGE, "", "", "close", "open"),  # first lead
    ("altmisalti", MARRIAGE, "", "", "exchange", "open"),  # no trick, no 9
    ("altmisalti", MARRIAGE, "", "AD", "marry-KC", "open"),  # follower cannot declare
    (
        "altmisalti",
        (STRICT_SEAT0, "9H KH AS JS JC JD", "9S"),
        "TD 9D",
        "9C JD close QH",
        "AS",
        "closed",
    ),
    (
        "pagat66",
        (STRICT_SEAT0, "9H KH AS JS JC JD", "9S"),
        "TD 9D",
        "9C JD close QH",
        "9H",
        "closed",
    ),
    ("altmisalti", ECM[:3], ECM[3], "AC 9C close", "exchange", "closed"),
    ("pagat66", tuple(LONG.values())[:3], LONG["stock"], PHASE1 + " TD", "KD", "exhausted"),
    ("altmisalti", MARRIAGE, "", "", 34, "open"),  # out of range
]


@pytest.mark.parametrize("rules,hands,stock,prefix,action,phase", ILLEGAL)
def test_illegal_action_error(rules, hands, stock, prefix, action, phase):
    s = run(deal(*hands, stock, rules=rules), prefix)
    action_id = action if isinstance(action, int) else parse_action(action)
    snapshot = copy.copy(s)
    legal = s.legal_actions()
    with pytest.raises(IllegalActionError) as info:
        s.apply(action)
    err = info.value
    msg = str(err)
    assert (action_name(action_id) if action_id < 34 else "34") in msg
    assert phase in msg and s.phase() in msg
    for a in legal:
        assert action_name(a) in msg
    assert err.legal_actions == tuple(legal)
    assert err.action == action_id
    # The state is unchanged and still playable.
    assert s == snapshot and s.legal_actions() == legal
    assert s.apply(legal[0]) is not s


def test_illegal_action_after_the_hand_is_over():
    s = run(deal(*GOING_OUT), "AC AS TC TS JD JC marry-KS")
    snapshot = copy.copy(s)
    with pytest.raises(IllegalActionError, match="QD") as info:
        s.apply("QD")
    assert "over" in str(info.value) and info.value.legal_actions == ()
    assert s == snapshot


def test_unknown_action_name_is_an_error():
    s = deal(*MARRIAGE)
    with pytest.raises(ValueError, match="ZZ"):
        s.apply("ZZ")
    with pytest.raises(ValueError, match="marry-AC"):
        s.apply("marry-AC")


GOOD = DEAL_ORDER.split()


@pytest.mark.parametrize(
    "bad,words",
    [
        (GOOD[:23], "24"),
        (GOOD + ["AS"], "24"),
        ([], "24"),
        (GOOD[:23] + [GOOD[0]], "duplicate"),
        (GOOD[:22] + [GOOD[5], GOOD[5]], "duplicate"),
        (GOOD[:23] + ["XX"], "XX"),
        (GOOD[:23] + ["1H"], "1H"),
        (["AZ"] + GOOD[1:], "AZ"),
        (GOOD[:23] + [24], "24"),
        (GOOD[:23] + [-1], "-1"),
        (" ".join(GOOD[:23]) + " QQ", "QQ"),
    ],
)
def test_malformed_deck_raises_deck_error(bad, words):
    with pytest.raises(DeckError, match=words):
        deal_from_deck(bad)


def test_well_formed_deck_forms():
    a = deal_from_deck(DEAL_ORDER)
    assert deal_from_deck(",".join(GOOD)) == a
    assert deal_from_deck([parse_card(c) for c in GOOD]) == a
    assert deal_from_deck(DEAL_ORDER.lower()) == a


@pytest.mark.parametrize(
    "make,allowed",
    [
        (lambda: make_rules("german66"), PRESETS),
        (lambda: deal_from_deck(DEAL_ORDER, rules="bezique"), PRESETS),
        (lambda: Match("sixtysix"), PRESETS),
        (lambda: make_rules("pagat66", must_beat=True), SWITCHES),
        (lambda: make_rules({"preset": "santase", "marriage_after_closing": True}), SWITCHES),
        (lambda: RuleConfig().replace(trump_rank=1), SWITCHES),
        (lambda: make_rules("altmisalti", failed_close_penalty="4"), ("'2'", "'2-or-3'", "'3'")),
        (lambda: make_rules("altmisalti", opponent_totals_at="start"), ("'end'", "'close'")),
        (lambda: make_rules("altmisalti", tie_rule="split"), ("'no-points'", "'carry-over'")),
    ],
)
def test_unknown_preset_or_switch_names_the_allowed_ones(make, allowed):
    with pytest.raises(RuleConfigError) as info:
        make()
    for name in allowed:
        assert name in str(info.value)
