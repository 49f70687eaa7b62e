"""MCP tools as agent tools: the same interface the tool runner and the permission policy use
for built-in tools (name, kind, args, target, summary, run, read_only, spec).

* ``kind`` is ``"read"`` when the server marks the tool read-only (``readOnlyHint``): such calls
  run without asking in ``ask`` mode, like ``read_file``. Every other MCP tool is ``"mcp"``: it
  asks in ``ask`` and ``edits`` modes and runs in ``yolo``. Permission rules name them like any
  tool: ``"mcp__github__*"`` (any call), ``"mcp__github__create_issue: *"``.
* The arguments are the model's JSON object as is (the server validates them against its schema
  and answers an error the model can read); the rule target is that object as compact JSON.
* :data:`SEARCH` is the ``tool_search`` tool offered instead of the schemas when they would take
  too much of the context window (see :mod:`larik.mcp.manager`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from ..llm.types import ToolSpec
from ..tool_contract import ToolArgs, ToolError, ToolResult
from .content import result_parts
from .offer import ToolInfo
from .server import McpCallError

if TYPE_CHECKING:
    from .manager import McpManager

__all__ = ["McpArgs", "McpTool", "SearchArgs", "SearchTool"]


class McpArgs(BaseModel):
    """Any JSON object: the server checks it against its own schema."""

    model_config = ConfigDict(extra="allow")

    def values(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class McpTool:
    path_target = False

    def __init__(self, info: ToolInfo, manager: McpManager) -> None:
        self.info = info
        self.manager = manager
        self.name = info.name
        self.description = info.description  # never empty, and bounded (server.py)
        self.kind = "read" if info.read_only else "mcp"
        self.args: type[BaseModel] = McpArgs

    def spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, input_schema=self.info.schema)

    def target(self, args: Any) -> str:
        return json.dumps(
            _values(args), ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=True
        )

    def summary(self, args: Any) -> str:
        text = self.target(args)
        return text if len(text) <= 100 else text[:99] + "…"

    def read_only(self, args: Any) -> bool:
        return self.info.read_only

    async def preview(self, args: Any, ctx: Any) -> str:
        return ""

    async def run(self, args: Any, ctx: Any) -> ToolResult:
        server = self.manager.servers.get(self.info.server)
        if server is None:
            raise ToolError(f"MCP server {self.info.server!r} is no longer configured")
        try:
            result = await server.call_tool(self.info.remote, _values(args))
        except McpCallError as e:
            raise ToolError(str(e)) from None
        parts = result_parts(result)
        return ToolResult(
            server.mask(parts.text),  # a server echoing its token must not send it to the model
            is_error=parts.is_error,
            images=parts.images,
            data={"mcp_server": self.info.server},
        )


def _values(args: Any) -> dict[str, Any]:
    return args.values() if isinstance(args, McpArgs) else {}


# -------------------------------------------------------------------------------- tool_search

SEARCH_NAME = "tool_search"
MAX_MATCHES = 8


class SearchArgs(ToolArgs):
    query: str = Field(
        description="Words describing what you need (e.g. 'create github issue'), or an exact "
        "tool name. Matching tools become callable from your next reply."
    )
    max_results: int = Field(default=5, ge=1, le=MAX_MATCHES, description="Most tools to load.")


class SearchTool:
    """Finds MCP tools by words in their names and descriptions and loads their schemas."""

    name = SEARCH_NAME
    kind = "read"
    path_target = False
    args: type[BaseModel] = SearchArgs

    def __init__(self, manager: McpManager) -> None:
        self.manager = manager
        self.description = (
            "Find tools from the user's MCP servers (more tools than fit here: "
            f"{manager.deferred_summary()}). Give words describing what you need; the "
            "matching tools' full definitions are loaded and you can call them next."
        )

    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name,
            description=self.description,
            input_schema={
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "description": SearchArgs.model_fields["query"].description,
                    },
                    "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_MATCHES},
                },
                "required": ["query"],
            },
        )

    def target(self, args: Any) -> str:
        return str(getattr(args, "query", ""))

    def summary(self, args: Any) -> str:
        return self.target(args)[:100]

    def read_only(self, args: Any) -> bool:
        return True

    async def preview(self, args: Any, ctx: Any) -> str:
        return ""

    async def run(self, args: Any, ctx: Any) -> ToolResult:
        found = self.manager.search(args.query, args.max_results)
        if not found:
            return ToolResult(f"no MCP tool matches {args.query!r}; try other words")
        lines = [
            f"- {t.name}: {t.description.splitlines()[0][:200] if t.description else ''}"
            for t in found
        ]
        return ToolResult(
            "Loaded these tools; call them in your next reply:\n" + "\n".join(lines),
            data={"loaded": [t.name for t in found]},
        )
