"""The opponent a person meets when none is named: the leaderboard's strongest network, or
under another preset the network shipped for that preset."""

from __future__ import annotations

from sixtysix_env.play import session as play_session
from sixtysix_env.play.session import GameSession, default_opponent
from sixtysix_env.policy.shipped import networks_for, shipped_names, trained_preset
from sixtysix_env.ranking.standings import strongest


def test_every_shipped_network_records_its_preset():
    from sixtysix_env.game.rules import PRESETS

    for name in shipped_names():
        assert trained_preset(name) in PRESETS, name
    assert set(networks_for("altmisalti")) <= set(shipped_names())
    assert networks_for("schnapsen-vu") == ["sixtysix-ppo-schnapsen-vu"]


def test_the_schnapsen_vu_network_is_the_default_opponent_under_its_rules():
    assert default_opponent("schnapsen-vu") == "sixtysix-ppo-schnapsen-vu"
    assert GameSession(rules="schnapsen-vu", seed=1,
                       min_think_seconds=0).opponent_name == "sixtysix-ppo-schnapsen-vu"


def test_the_leaderboards_network_under_its_own_rules():
    best = strongest(shipped_names()).agent
    assert default_opponent() == best
    assert default_opponent(trained_preset(best)) == best


def test_another_preset_gets_its_own_network(monkeypatch):
    best = strongest(shipped_names()).agent
    monkeypatch.setattr(play_session, "networks_for",
                        lambda preset: ["sixtysix-ppo-v2"] if preset == "santase" else [])
    assert default_opponent("santase") == "sixtysix-ppo-v2"
    assert default_opponent("pagat66") == best  # none shipped for it: the leaderboard's
    session = GameSession(rules="santase", seed=1, min_think_seconds=0)
    assert session.opponent_name == "sixtysix-ppo-v2"
    assert GameSession(rules="pagat66", seed=1, min_think_seconds=0).opponent_name == best
