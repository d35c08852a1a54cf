"""Stronger bots, and the registry of every bot by name (nochmal.bots.registry)."""

from nochmal.bots.registry import AGENTS, agent_names, make_agent

__all__ = ["AGENTS", "agent_names", "make_agent"]
