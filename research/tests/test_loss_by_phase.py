"""research/loss_by_phase.py: hybrids that play the agent's own games until the helper differs."""

from __future__ import annotations

import pytest


def test_a_helper_that_agrees_changes_nothing():
    """With the agent as its own helper every hybrid plays the agent's games exactly: the
    opponent's and the players' random streams are the same for all of them."""
    from research.loss_by_phase import PHASES, measure

    r = measure("sixtysix-ppo", 4, seed=4, helper="sixtysix-ppo", opponent="random", phases=PHASES)
    for phase in PHASES:
        assert r[phase]["gp"] == r["agent_gp"]
        assert r[phase]["gain"] == (0.0, 0.0, 0.0)
        assert r[phase]["changed_share"] == 0 and r[phase]["deals_changed"] == 0
    # the three parts of the hand split the agent's decisions between them
    parts = sum(r[p]["decisions_per_hand"] for p in ("open-lead", "open-follow", "strict"))
    assert parts == pytest.approx(r["decisions_per_hand"])
    halves = r["closed"]["decisions_per_hand"] + r["exhausted"]["decisions_per_hand"]
    assert halves == pytest.approx(r["strict"]["decisions_per_hand"])
    assert r["all"]["decisions_per_hand"] == pytest.approx(r["decisions_per_hand"])
    assert all(r[p]["decisions_per_hand"] > 0 for p in PHASES), r


def test_the_helper_everywhere_is_the_helper_itself():
    """The heuristic ignores its random stream, so 'all' with it as the helper plays the
    heuristic's own games: the same figure as the heuristic measured as the agent."""
    from research.loss_by_phase import measure

    hybrid = measure("random", 8, seed=2, helper="heuristic", opponent="heuristic", phases=("all",))
    itself = measure("heuristic", 8, seed=2, opponent="heuristic", phases=())
    assert hybrid["all"]["gp"] == itself["agent_gp"]
    assert hybrid["all"]["changed_share"] > 0
    assert hybrid["all"]["gain"][0] == pytest.approx(hybrid["all"]["gp"][0] - hybrid["agent_gp"][0])


def test_bad_arguments_name_what_is_allowed():
    from research.loss_by_phase import measure

    with pytest.raises(ValueError, match="unknown phase 'endgame'; allowed: open-lead"):
        measure("random", 4, seed=1, opponent="random", phases=("endgame",))
    with pytest.raises(ValueError, match="deals must be at least 2, got 1"):
        measure("random", 1, seed=1, opponent="random")


@pytest.mark.slow
def test_worker_processes_give_the_same_figures(capsys):
    from research.loss_by_phase import main, measure

    kw = dict(helper="heuristic", opponent="heuristic", phases=("strict", "open-lead"))
    assert measure("random", 6, seed=9, workers=2, **kw) == measure("random", 6, seed=9, **kw)
    main(["random", "--helper", "heuristic", "--opponent", "heuristic", "--deals", "3"])
    out = capsys.readouterr().out
    assert out.startswith("random vs heuristic: ") and "strict" in out


class _Always:
    """A helper that always answers the same move."""

    def __init__(self, action: int):
        self.action = action

    def act(self, view, rng):
        return self.action


def _view_with(action: int):
    """A seeded random-play position where ``action`` is legal, with another legal move."""
    import random

    from sixtysix_env.game.engine import new_hand
    from sixtysix_env.game.rules import make_rules
    from sixtysix_env.game.view import player_view

    rng = random.Random(0)
    for _ in range(500):
        state = new_hand(rng, 0, make_rules("altmisalti"))
        while state.result is None:
            view = player_view(state, state.current_player())
            legal = view.legal_actions()
            if action in legal and len(legal) > 1:
                return view, next(a for a in legal if a != action)
            state = state.apply(rng.choice(legal))
    raise AssertionError(f"no position with action {action} legal")


def test_a_kind_of_choice_takes_the_helpers_move_only_where_one_of_them_makes_it():
    from research.loss_by_phase import _choose
    from sixtysix_env.game.actions import CLOSE

    view, other = _view_with(CLOSE)
    # the helper closes: closing is played, whatever the agent chose
    assert _choose("close", view, other, _Always(CLOSE), None) == (CLOSE, True)
    # the agent closes and the helper would not: the helper's move
    assert _choose("close", view, CLOSE, _Always(other), None) == (other, True)
    # neither closes: the agent's own move, though the helper would play another card
    third = next((a for a in view.legal_actions() if a not in (CLOSE, other)), other)
    assert _choose("close", view, other, _Always(third), None) == (other, True)
    # a part of the hand by position: the helper's move wherever the position is in it
    phase = "strict" if view.is_strict else "open-lead" if view.lead_card is None else "open-follow"
    assert _choose(phase, view, other, _Always(CLOSE), None) == (CLOSE, True)
    assert _choose("exhausted", view, other, _Always(CLOSE), None) == (other, False)
