"""Agents: objects that choose a legal action from what their seat may know.

Every agent has a ``name`` and ``act(view, rng) -> action id``; it sees only
a :class:`~sixtysix_env.game.view.PlayerView`, never the full state.
Built-ins: ``random``, ``heuristic``, ``expert`` and ``guided`` (the expert's search
guided by the shipped ``sixtysix-ppo`` policy; see :func:`make_agent`).
"""

from .base import Agent, RandomAgent
from .expert import ExpertAgent, GuidedExpertAgent
from .heuristic import HeuristicAgent
from .registry import AgentSpecError, agent_names, make_agent, parse_agent_spec, register_agent
from .solver import Solver

__all__ = [
    "Agent",
    "AgentSpecError",
    "ExpertAgent",
    "GuidedExpertAgent",
    "HeuristicAgent",
    "RandomAgent",
    "Solver",
    "agent_names",
    "make_agent",
    "parse_agent_spec",
    "register_agent",
]
