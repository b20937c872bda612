"""``sixtysix play``: the terminal game driven through its input and output streams."""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys

from sixtysix_env.game.rules import make_rules
from sixtysix_env.play import terminal
from sixtysix_env.play.session import GameSession, explain_result
from sixtysix_env.play.terminal import TerminalGame

MARRIAGE_DECK = "AC KH QH JD QD KD 9S JS 9D AS TS KS TC 9C JC QC KC 9H JH TH AH TD AD QS"


def transcript(session: GameSession, lines: list[str], **kw) -> tuple[int, str]:
    out = io.StringIO()
    rc = TerminalGame(session, io.StringIO("".join(line + "\n" for line in lines)), out, **kw).run()
    return rc, out.getvalue()


class Player(io.TextIOBase):
    """An input stream that types a script, then the first legal move it is shown."""

    def __init__(self, game_ref: list, script: list[str] = ()) -> None:
        self.game_ref = game_ref
        self.script = list(script)
        self.lines = 0

    def readline(self, size: int = -1) -> str:
        self.lines += 1
        assert self.lines < 2000, "the match does not end"
        if self.script:
            return self.script.pop(0) + "\n"
        game = self.game_ref[0]
        s = game.session
        if s.is_hand_over():
            return "\n"
        view = s.view()
        nums = game.numbered(view)
        first = next(i for i, a in enumerate(nums, 1) if view.legal_mask >> a & 1)
        return f"{first}\n"


def test_a_scripted_match_to_the_end():
    out = io.StringIO()
    ref: list = []
    game = TerminalGame(GameSession("random", seed=4), Player(ref, ["help"]), out)
    ref.append(game)
    assert game.run() == 0
    text = out.getvalue()
    s = game.session
    assert s.is_over()
    assert "How to play" in text
    assert text.count("is over ===") == len(s.history) >= 2
    you, comp = s.score
    if s.winner == 0:
        assert f"You win the match {you} - {comp}!" in text
    else:
        assert f"The computer wins the match {comp} - {you}." in text
    # Every hand's end explains the scoring, and the table shows what it must.
    for res, _ in s.history:
        assert explain_result(res) in text
    for needle in ("Trumps:", "Stock:", "under it, face up:", "Tricks won: you", "Your points:",
                   "Your hand:", "match: you", "game point"):
        assert needle in text


def test_marriage_exchange_and_table_on_a_fixed_deck():
    s = GameSession("random", seed=1, deck=MARRIAGE_DECK)
    rc, text = transcript(s, ["AC", "exchange", "KH"], ascii=True)
    assert rc == 0
    first, after_trick = text.split("You lead AC.", 1)
    assert "Trumps: clubs" in first and "face up: TC" in first and "Stock: 12 cards" in first
    # Sorted by suit, trumps last: 9D | 9S JS | QH KH | AC
    assert "1) 9D" in first and "6) AC  (trumps)" in first
    assert "7) close the stock" in first and "exchange" not in first.split("Your hand:")[1]
    assert "You win the trick" in after_trick
    assert "You draw 9C." in after_trick  # the top of the stock
    table2 = after_trick.split("Your move>")[0]
    assert "QH*" in table2 and "KH*" in table2
    assert "* marriage: leading the king or queen of hearts declares 20" in table2
    assert "exchange your 9C for the TC" in table2
    assert "You exchange the 9 of trumps for TC." in text
    assert "You declare a marriage in hearts (20): lead KH, show QH." in text
    assert "Your points: " in text.split("You declare a marriage")[1]
    assert "in marriages" in text.split("You declare a marriage")[1]
    assert text.rstrip().endswith("Goodbye. The match stood at you 0 - 0 the computer.")


def test_illegal_input_is_explained_and_asked_again():
    s = GameSession("random", seed=2, deck=MARRIAGE_DECK)
    before = s.view()
    rc, text = transcript(s, ["ZZ", "AS", "42", "exchange", "marry KH", "", "quit"], ascii=True)
    assert rc == 0
    assert "I do not understand 'ZZ'" in text
    assert "You do not hold AS." in text
    assert "Choose a number from 1 to 7." in text
    assert "you do not hold the 9 of trumps (9C)" in text
    assert "You must win a trick before you can declare a marriage." in text
    assert text.count("Try again") == 5
    assert text.count("Your move>") == 7  # asked again after each, the empty line too
    assert s.view() == before  # nothing was played


def test_end_of_input_quits_cleanly():
    for lines in ([], ["1"], ["AC", "KH"]):
        rc, text = transcript(GameSession("random", seed=5, deck=MARRIAGE_DECK), lines)
        assert rc == 0
        assert "Goodbye" in text


