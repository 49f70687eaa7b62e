"""The agent: loop, transcript, permissions, tools."""
