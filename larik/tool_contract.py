"""What a tool is to the agent's tool runner, whoever brings it: the base of its arguments,
its result, the error it raises for the model to read, the protocol every tool keeps
(:class:`AnyTool`) and a source of tools beyond the built-in ones (:class:`ToolSource`).

A leaf below the agent and the MCP client: the agent's built-in tools (``larik/agent/tools/``,
which re-exports these names) and the MCP servers' tools (``larik/mcp/tools.py``) both keep
this contract, and neither package imports the other (tests/test_layers.py). What a tool may
use while it runs is the agent's ``ToolContext``: here it is ``ctx``, typed ``Any``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, model_validator

from .llm.types import Block, ToolSpec
from .paths import shown

__all__ = ["LIVE_ONLY", "AnyTool", "ToolArgs", "ToolError", "ToolResult", "ToolSource"]

#: Keys of :attr:`ToolResult.data` a live front end may read that no transcript record and no
#: event stream keeps: ``previous``, the text write_file replaced (an editor shows the overwrite
#: as one; kept, it would copy every rewritten file into the transcript).
LIVE_ONLY = frozenset({"previous"})


class ToolError(Exception):
    """A failure the model should see as an error result, e.g. "old_string not found"."""


@dataclass(slots=True)
class ToolResult:
    content: str
    is_error: bool = False
    images: list[Block] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)  # for front ends: diff, exit_code, …
    # a file's own text (read_file, grep): bounded, but its characters kept for an edit to
    # quote; every other result is cleaned too (larik.others_text, applied by the tool runner)
    exact: bool = False

    def __post_init__(self) -> None:
        # the one place every tool's text passes: nothing unencodable reaches a model or a file
        self.content = shown(self.content)
        for k, v in self.data.items():
            if isinstance(v, str):
                self.data[k] = shown(v)


class ToolArgs(BaseModel):
    """Base of every tool's arguments: unknown keys are errors; an explicit null means "default"."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _nulls_are_defaults(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if v is not None}
        return data


class AnyTool(Protocol):
    """What the tool runner and the permission policy use of a tool: the agent's ``Tool`` for
    the built-in ones, other classes for tools a :class:`ToolSource` brings. ``ctx`` is the
    agent's ``ToolContext``."""

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def path_target(self) -> bool: ...
    @property
    def args(self) -> type[BaseModel]: ...
    async def run(self, args: Any, ctx: Any) -> ToolResult: ...
    def target(self, args: Any) -> str: ...
    def summary(self, args: Any) -> str: ...
    async def preview(self, args: Any, ctx: Any) -> str: ...
    def read_only(self, args: Any) -> bool: ...
    def spec(self) -> ToolSpec: ...


class ToolSource(Protocol):
    """Tools beyond the built-in ones, e.g. MCP servers' (:class:`larik.mcp.manager.McpManager`).
    ``specs(window)`` is asked before every request (the tools may change; a source may send
    fewer schemas to a model with a small ``window``); ``get`` finds a called tool by name;
    ``system_text()`` is a block for the system prompt ("" for none: the servers' instructions)."""

    def get(self, name: str) -> AnyTool | None: ...
    def names(self) -> list[str]: ...
    def specs(self, window: int) -> list[ToolSpec]: ...
    def system_text(self) -> str: ...
