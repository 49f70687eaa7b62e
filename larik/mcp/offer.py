"""What an MCP server offers, as Larik keeps it: its tools, resources and prompts, listed page
by page as the server connects, bounded in number and size, every string cut here once (the
TUI, the prompt and the model read these).

:mod:`larik.mcp.server` lists them (:func:`list_offer`) when a server is ready.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..llm.schema import tool_schema
from .content import MAX_NAME, described_text, short
from .names import exposed_name

__all__ = [
    "MAX_ARGUMENTS",
    "MAX_DESCRIPTION",
    "MAX_LISTED",
    "MAX_SCHEMA",
    "Offer",
    "PromptInfo",
    "ResourceInfo",
    "ToolInfo",
    "fit_schema",
    "list_offer",
]

MAX_LISTED = 1000  # tools, resources or prompts kept per server (a lying server may send more)
MAX_SCHEMA = 16_000  # characters of JSON: a larger input schema is not sent with every request
MAX_DESCRIPTION = 2000  # characters of a tool's description (sent with every request)
MAX_ARGUMENTS = 20  # arguments of one prompt kept
MAX_INSTRUCTIONS = 4000  # characters of the server's instructions kept


@dataclass(frozen=True)
class ToolInfo:
    server: str
    remote: str  # the server's own name for it
    name: str  # what the model calls it: mcp__SERVER__TOOL
    description: str
    schema: dict[str, Any]
    read_only: bool
    title: str = ""


@dataclass(frozen=True)
class ResourceInfo:
    server: str
    uri: str
    name: str
    description: str = ""
    mime_type: str = ""


@dataclass(frozen=True)
class PromptInfo:
    server: str
    name: str
    description: str = ""
    arguments: tuple[tuple[str, bool, str], ...] = ()  # (name, required, description)


@dataclass
class Offer:
    """All one server offers: its instructions, the tools its ``tools`` allow list lets
    through (and how many it leaves out), its resources and prompts."""

    instructions: str = ""
    tools: list[ToolInfo] = field(default_factory=list)
    hidden_tools: int = 0
    resources: list[ResourceInfo] = field(default_factory=list)
    prompts: list[PromptInfo] = field(default_factory=list)


async def list_offer(server: str, allow: list[str] | None, client: Any) -> Offer:
    """What the connected ``client`` (the SDK's) offers, for the server named ``server``
    whose config allows the tools matching ``allow`` (None: all)."""
    caps = client.server_capabilities
    offer = Offer(instructions=(client.instructions or "")[:MAX_INSTRUCTIONS])
    tools, resources, prompts = [], [], []
    if caps.tools is not None:
        tools = await _all_pages(client.list_tools, "tools")
    if caps.resources is not None:
        resources = await _all_pages(client.list_resources, "resources")
    if caps.prompts is not None:
        prompts = await _all_pages(client.list_prompts, "prompts")
    seen: set[str] = set()
    for t in tools:
        if allow is not None and not any(fnmatch.fnmatchcase(t.name, p) for p in allow):
            offer.hidden_tools += 1
            continue
        name = exposed_name(server, t.name)
        if name in seen:
            continue
        seen.add(name)
        ann = t.annotations
        schema, note = fit_schema(tool_schema(t.input_schema))
        title = short(t.title or (ann.title if ann is not None else ""))
        described = t.description or title or f"{short(t.name)} (MCP server {server})"
        offer.tools.append(
            ToolInfo(
                server=server,
                remote=t.name,
                name=name,
                description=described_text(described, MAX_DESCRIPTION) + note,
                schema=schema,
                read_only=bool(ann is not None and ann.read_only_hint),
                title=title,
            )
        )
    offer.resources = [
        ResourceInfo(server, r.uri, short(r.name), short(r.description), short(r.mime_type, 60))
        for r in resources
    ]
    offer.prompts = [
        PromptInfo(
            server,
            p.name,
            short(p.description),
            tuple(
                (short(a.name), bool(a.required), short(a.description))
                for a in (p.arguments or [])[:MAX_ARGUMENTS]
            ),
        )
        for p in prompts
    ]
    return offer


def fit_schema(schema: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """A schema small enough to send with every request, and a note for the description when
    it had to be replaced (a server may send a schema of megabytes)."""
    size = len(json.dumps(schema, ensure_ascii=False, allow_nan=True))
    if size <= MAX_SCHEMA:
        return schema, ""
    names = [n for n in list(schema.get("properties") or {})[:50] if len(n) <= MAX_NAME]
    loose = {"type": "object", "properties": {n: {} for n in names}}
    return loose, f" (its parameter schema, {size:,} characters, was too large to send)"


async def _all_pages(fn: Callable[..., Any], attr: str) -> list[Any]:
    out: list[Any] = []
    cursor: str | None = None
    for _ in range(50):
        page = await fn(cursor=cursor)
        out.extend(getattr(page, attr, None) or [])
        cursor = page.next_cursor
        if not cursor or len(out) >= MAX_LISTED:
            break
    return out[:MAX_LISTED]
