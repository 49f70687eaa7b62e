"""Tool names for MCP tools: ``mcp__SERVER__TOOL``, within what every provider accepts.

OpenAI and Anthropic take ``^[a-zA-Z0-9_-]{1,64}$`` for a tool name, Gemini a little more. A
server's tool may be called anything (``get-issue``, ``files.read``, a 100-character name), so
the name the model sees is made safe here and mapped back to the server's own name on each call:
characters outside the set become ``_``, runs of ``_`` are folded (``__`` separates the parts),
and a name longer than 64 is cut and given a short hash so two long names stay distinct.
"""

from __future__ import annotations

import hashlib
import re

from ..tool_names import MCP_PREFIX

__all__ = ["MAX_TOOL_NAME", "exposed_name", "split_name"]

MAX_TOOL_NAME = 64
_BAD = re.compile(r"[^A-Za-z0-9_-]")
_RUNS = re.compile(r"_{2,}")


def exposed_name(server: str, tool: str) -> str:
    """The name the model calls ``tool`` of ``server`` by (``server`` is already a valid name)."""
    safe = _RUNS.sub("_", _BAD.sub("_", tool)).strip("_") or "tool"
    name = f"{MCP_PREFIX}{server}__{safe}"
    if len(name) <= MAX_TOOL_NAME and safe == tool:
        return name
    digest = hashlib.sha256(tool.encode()).hexdigest()[:8]
    room = MAX_TOOL_NAME - len(MCP_PREFIX) - len(server) - 2 - 9
    return f"{MCP_PREFIX}{server}__{safe[:room].rstrip('_')}_{digest}"


def split_name(name: str) -> tuple[str, str] | None:
    """``mcp__github__get_issue`` -> ``("github", "get_issue")`` (the exposed tool part)."""
    if not name.startswith(MCP_PREFIX):
        return None
    server, sep, tool = name[len(MCP_PREFIX) :].partition("__")
    return (server, tool) if sep and server and tool else None
