"""The web page's log: it tells the computer's lead, which is no event yet."""

from __future__ import annotations

from sixtysix_env.game.cards import card_code
from sixtysix_env.play.session import GameSession
from sixtysix_env.play.webjson import game_json


def test_the_pages_json_carries_the_computers_lead_for_its_log():
    """The web page's log tells a lead waiting for its answer from ``hand.table``
    (static/table.js, renderLog; tests/web/test_web_browser.py sees it in a browser):
    when the computer leads a hand, that is all there is to tell."""
    s = GameSession("random", seed=1)
    steps = s.start()
    hand = game_json("g", s, steps)["hand"]
    assert hand["events"] == [] and hand["to_move"] == "you"
    assert hand["table"] == {"card": card_code(s.view().lead_card), "by": "computer"}
    assert [st["kind"] for st in game_json("g", s, steps)["steps"]] == ["lead"]
