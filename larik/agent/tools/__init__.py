"""The tools the model can call. One small module per tool, each with::

    NAME, DESCRIPTION, KIND ("read" | "write" | "exec" | "task" | "job" | "fetch")
    class Args(ToolArgs)                       # pydantic arguments; the JSON schema sent to the model
    def target(args) -> str                    # what permission rules match: a path, command or role
    def summary(args) -> str                   # one line for the front end
    async def run(args, ctx) -> ToolResult     # may raise ToolError (a clear message for the model)
    async def preview(args, ctx) -> str        # optional: the diff shown when asking for approval

``KIND`` drives the permission modes; read tools (and explore subagents) may run concurrently.
``job`` tools act only on the session's own background jobs (:mod:`larik.agent.jobs`): allowed
in every mode, plan included, as reads are (a deny rule still holds).
A ``fetch`` tool (web_fetch) reaches the network: asked for per domain, as a command is.
File tools have ``PATH_TARGET = True``: their target is a path, confined to the project root.
A result's text is always valid UTF-8: lone surrogates (from file names that are not UTF-8) are
written as ``\\xNN`` (see ``larik.paths.shown``).

Tools that come and go while a session runs (MCP servers' tools) are not modules here: a
:class:`ToolSource` hands the agent their specs for each request and looks up the calls it does
not know; each is an :class:`AnyTool`, the same interface :class:`Tool` has. Those two, the
arguments' base, the result and the error are the tool contract (``larik/tool_contract.py``,
re-exported here), which the MCP client keeps without importing the agent.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from ...llm.types import ToolSpec
from ...paths import resolve_path, shown
from ...tool_contract import AnyTool, ToolArgs, ToolError, ToolResult, ToolSource
from ...tool_names import ALL_TOOLS, READ_ONLY_TOOLS
from ..events import AgentEvent

if TYPE_CHECKING:
    from ..jobs import JobTable
    from ..skills import SkillCatalog
    from ._editor import Editor

__all__ = [
    "ALL_TOOLS",
    "READ_ONLY_TOOLS",
    "AnyTool",
    "Tool",
    "ToolSource",
    "ToolArgs",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "get_tool",
    "tool_specs",
    "write_tools",
]

Kind = Literal["read", "write", "exec", "task", "mcp", "job", "fetch"]


def beyond_defaults(model: type[BaseModel], raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` (a call's arguments, as the model wrote them) without what only restates a
    default of ``model`` (``timeout: 120``, ``replace_all: false``, a null): what a dialog
    shows. A tool whose model declares no fields (an MCP tool's) keeps all."""
    out = {}
    for k, v in raw.items():
        f = model.model_fields.get(k)
        if f is not None and not f.is_required():
            default = f.get_default(call_default_factory=True)
            if v is None or (v == default and isinstance(v, bool) == isinstance(default, bool)):
                continue
        out[k] = v
    return out


Spawn = Callable[[str, str], Awaitable[str]]
PathDenied = Callable[[str, Path], bool]