def test_end_of_input_at_the_end_of_a_hand():
    out = io.StringIO()
    ref: list = []

    class StopAfterHand(Player):
        def readline(self, size=-1):
            if ref[0].session.is_hand_over():
                return ""
            return super().readline(size)

    game = TerminalGame(GameSession("random", seed=8), StopAfterHand(ref), out)
    ref.append(game)
    assert game.run() == 0
    assert "Hand 1 is over" in out.getvalue() and "Goodbye" in out.getvalue()


def test_symbols_and_numbers_as_input():
    s = GameSession("random", seed=1, deck=MARRIAGE_DECK)
    _, text = transcript(s, ["6", "K\u2665"])
    assert "You lead A\u2663." in text
    assert "You declare a marriage in hearts (20): lead K\u2665, show Q\u2665." in text


def test_run_with_arguments_and_bad_opponent(capsys):
    parser = argparse.ArgumentParser()
    terminal.add_arguments(parser)
    args = parser.parse_args(["--opponent", "random", "--seed", "3", "--rules", "santase"])
    out = io.StringIO()
    assert terminal.run(args, io.StringIO("quit\n"), out) == 0
    assert "rules: santase" in out.getvalue() and "first to 11" in out.getvalue()

    bad = parser.parse_args(["--opponent", "no-such-agent"])
    assert terminal.run(bad, io.StringIO(""), io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.startswith("sixtysix play:") and "no-such-agent" in err


def test_command_line_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "sixtysix_env.cli", "play", "--opponent", "random", "--seed", "1",
         "--ascii"],
        input="help\nquit\n",
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Your hand:" in proc.stdout and "Goodbye" in proc.stdout


def test_each_hand_is_announced_before_the_computer_leads():
    out = io.StringIO()
    ref: list = []
    game = TerminalGame(GameSession("random", seed=4), Player(ref), out)
    ref.append(game)
    assert game.run() == 0
    text = out.getvalue()
    hands = len(game.session.history)
    for n in range(1, hands + 1):
        head = text.index(f"=== Hand {n}: ")
        # Nothing of hand n is told before its heading: its first table comes after it.
        assert text.index(f"--- Hand {n} |") > head
        if n > 1:
            assert head > text.index(f"=== Hand {n - 1} is over ===")
    # The computer's opening lead is told after the heading, never above it.
    assert "leads" not in text[: text.index("=== Hand 1: ")]
    assert "The computer leads" in text


def test_card_counts_are_in_words_a_person_would_use():
    # Seed chosen so that the computer is down to one card at some turn of the match.
    out = io.StringIO()
    ref: list = []
    game = TerminalGame(GameSession("random", seed=4), Player(ref), out)
    ref.append(game)
    game.run()
    text = out.getvalue()
    assert "holds 1 cards" not in text
    # Its last card is known once the stock is used up: "holds: X", no count of one.
    assert "The computer holds 1 card." in text or re.search(r"The computer holds: \S+\.\n", text)


def test_the_computers_known_cards_are_called_all_it_holds_when_they_are():
    """"The computer holds 5 cards including ..." lists some of them; when the known cards
    are its whole hand (the stock used up, or every card shown), the line says so."""
    out = io.StringIO()
    ref: list = []
    game = TerminalGame(GameSession("random", seed=5), Player(ref), out, ascii=True)
    ref.append(game)
    game.run()
    text = out.getvalue()
    partial = re.findall(r"The computer holds (\d+) cards? including ([^.]*)\.", text)
    assert partial  # known cards among unknown ones (a marriage shown, an exchange)
    assert all(len(cards.split()) < int(n) for n, cards in partial)
    whole = re.findall(r"The computer holds: ([^.]*)\.", text)
    assert whole and any(len(cards.split()) > 1 for cards in whole)


def test_help_follows_the_rules():
    # The failed-close penalty, the going-out figure, the strict-phase duty
    # and the match target come from the rules, not from the default preset.
    def help_for(*args, **kw) -> str:
        return " ".join(terminal.help_text(make_rules(*args, **kw)).split())

    alt = help_for("altmisalti")
    assert "the computer scores 2 game points." in alt and "reach 66," in alt
    assert "follow suit, or else play a trump" in alt and "first to 7 game points" in alt
    santase = help_for("santase")
    assert "the computer scores 3 game points." in santase
    assert "follow suit (with a higher card if you have one), or else" in santase
    assert "first to 11 game points" in santase
    pagat = help_for("pagat66")
    assert "3 game points if it had won no trick when you closed, else 2" in pagat
    custom = help_for("altmisalti", going_out=70)
    assert "The first to 70 points" in custom and "reach 70," in custom
