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
        hint = _written_as(text.strip())
        if hint:
            raise ValueError(f"rule {shown!r} names no known tool; write it as {hint!r}")
        raise ValueError(f"rule {shown!r} names no known tool ({', '.join(ALL_TOOLS)}, or mcp__…)")
    return tool, pattern or "*"


#: Claude Code's tool names in its permission rules, as Larik's
_OTHER_NAMES = {
    "read": "read_file",
    "edit": "edit_file",
    "multiedit": "edit_file",
    "write": "write_file",
    "webfetch": "web_fetch",
}


def _written_as(text: str) -> str:
    """The rule in Larik's spelling when it is a known tool's in another one — Claude Code's
    ``Bash(npm test)`` is ``bash: npm test``, ``WebFetch(domain:docs.python.org)`` is
    ``web_fetch: docs.python.org``, ``BASH: ls`` is ``bash: ls`` — or ""."""
    import re

    m = re.fullmatch(r"(\w+)\((.*)\)", text, re.DOTALL)
    name, rest = (m.group(1), m.group(2)) if m else (text.partition(":")[0], text.partition(":")[2])
    name = name.strip().lower()
    name = _OTHER_NAMES.get(name, name)
    if name not in ALL_TOOLS:
        import difflib

        close = difflib.get_close_matches(name, ALL_TOOLS, n=1, cutoff=0.75)
        if not close:
            return ""
        name = close[0]
    rest = rest.strip()
    if name == "web_fetch":
        rest = rest.removeprefix("domain:")
    return f"{name}: {rest}" if rest else name