@dataclass
class ToolContext:
    """What a tool may use. ``processes`` maps the process-group ids of running commands to
    their start tokens, so an interrupt can kill them; ``spawn(role, prompt)`` runs a subagent
    and returns its answer; ``path_denied(tool, path)`` says whether ``permissions.deny`` covers
    a file a tool meets on its own (grep and glob ask it for every file they list, giving the
    path as listed: it follows symlinks itself)."""

    root: Path
    processes: dict[int, str] = field(default_factory=dict)
    spawn: Spawn | None = None
    emit: Callable[[AgentEvent], None] | None = None
    before_change: Callable[[], Awaitable[None]] | None = None  # a checkpoint (rewind.py)
    path_denied: PathDenied | None = None
    seen: Any = None  # _seen.SeenFiles: files read, for "read it before you overwrite it"
    skills: SkillCatalog | None = None  # what the skill tool loads (larik/agent/skills.py)
    sandbox: Any = None  # sandbox.Sandbox bash commands run in; None: none (the user's !cmd)
    on_output: Callable[[bytes], None] | None = None  # a command's output as it comes (!cmd)
    jobs: JobTable | None = None  # background commands (None: not offered to this model)
    line_numbers: bool = True  # read_file's gutter (the model's profile: profile.py)
    web: Any = None  # config.WebFetchConfig: web_fetch's limits; None: the defaults
    editor: Editor | None = None  # the editor doing the file I/O and commands (_editor.py)
    lsp: Any = None  # lsp.session.LspSession: diagnostics after a write; None: none

    def path(self, raw: str) -> Path:
        return resolve_path(self.root, raw).path

    def denied(self, tool: str, path: Path) -> bool:
        return self.path_denied is not None and self.path_denied(tool, path)

    def show(self, path: Path) -> str:
        """A path as the model should see it: relative to the root when inside it, bytes that
        are not UTF-8 written as ``\\xNN``."""
        try:
            return shown(path.relative_to(self.root.resolve()).as_posix() or ".")
        except ValueError:
            return shown(path.as_posix())


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    kind: Kind
    args: type[ToolArgs]
    module: ModuleType
    path_target: bool

    async def run(self, args: ToolArgs, ctx: ToolContext) -> ToolResult:
        return await self.module.run(args, ctx)

    def target(self, args: ToolArgs) -> str:
        return str(self.module.target(args))

    def summary(self, args: ToolArgs) -> str:
        return str(self.module.summary(args))

    async def preview(self, args: ToolArgs, ctx: ToolContext) -> str:
        fn = getattr(self.module, "preview", None)
        return await fn(args, ctx) if fn else ""

    def read_only(self, args: ToolArgs) -> bool:
        fn = getattr(self.module, "read_only", None)
        return bool(fn(args)) if fn else self.kind == "read"

    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name,
            description=self.description,
            input_schema=_clean_schema(self.args.model_json_schema()),
        )


_cache: dict[str, Tool] = {}


def get_tool(name: str) -> Tool | None:
    if name not in ALL_TOOLS:
        return None
    if name not in _cache:
        mod = importlib.import_module(f"{__name__}.{name}")
        _cache[name] = Tool(
            name=mod.NAME,
            description=mod.DESCRIPTION,
            kind=mod.KIND,
            args=mod.Args,
            module=mod,
            path_target=getattr(mod, "PATH_TARGET", False),
        )
    return _cache[name]


@functools.cache
def write_tools() -> tuple[str, ...]:
    """The built-in tools that write files (``KIND = "write"``): their deny rules also hold
    for a command's redirections, and "allow always" on an edit covers them all."""
    return tuple(n for n in ALL_TOOLS if (t := get_tool(n)) is not None and t.kind == "write")


#: An argument offered only beside the tool it needs: a background job is read and stopped with
#: job_output and job_stop, so without them (a small model's profile) bash shows no
#: ``background`` — the model is not offered what it would be refused.
ARG_NEEDS: dict[tuple[str, str], str] = {("bash", "background"): "job_output"}


def tool_specs(names: tuple[str, ...] | list[str], line_numbers: bool = True) -> list[ToolSpec]:
    """The specs of ``names``, in order; ``line_numbers``: whether read_file shows them (its
    description says so)."""
    out = []
    for n in names:
        tool = get_tool(n)
        if tool is None:
            continue
        spec = tool.spec()
        if n == "read_file" and not line_numbers:
            plain = tool.module.PLAIN_DESCRIPTION
            spec = spec.model_copy(update={"description": plain})
        dropped = [a for (t, a), need in ARG_NEEDS.items() if t == n and need not in names]
        if dropped:
            schema = dict(spec.input_schema)
            props = {k: v for k, v in schema.get("properties", {}).items() if k not in dropped}
            schema["properties"] = props
            if "required" in schema:
                schema["required"] = [r for r in schema["required"] if r not in dropped]
            spec = spec.model_copy(update={"input_schema": schema})
        out.append(spec)
    return out


def _clean_schema(schema: Any, in_properties: bool = False) -> Any:
    """Drop pydantic's ``title`` keys: they cost tokens and some APIs reject them."""
    if isinstance(schema, dict):
        return {
            k: _clean_schema(v, k == "properties" and not in_properties)
            for k, v in schema.items()
            if in_properties or k != "title"
        }
    if isinstance(schema, list):
        return [_clean_schema(v) for v in schema]
    return schema
