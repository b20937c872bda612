"""Examples that are not part of the installed package (docs/own-agent.md)."""
