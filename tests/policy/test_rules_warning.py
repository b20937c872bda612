"""A policy that plays under rules it was not trained for says so once, and plays on."""

from __future__ import annotations

import random
import warnings

import pytest

from sixtysix_env.agents import make_agent
from sixtysix_env.evaluation import evaluate
from sixtysix_env.game.engine import new_hand
from sixtysix_env.game.rules import make_rules
from sixtysix_env.game.view import player_view
from sixtysix_env.policy.agent import RulesMismatchWarning, rules_difference


def _play_some(agent, rules: str, hands: int = 3) -> None:
    rng = random.Random(0)
    for seed in range(hands):
        s = new_hand(seed=seed, dealer=seed % 2, rules=rules)
        while not s.is_terminal():
            s = s.apply(agent.act(player_view(s, s.current_player()), rng))


def _mismatch(caught) -> list:
    return [w for w in caught if issubclass(w.category, RulesMismatchWarning)]


def test_a_policy_under_other_rules_warns_once_and_names_the_switches():
    agent = make_agent("sixtysix-ppo-v4")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _play_some(agent, "santase")
    found = _mismatch(caught)
    assert len(found) == 1
    text = str(found[0].message)
    assert "'sixtysix-ppo-v4' was trained for the altmisalti rules and plays santase" in text
    assert "must_beat_in_suit" in text and "marriage_after_close" in text


def test_a_policy_under_its_own_rules_is_silent():
    agent = make_agent("sixtysix-ppo-v4")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _play_some(agent, "altmisalti")
    assert not _mismatch(caught)
    assert agent.check_rules(make_rules("altmisalti"))
    assert not agent.check_rules(make_rules("pagat66"), warn=False)


def test_a_file_that_records_no_rules_is_taken_as_it_is():
    assert rules_difference({}, make_rules("santase")) is None
    assert rules_difference({"rule_preset": "santase"}, make_rules("santase")) == []
    assert rules_difference({"rule_preset": "altmisalti"}, make_rules("santase")) == ["preset"]


def test_an_evaluation_warns_once_for_its_whole_run():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate(["sixtysix-ppo-v4", "random"], deals=4, rules="pagat66", workers=1, seed=3)
    found = _mismatch(caught)
    assert len(found) == 1 and "plays pagat66" in str(found[0].message)


@pytest.mark.parametrize("rules", ["santase", "pagat66"])
def test_the_warning_changes_no_move(rules):
    quiet, loud = make_agent("sixtysix-ppo-v4"), make_agent("sixtysix-ppo-v4")
    quiet.check_rules(make_rules(rules), warn=False)
    s = new_hand(seed=5, dealer=0, rules=rules)
    view = player_view(s, s.current_player())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert quiet.act(view, random.Random(1)) == loud.act(view, random.Random(1))
