"""Stronger bots; importing this package registers them with nochmal.agents."""
