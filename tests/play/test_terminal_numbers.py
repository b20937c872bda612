"""``sixtysix play``: only the cards that may be played get a number.

After the stock is closed or used up, a follower must follow suit (or trump); the cards
it may not play are still shown, without a number, and a number names a playable card.
"""

from __future__ import annotations

import io
import re

import pytest

from sixtysix_env.game.cards import card_code
from sixtysix_env.play.session import GameSession, moves
from sixtysix_env.play.terminal import TerminalGame

MARRIAGE_DECK = "AC KH QH JD QD KD 9S JS 9D AS TS KS TC 9C JC QC KC 9H JH TH AH TD AD QS"


def transcript(session: GameSession, lines: list[str]) -> str:
    out = io.StringIO()
    TerminalGame(session, io.StringIO("".join(f"{x}\n" for x in lines)), out, ascii=True).run()
    return out.getvalue()


def tables(text: str) -> list[str]:
    """Each table shown, from its heading to the prompt."""
    return [t.split("Your move>")[0] for t in text.split("--- Hand ")[1:]]


def test_after_a_close_the_follower_numbers_only_the_cards_it_may_play():
    # Win the first trick with the ace of trumps, close, lead 9D; the heuristic takes it
    # with QD and leads KD: without diamonds, only the trump 9C may be played.
    s = GameSession("heuristic", seed=1, deck=MARRIAGE_DECK)
    text = transcript(s, ["AC", "close", "9D", "2", "1", "quit"])
    following = next(t for t in tables(text) if "the computer led KD" in t)
    hand = following.split("Your hand:")[1]
    assert re.findall(r"(\d+)\) (\w+)", hand) == [("1", "9C")]
    for card in ("9S", "JS", "QH", "KH"):  # shown, without a number
        assert re.search(rf"(?<!\) ){card}\b", hand) and f") {card}" not in hand
    assert "You may play only: 9C" in hand
    # A number beyond the playable cards is refused, naming the range.
    assert "Choose a number from 1 to 1." in text
    assert "You play 9C." in text
    # Before the close, leading, every card had a number.
    leading = tables(text)[0].split("Your hand:")[1]
    assert [c for _, c in re.findall(r"(\d+)\) (\w+)", leading)][:6] == [
        "9D", "9S", "JS", "QH", "KH", "AC"]


class Checker(io.TextIOBase):
    """Plays a number chosen by the seed each turn, and checks each table against the
    legal moves: the numbers name exactly the cards that may be played."""

    def __init__(self, ref: list, out: io.StringIO) -> None:
        self.ref, self.out, self.turns, self.strict_follows = ref, out, 0, 0
        self.seen = 0

    def readline(self, size: int = -1) -> str:
        game: TerminalGame = self.ref[0]
        s = game.session
        self.turns += 1
        assert self.turns < 3000, "the match does not end"
        if s.is_hand_over():
            return "\n"
        view = s.view()
        table = self.out.getvalue()[self.seen:]
        self.seen = len(self.out.getvalue())
        if "Your hand:" not in table:  # a marriage the move gives up was told: confirm it
            assert "Type it again to play it anyway." in table
            return self.last
        hand = table.rsplit("Your hand:", 1)[1]
        numbered = {c for _, c in re.findall(r"(\d+)\) ([2-9TJQKA][CDHS])\b", hand)}
        legal = {card_code(m.card) for m in moves(view) if m.card is not None}
        assert numbered == legal, (hand, legal)
        assert len(game.numbered(view)) == len(moves(view))
        if view.is_strict and view.lead_card is not None and len(legal) < view.hand.bit_count():
            self.strict_follows += 1
        n = len(game.numbered(view))
        self.last = f"{1 + (self.turns * 7) % n}\n"
        return self.last


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_every_table_numbers_exactly_the_playable_cards(seed):
    out = io.StringIO()
    ref: list = []
    checker = Checker(ref, out)
    game = TerminalGame(GameSession("heuristic", seed=seed), checker, out, ascii=True)
    ref.append(game)
    assert game.run() == 0
    assert game.session.is_over()
    assert checker.strict_follows > 0  # the case the issue is about came up

