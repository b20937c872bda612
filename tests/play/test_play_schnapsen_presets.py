"""The terminal game under the 20-card presets: its help and its words follow the rules."""

from __future__ import annotations

import io
import re

import pytest

from sixtysix_env.game.rules import make_rules
from sixtysix_env.play import terminal
from sixtysix_env.play.session import GameSession
from sixtysix_env.play.terminal import TerminalGame


def _help(name: str) -> str:
    return " ".join(terminal.help_text(make_rules(name)).split())


def test_help_follows_the_20_card_rules():
    std, vu = _help("schnapsen"), _help("schnapsen-vu")
    for text in (std, vu):
        assert "20 cards: J Q K 10 A" in text and "9=0" not in text
        assert "swap the jack of trumps" in text and "having won a trick" not in text
        assert "the last trick's winner, for 1 game point" in text
    assert "Close:" in std and "Close:" not in vu and "used up or closed" not in vu
    assert "lead the king or queen of a suit" in std and "lead the king of a suit" in vu
    assert "it counts when you next win a trick" in vu
    old = _help("altmisalti")  # the 24-card presets keep their help
    assert "24 cards: 9 J Q K 10 A" in old and "swap the 9 of trumps" in old
    assert "Close:" in old and "last trick's winner" not in old


class _FirstLegal(io.TextIOBase):
    """Types the first legal move shown (``help`` first)."""

    def __init__(self, ref: list) -> None:
        self.ref, self.lines = ref, 0

    def readline(self, size: int = -1) -> str:
        self.lines += 1
        assert self.lines < 3000, "the match does not end"
        if self.lines == 1:
            return "help\n"
        game = self.ref[0]
        if game.session.is_hand_over():
            return "\n"
        view = game.session.view()
        nums = game.numbered(view)
        return f"{next(i for i, a in enumerate(nums, 1) if view.legal_mask >> a & 1)}\n"


@pytest.mark.parametrize("rules", ["schnapsen", "schnapsen-vu"])
def test_a_match_under_the_20_card_rules_names_the_jack(rules):
    out = io.StringIO()
    ref: list = []
    game = TerminalGame(GameSession("random", rules=rules, seed=2), _FirstLegal(ref), out,
                        ascii=True)
    ref.append(game)
    assert game.run() == 0
    text = out.getvalue()
    assert game.session.is_over() and "Schnapsen, 20 cards" in text
    assert text.startswith(f"Schnapsen against {game.session.opponent_name} (rules: {rules};")
    offers = re.findall(r"exchange your (\S+) for", text)
    assert offers and all(o.startswith("J") for o in offers)
