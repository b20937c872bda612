"""Without the ``schnapsen`` package, its agents and SixtySixBot say which extra to install."""

from __future__ import annotations

import pytest

from sixtysix_env.agents import schnapsen as bridge
from sixtysix_env.agents.registry import make_agent
from sixtysix_env.batched import MissingExtraError


@pytest.mark.parametrize("spec", ["schnapsen:rand", "schnapsen:rdeep:depth=2"])
def test_a_missing_extra_names_it(monkeypatch, spec):
    monkeypatch.setattr(bridge, "sg", None)
    with pytest.raises(MissingExtraError) as e:
        make_agent(spec)
    assert 'pip install "sixtysix[schnapsen]"' in str(e.value)
    assert spec.split(":")[1] in str(e.value)


def test_sixtysix_bot_without_the_extra_names_it(monkeypatch):
    from sixtysix_env.agents import schnapsen_bot

    monkeypatch.setattr(schnapsen_bot, "sg", None, raising=False)
    monkeypatch.setattr(bridge, "sg", None)
    with pytest.raises(MissingExtraError) as e:
        schnapsen_bot.SixtySixBot("random")
    assert '.[schnapsen]' in str(e.value)


def test_an_unknown_agent_names_the_schnapsen_bots():
    from sixtysix_env.agents.registry import AgentSpecError

    with pytest.raises(AgentSpecError) as e:
        make_agent("rdeep")
    assert "schnapsen:NAME" in str(e.value)


def test_an_unknown_schnapsen_bot_lists_them(monkeypatch):
    monkeypatch.setattr(bridge, "sg", None)  # named before the package is looked for
    with pytest.raises(bridge.SchnapsenBridgeError) as e:
        make_agent("schnapsen:deepest")
    text = str(e.value)
    assert "unknown agent 'schnapsen:deepest'" in text
    assert "schnapsen:rdeep" in text and "schnapsen:package.module:ClassName" in text
