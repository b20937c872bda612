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


def _steps_ending_a_hand_with_stock_left(seeds=range(12)):
    """Each step whose trick ended a hand while the stock still had cards to draw (the
    person plays the first legal move)."""
    from sixtysix_env.play.session import moves

    found = []
    for seed in seeds:
        s = GameSession("random", seed=seed)
        steps = s.start()
        while not s.is_over():
            found += [st for st in steps if st.after.result is not None and st.before.stock_left]
            steps = s.next_hand() if s.is_hand_over() else s.act(moves(s.view())[0].action)
    return found


def test_the_log_tells_no_draw_after_the_trick_that_ended_the_hand():
    """A trick that takes a seat past the going-out mark ends the hand: the step's text (the
    page's log, and the terminal's narration) tells the trick and the result, no draw."""
    from sixtysix_env.play.webjson import step_json

    ending = _steps_ending_a_hand_with_stock_left()
    assert ending  # the hands these seeds deal end so, several times
    for st in ending:
        text = step_json(st)["text"]
        assert "wins the trick" in text or "win the trick" in text
        assert "draw" not in text, text
