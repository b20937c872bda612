"""Agents: objects that choose a legal action from what their seat may know."""

from .base import Agent, RandomAgent
from .registry import agent_names, make_agent, register_agent

__all__ = ["Agent", "RandomAgent", "agent_names", "make_agent", "register_agent"]
