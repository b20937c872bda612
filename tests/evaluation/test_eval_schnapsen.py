"""``sixtysix eval`` under the 20-card presets: the evaluation deals the rules' deck."""

from __future__ import annotations

import pytest

from sixtysix_env.evaluation import evaluate
from sixtysix_env.evaluation.play import deal_deck
from sixtysix_env.game.rules import make_rules


@pytest.mark.slow  # the package's bots import scikit-learn and Flask (2 s)
@pytest.mark.parametrize("rules", ["schnapsen", "schnapsen-vu"])
def test_eval_plays_the_20_card_presets(rules):
    res = evaluate(["random", "heuristic"], deals=3, rules=rules, seed=1)
    assert res.pairs[0].hands == 6


def test_the_24_card_decks_are_unchanged():
    for preset in ("altmisalti", "santase"):
        assert deal_deck(4, 7, make_rules(preset)) == deal_deck(4, 7)
    assert len(deal_deck(4, 7, make_rules("schnapsen-vu"))) == 20


def _need_schnapsen():
    return pytest.importorskip("schnapsen.game", reason="the [schnapsen] extra is not installed")


@pytest.mark.slow  # the package's bots import scikit-learn and Flask (2 s)
def test_the_referee_schnapsen_plays_paired_deals_in_their_engine():
    _need_schnapsen()
    run = [evaluate(["random", "schnapsen:rand"], deals=3, rules="schnapsen-vu", seed=5,
                    referee="schnapsen") for _ in (0, 1)]
    first, again = (r.pairs[0] for r in run)
    assert run[0].referee == "schnapsen" and first.hands == 6
    assert first.hands_won_a + first.hands_won_b == 6  # their engine has no tie
    assert (first.gp_per_hand, first.gp_ci95, first.hands_won_a) == (
        again.gp_per_hand, again.gp_ci95, again.hands_won_a)
    assert run[0].timing["random"]["decisions"] > 0
    assert "in the schnapsen package's engine" in run[0].table()


def test_the_referee_plays_the_evaluations_deals():
    """The deal and the moves are the same in both engines: two agents that do not look at
    the cards (the same seeded choices) give the same game points in each."""
    _need_schnapsen()
    from sixtysix_env.evaluation.play import play_paired_deal
    from sixtysix_env.evaluation.schnapsen import play_paired_deal_schnapsen

    rules = make_rules("schnapsen-vu")
    for index in range(6):
        ours = play_paired_deal(_First(), _First(), 2, index, rules)
        theirs = play_paired_deal_schnapsen(_First(), _First(), 2, index, rules)
        assert ours.gp == theirs.gp


class _First:
    """Plays its lowest legal action id (a deterministic agent that reads no cards)."""

    name = "first"

    def act(self, view, rng):
        return view.legal_actions()[0]


@pytest.mark.parametrize("kw, said", [
    ({"rules": "altmisalti", "deals": 2}, "'schnapsen-vu'"),
    ({"rules": "schnapsen-vu", "matches": 2}, "--deals or --hands"),
    ({"rules": "schnapsen-vu", "deals": 2, "referee": "pagat"}, "allowed: sixtysix, schnapsen"),
])
def test_a_referee_it_cannot_use_is_refused(kw, said):
    _need_schnapsen()
    kw = {"referee": "schnapsen", **kw}
    with pytest.raises(ValueError) as e:
        evaluate(["random", "schnapsen:rand"], **kw)
    assert said in str(e.value)


@pytest.mark.slow  # the package's bots import scikit-learn and Flask (2 s)
def test_the_command_line_referee(capsys):
    _need_schnapsen()
    from sixtysix_env.cli import main

    code = main(["eval", "random", "schnapsen:bully", "--rules", "schnapsen-vu",
                 "--referee", "schnapsen", "--deals", "2", "--no-progress", "--plain"])
    out = capsys.readouterr().out
    assert code == 0 and "schnapsen:bully" in out and "gp/hand (A)" in out


def test_a_users_bot_with_an_illegal_move_stops_the_run_naming_it(monkeypatch):
    sg = _need_schnapsen()
    import sys

    from sixtysix_env.agents.schnapsen import SchnapsenBridgeError, their_card

    class Cheat(sg.Bot):
        def get_move(self, perspective, leader_move):
            return sg.RegularMove(their_card(5))  # the ace of clubs, held or not

    mod = type(sys)("cheat_bots_for_test")
    mod.Cheat = Cheat
    monkeypatch.setitem(sys.modules, "cheat_bots_for_test", mod)
    for referee in ("schnapsen", "sixtysix"):
        with pytest.raises(SchnapsenBridgeError) as e:
            evaluate(["random", "schnapsen:cheat_bots_for_test:Cheat"], deals=4,
                     rules="schnapsen-vu", referee=referee)
        text = str(e.value)
        assert "schnapsen:cheat_bots_for_test:Cheat" in text and "illegal move" in text
        assert "legal moves: " in text
        assert e.value.partial_result.complete is False
