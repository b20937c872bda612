"""``sixtysix play``: a king or queen played without its marriage, while the marriage could
still be declared, is told first and played when asked for again (issue 70, item 6).

Leading ``KH`` while holding ``QH`` before winning a trick, following with one of them, or
``play KH`` where ``KH`` alone would declare: each gives the pair up. The terminal says what
is given up, as it explains a refused move, and plays the move when it is typed again.
"""

from __future__ import annotations

import dataclasses
import io

from sixtysix_env import deal_from_deck, player_view
from sixtysix_env.game.cards import parse_card
from sixtysix_env.game.rules import make_rules
from sixtysix_env.play.session import GameSession
from sixtysix_env.play.terminal import TerminalGame, marriage_given_up

# You lead, holding 9D | 9S JS | QH KH | AC (clubs are trumps; the stock is open).
MARRIAGE_DECK = "AC KH QH JD QD KD 9S JS 9D AS TS KS TC 9C JC QC KC 9H JH TH AH TD AD QS"
HEARTS, DIAMONDS = 2, 1
TOLD = (
    "Leading KH gives up your marriage in hearts (20): you hold QH too, and leading either "
    "declares it once you have won a trick. Type it again to play it anyway."
)


def transcript(lines: list[str]) -> tuple[GameSession, str]:
    s = GameSession("random", seed=1, deck=MARRIAGE_DECK)
    out = io.StringIO()
    TerminalGame(s, io.StringIO("".join(f"{x}\n" for x in lines)), out, ascii=True).run()
    return s, out.getvalue()


def test_leading_a_king_before_a_trick_is_told_and_played_when_typed_again():
    s, text = transcript(["KH", "quit"])
    assert TOLD in text
    assert "  You lead" not in text  # nothing was played (narrated moves are indented)
    assert s.view().hand >> parse_card("KH") & 1

    s, text = transcript(["KH", "KH", "quit"])
    assert text.count(TOLD) == 1 and text.count("You lead KH.") == 1
    assert not s.view().hand >> parse_card("KH") & 1


def test_another_move_after_the_warning_keeps_the_pair():
    _, text = transcript(["KH", "AC", "quit"])
    assert TOLD in text and "You lead AC." in text
    # Having won the trick, either card of the pair now declares the marriage.
    assert "QH*" in text.split("You lead AC.")[1] and "KH*" in text.split("You lead AC.")[1]


def test_by_numbers_each_card_of_the_pair_is_told_until_one_is_asked_for_twice():
    # 4) QH  5) KH: QH then KH are different moves, so each is told; 5 again plays KH.
    _, text = transcript(["4", "5", "5", "quit"])
    assert "Leading QH gives up your marriage in hearts (20): you hold KH too" in text
    assert TOLD in text
    assert text.count("  You lead") == 1 and "  You lead KH." in text


def test_a_refused_move_between_asks_again():
    _, text = transcript(["KH", "AS", "KH", "quit"])
    assert "You do not hold AS." in text
    assert text.count(TOLD) == 2 and "  You lead" not in text


def test_play_without_declaring_where_the_card_alone_declares_is_told():
    told = ("Playing KH without declaring gives up your marriage in hearts (20): typed alone, "
            "KH declares it. Type it again to play it anyway.")
    # AC wins the first trick (clubs are trumps): the marriage may be declared now.
    _, text = transcript(["AC", "play KH", "KH", "quit"])
    assert told in text
    assert "You declare a marriage in hearts (20): lead KH, show QH." in text
    _, text = transcript(["AC", "play KH", "play KH", "quit"])
    assert text.count(told) == 1 and "You lead KH." in text and "declare a marriage" not in text


def following_view():
    """Seat 0, the dealer, answers seat 1's 9S holding JD QD KD KS TS AS, having won no trick."""
    state = deal_from_deck(MARRIAGE_DECK, dealer=0)
    state = state.apply(parse_card("9S"))
    return player_view(state, 0)


def test_following_with_a_card_of_the_pair_is_told():
    view = following_view()
    assert view.lead_card == parse_card("9S") and view.hand >> parse_card("QD") & 1
    assert marriage_given_up(view, parse_card("KD")) == DIAMONDS
    assert marriage_given_up(view, parse_card("JD")) is None
    assert marriage_given_up(view, parse_card("KS")) is None  # QS is not in the hand
    game = TerminalGame(GameSession("random", seed=1), io.StringIO(), io.StringIO(), ascii=True)
    assert game.marriage_warning(view, parse_card("QD")) == (
        "Playing QD gives up your marriage in diamonds (20): you hold KD too, and leading "
        "either declares it once you have won a trick."
    )


def test_nothing_is_told_where_the_marriage_could_not_be_declared_anyway():
    s = GameSession("random", seed=1, deck=MARRIAGE_DECK)
    view, kh = s.view(), parse_card("KH")
    assert marriage_given_up(view, kh) == HEARTS
    # The last lead before the stock is used up: no later lead declares it (docs/rules.md §8).
    assert marriage_given_up(dataclasses.replace(view, stock_left=1), kh) is None
    assert marriage_given_up(dataclasses.replace(view, closed_by=1), kh) is None
    # ... unless these rules let a marriage be declared after the stock is gone.
    after_close = make_rules("altmisalti", marriage_after_close=True)
    assert marriage_given_up(dataclasses.replace(view, stock_left=1, rules=after_close), kh) == HEARTS


def test_nothing_is_told_where_every_card_parts_a_pair():
    s = GameSession("random", seed=1, deck=MARRIAGE_DECK)
    pairs = sum(1 << parse_card(c) for c in ("QH", "KH", "QD", "KD"))
    view = dataclasses.replace(s.view(), hand=pairs, legal_mask=pairs)
    assert marriage_given_up(view, parse_card("KH")) is None
