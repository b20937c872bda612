"""Agents by name: ``make_agent("random")``; policy files join later."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import Agent, RandomAgent

_FACTORIES: dict[str, Callable[..., Agent]] = {"random": RandomAgent}


def register_agent(name: str, factory: Callable[..., Agent]) -> None:
    """Make ``make_agent(name)`` build agents with ``factory(**kwargs)``."""
    _FACTORIES[name] = factory


def agent_names() -> list[str]:
    return sorted(_FACTORIES)


def make_agent(spec: str | Agent, **kwargs: Any) -> Agent:
    """An agent from a built-in name, or an agent object passed through."""
    if not isinstance(spec, str):
        if hasattr(spec, "act"):
            return spec
        raise TypeError(f"an agent must be a name or have an act(view, rng) method, got {spec!r}")
    try:
        factory = _FACTORIES[spec]
    except KeyError:
        raise ValueError(
            f"unknown agent {spec!r}; built-in agents: {', '.join(agent_names())}"
        ) from None
    return factory(**kwargs)
