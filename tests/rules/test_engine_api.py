"""Names, parsing, errors, rendering and scripts of the core package."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from sixtysix_env import (
    NUM_ACTIONS,
    IllegalActionError,
    RuleConfig,
    RuleConfigError,
    action_card,
    action_name,
    make_rules,
    marriage_action,
    new_hand,
    parse_action,
    parse_card,
    player_view,
)
from sixtysix_env.game.cards import card_code

ROOT = Path(__file__).resolve().parents[2]


def test_card_codes_roundtrip():
    assert [card_code(c) for c in range(6)] == ["9C", "JC", "QC", "KC", "TC", "AC"]
    assert card_code(23) == "AS"
    for c in range(24):
        assert parse_card(card_code(c)) == c
        assert parse_card(card_code(c).lower()) == c
    assert parse_card("10H") == parse_card("TH") == 2 * 6 + 4
    for bad in ("", "1H", "TX", "AHH", "QQ"):
        with pytest.raises(ValueError, match="unknown card code"):
            parse_card(bad)


def test_action_ids_and_names():
    assert NUM_ACTIONS == 34
    names = [action_name(a) for a in range(NUM_ACTIONS)]
    assert names[24:] == [
        "marry-QC", "marry-KC", "marry-QD", "marry-KD",
        "marry-QH", "marry-KH", "marry-QS", "marry-KS",
        "exchange", "close",
    ]  # fmt: skip
    assert len(set(names)) == NUM_ACTIONS
    for a, n in enumerate(names):
        assert parse_action(n) == a
        assert parse_action(a) == a
        assert parse_action(str(a)) == a
    assert parse_action("marry KH") == parse_action("marry:kh") == 29
    assert action_card(29) == parse_card("KH") and action_card(32) is None
    assert marriage_action(parse_card("QS")) == 30
    with pytest.raises(ValueError, match="only a queen or king"):
        marriage_action(parse_card("AS"))
    for bad in ("fold", "marry AH", 34, -1, True):
        with pytest.raises(ValueError):
            parse_action(bad)


def test_illegal_action_error_names_action_phase_and_legal_set():
    s = new_hand(3, dealer=1)
    snapshot = pickle.dumps(s)
    legal = s.legal_actions()
    bad = next(a for a in range(NUM_ACTIONS) if a not in legal)
    with pytest.raises(IllegalActionError) as e:
        s.apply(bad)
    msg = str(e.value)
    assert action_name(bad) in msg and "open phase" in msg and "seat 0 (leader)" in msg
    for a in legal:
        assert action_name(a) in msg
    assert e.value.legal_actions == tuple(legal) and e.value.action == bad
    with pytest.raises(IllegalActionError, match="out of range"):
        s.apply(99)
    assert pickle.dumps(s) == snapshot


def test_rule_config_errors_name_the_allowed_values():
    with pytest.raises(
        RuleConfigError, match="allowed presets: altmisalti, pagat66, santase, schnapsen, "
    ):
        make_rules("sixtysix")
    with pytest.raises(RuleConfigError, match="'marriage_lead' got 'queen'; allowed values: "
                       "'either', 'king'"):
        make_rules("schnapsen", marriage_lead="queen")
    with pytest.raises(RuleConfigError, match="'deck' got 32; allowed values: 24, 20"):
        make_rules("schnapsen", deck=32)
    with pytest.raises(RuleConfigError, match="unknown rule switch 'must_beat'.*allowed switches"):
        make_rules("altmisalti", must_beat=True)
    with pytest.raises(RuleConfigError, match="'failed_close_penalty'.*allowed values"):
        make_rules(failed_close_penalty="4")
    with pytest.raises(RuleConfigError, match="must be a bool"):
        RuleConfig(must_beat_in_suit="yes")
    with pytest.raises(RuleConfigError, match="min_stock_to_close"):
        make_rules(min_stock_to_close=0)
    r = make_rules({"preset": "santase", "match_target": 5})
    assert r.must_beat_in_suit and r.match_target == 5 and r.name == "santase+custom"
    assert make_rules("pagat66").replace(match_target=9).match_target == 9
    with pytest.raises(RuleConfigError):
        make_rules("pagat66").replace(target=9)
    with pytest.raises(RuleConfigError, match="preset name"):
        make_rules(3)


def test_state_copy_pickle_and_rendering():
    s = new_hand(5).apply("close")
    for other in (copy.copy(s), copy.deepcopy(s), pickle.loads(pickle.dumps(s))):
        assert other == s and other.legal_actions() == s.legal_actions()
    text = repr(s)
    assert "closed by seat 0" in text and "seat 0:" in text and "seat 1:" in text
    view_text = repr(player_view(s, 1))
    assert "Seat 1's view" in view_text and "opponent: 6 cards" in view_text
    # The view's text never shows the opponent's hand.
    opp_codes = [card_code(c) for c in range(24) if s.hand(0) >> c & 1]
    own_line = next(line for line in view_text.splitlines() if line.startswith("your hand"))
    assert all(code not in view_text.replace(own_line, "") for code in opp_codes if code != card_code(s.trump_card))


def test_demo_and_cli():
    out = subprocess.run(
        [sys.executable, "-m", "sixtysix_env", "demo", "--seed", "4", "--rules", "santase"],
        capture_output=True, text=True, check=True, cwd=ROOT,
    ).stdout  # fmt: skip
    assert "Trick  1:" in out and "Result:" in out
    bad = subprocess.run(
        [sys.executable, "-m", "sixtysix_env", "nonsense"], capture_output=True, text=True, cwd=ROOT
    )
    assert bad.returncode == 2 and "unknown command" in bad.stderr


def test_engine_benchmark_smoke():
    out = subprocess.run(
        [sys.executable, "speed/bench_engine.py", "--hands", "50", "--no-peer", "--no-pin"],
        capture_output=True, text=True, check=True, cwd=ROOT,
    ).stdout  # fmt: skip
    assert "actions/s" in out and "apply:" in out


def test_player_view_sets_every_field():
    """The fast view constructor fills exactly the dataclass's fields."""
    import dataclasses

    from sixtysix_env import PlayerView

    s = new_hand(8).apply("close")
    for seat in (0, 1):
        view = player_view(s, seat)
        names = {f.name for f in dataclasses.fields(PlayerView)}
        assert set(vars(view)) == names
        assert PlayerView(**{n: getattr(view, n) for n in names}) == view


def test_package_names_are_not_shadowed_by_subpackages():
    """Importing a subpackage must not replace a function of the same name."""
    import importlib

    import sixtysix_env

    for sub in ("play", "env", "agents"):
        try:
            importlib.import_module(f"sixtysix_env.{sub}")
        except ImportError:
            continue
    for name in sixtysix_env.__all__:
        assert not isinstance(getattr(sixtysix_env, name), type(sixtysix_env)), name


def test_demo_names_its_players_and_takes_any_agents():
    from sixtysix_env.play.demo import play_demo

    text = play_demo(seed=3, agents=("heuristic", "random"))
    assert "seat 0: heuristic, seat 1: random" in text.splitlines()[0]
    assert play_demo(seed=3, agents=("heuristic", "random")) == text  # seeded
    bad = subprocess.run(
        [sys.executable, "-m", "sixtysix_env", "demo", "--agents", "nobody", "random"],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert bad.returncode == 2 and "unknown agent 'nobody'" in bad.stderr
