"""Agents: objects that choose a legal action from what their seat may know."""

from .base import Agent, RandomAgent

__all__ = ["Agent", "RandomAgent"]
