"""The names of Larik's built-in tools: a leaf module, so that config validation (which checks
permission rules) and the tools package share one list without importing each other."""

from __future__ import annotations

__all__ = ["ALL_TOOLS", "READ_ONLY_TOOLS", "is_known_tool_pattern"]

ALL_TOOLS = (
    "read_file",
    "write_file",
    "edit_file",
    "glob",
    "grep",
    "bash",
    "job_output",
    "job_stop",
    "task",
    "skill",
    "web_fetch",
)
READ_ONLY_TOOLS = ("read_file", "glob", "grep", "skill")
#: Tools from MCP servers are named ``mcp__SERVER__TOOL``; rules may name them before the
#: servers have started, so any name in this namespace is accepted.
MCP_PREFIX = "mcp__"


def is_known_tool_pattern(pattern: str) -> bool:
    """Whether a rule's TOOL part (itself an fnmatch pattern) names at least one tool."""
    import fnmatch

    if pattern.startswith(MCP_PREFIX):
        return True
    return any(fnmatch.fnmatchcase(t, pattern) for t in ALL_TOOLS)
