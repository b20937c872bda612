"""Issue 14: one name per meaning for the close options, the old names still working with a
warning; the engine's state layout read by nobody else."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from sixtysix_env.agents import ExpertAgent, HeuristicAgent, make_agent
from sixtysix_env.engine import new_hand
from sixtysix_env.view import player_view

PACKAGE = Path(__file__).resolve().parent.parent / "sixtysix_env"


def test_heuristic_close_option_has_its_own_name_and_the_old_one_warns():
    assert HeuristicAgent().likely_points_per_trick == 4
    assert HeuristicAgent(likely_points_per_trick=7).likely_points_per_trick == 7
    with pytest.warns(DeprecationWarning, match="likely_points_per_trick"):
        old = HeuristicAgent(close_margin=7)
    assert old.likely_points_per_trick == 7
    assert old.close_margin == 7


def test_expert_close_option_has_its_own_name_and_the_old_one_warns():
    assert ExpertAgent().close_penalty == 0.0
    with pytest.warns(DeprecationWarning, match="close_penalty"):
        bot = make_agent("expert:close_margin=0.25,samples=2")
    assert bot.close_penalty == 0.25
    assert make_agent("expert:close_penalty=0.5").close_penalty == 0.5


def test_old_and_new_option_names_play_the_same_moves():
    with pytest.warns(DeprecationWarning):
        old = HeuristicAgent(close_margin=0)
    new = HeuristicAgent(likely_points_per_trick=0)
    for seed in range(20):
        s = new_hand(seed)
        while not s.is_terminal():
            v = player_view(s, s.current_player())
            a = new.act(v, random.Random(0))
            assert old.act(v, random.Random(0)) == a
            s = s.apply(a)


def _indexes_state_v(tree: ast.AST) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "v"
    ]


def test_only_the_engine_reads_the_state_layout():
    layout = {"HAND", "CARD_PTS", "MARRIAGE_PTS", "TRICKS", "PLAYED", "KNOWN", "EXCLUDED",
              "STOCK_POS", "TRUMP_CARD", "TRUMP_SUIT", "DEALER", "LEADER", "TO_MOVE", "LEAD",
              "CLOSED_BY", "TRICK_NO", "JUST_CLOSED", "_NV"}
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "engine.py" and path.parent == PACKAGE:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("engine"):
                names = {a.name for a in node.names} & layout
                if names:
                    offenders.append(f"{path.name}:{node.lineno} imports {sorted(names)}")
        offenders += [f"{path.name}:{n} indexes .v" for n in _indexes_state_v(tree)]
    assert not offenders, offenders


def test_every_refusal_code_of_the_rules_has_words_for_people():
    from sixtysix_env.play.session import _REFUSAL_WORDS
    from sixtysix_env.rules import REFUSALS

    assert len(set(REFUSALS)) == len(REFUSALS)
    assert set(REFUSALS) == set(_REFUSAL_WORDS)
