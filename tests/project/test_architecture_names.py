"""One name per meaning for the close options; the engine's state layout
read by nobody else."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from _source import parsed

from sixtysix_env.agents import ExpertAgent, HeuristicAgent, make_agent

PACKAGE = Path(__file__).resolve().parents[2] / "sixtysix_env"


def test_the_close_options_have_one_name_each():
    """The old shared name ``close_margin`` (card points for one agent, game points for
    the other) is gone: each option has its own name and unit."""
    assert HeuristicAgent().likely_points_per_trick == 4
    assert HeuristicAgent(likely_points_per_trick=7).likely_points_per_trick == 7
    assert ExpertAgent().close_penalty == 0.0
    assert make_agent("expert:close_penalty=0.5").close_penalty == 0.5
    with pytest.raises(TypeError):
        HeuristicAgent(close_margin=7)
    with pytest.raises(ValueError, match="no option 'close_margin'"):
        make_agent("expert:close_margin=0.25")


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
        if path.name == "engine.py" and path.parent == PACKAGE / "game":
            continue
        tree = parsed(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("engine"):
                names = {a.name for a in node.names} & layout
                if names:
                    offenders.append(f"{path.name}:{node.lineno} imports {sorted(names)}")
        offenders += [f"{path.name}:{n} indexes .v" for n in _indexes_state_v(tree)]
    assert not offenders, offenders


def test_every_refusal_code_of_the_rules_has_words_for_people():
    from sixtysix_env.game.rules import REFUSALS
    from sixtysix_env.play.session import REFUSAL_WORDS

    assert len(set(REFUSALS)) == len(REFUSALS)
    assert set(REFUSALS) == set(REFUSAL_WORDS)
