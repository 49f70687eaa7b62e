"""The names of Larik's built-in tools and how a permission rule names them: a leaf module, so
that config validation (which checks rules) and the permission policy (which applies them) share
one list and one parser without importing each other."""

from __future__ import annotations

__all__ = ["ALL_TOOLS", "ANSWER", "READ_ONLY_TOOLS", "is_known_tool_pattern", "parse_rule"]

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
    "answer",
)
READ_ONLY_TOOLS = ("read_file", "glob", "grep", "skill")
#: The tool that ends a turn with its text (agent/tools/answer.py): offered to small models, first
ANSWER = "answer"
#: Tools from MCP servers are named ``mcp__SERVER__TOOL``; rules may name them before the
#: servers have started, so any name in this namespace is accepted.
MCP_PREFIX = "mcp__"


def is_known_tool_pattern(pattern: str) -> bool:
    """Whether a rule's TOOL part (itself an fnmatch pattern) names at least one tool."""
    import fnmatch

    if pattern.startswith(MCP_PREFIX):
        return True
    return any(fnmatch.fnmatchcase(t, pattern) for t in ALL_TOOLS)


def parse_rule(text: str, clip: int | None = None) -> tuple[str, str]:
    """``(tool, pattern)`` of a permission rule ``"TOOL: PATTERN"`` (no ``:``: every use of the
    tool), or ``ValueError`` naming what is wrong in one line, the rule cut to ``clip``
    characters. ``TOOL`` is a pattern that must name at least one tool."""
    tool, sep, pattern = text.partition(":")
    tool, pattern = tool.strip(), pattern.strip().strip("\"'") if sep else "*"
    shown = text if clip is None or len(text) <= clip else text[: clip - 1] + "…"
    if not tool:
        raise ValueError(f"rule {shown!r} names no tool (write it as 'TOOL: PATTERN')")
    if not is_known_tool_pattern(tool):
        raise ValueError(f"rule {shown!r} names no known tool ({', '.join(ALL_TOOLS)}, or mcp__…)")
    return tool, pattern or "*"
