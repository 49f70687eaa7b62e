"""A user's prompt meets MCP servers: ``@server:URI`` attaches a resource, ``/mcp__server__prompt``
runs a server's prompt.

* **Resources.** ``@docs:note://readme`` in a prompt reads resource ``note://readme`` from server
  ``docs`` and attaches its text (like ``@path`` attaches a file; images as image blocks). A
  mention whose part before the colon is not a configured server is left to ``@path``.
* **Prompts.** Each prompt a server offers is a slash command ``/mcp__SERVER__PROMPT``; what
  follows it fills the prompt's arguments, in order (``/mcp__gh__review 42 security``), or by
  name (``focus=security``), shell-quoted when a value has spaces. The server's messages become
  the turn's prompt: text joined, embedded text resources inlined, images attached.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .content import MAX_TEXT, add_image, clip, resource_text, short
from .names import exposed_name, split_name
from .server import McpCallError

if TYPE_CHECKING:
    from ..llm.types import Block
    from .manager import McpManager
    from .offer import PromptInfo

__all__ = [
    "ResourceAttachment",
    "PromptCommand",
    "attach_resources",
    "parse_prompt_args",
    "prompt_commands",
    "resource_mentions",
    "run_prompt",
]

_MENTION = re.compile(r"(?:(?<=\s)|^)@([A-Za-z0-9][A-Za-z0-9_-]*):(\S+)")
MAX_RESOURCES = 10


@dataclass
class ResourceAttachment:
    blocks: list[Block] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  # "server:uri", as files are named "path"
    problems: list[str] = field(default_factory=list)


def resource_mentions(text: str, servers: set[str] | dict[str, Any]) -> list[tuple[str, str]]:
    """The ``(server, uri)`` of each ``@server:uri`` in ``text`` naming a configured server."""
    out = []
    for m in _MENTION.finditer(text):
        server, uri = m.group(1), m.group(2).rstrip(".,;!?)")
        if server in servers and (server, uri) not in out:
            out.append((server, uri))
    return out


async def attach_resources(text: str, manager: McpManager) -> ResourceAttachment:
    """Read each mentioned resource; what cannot be read is a one-line problem, not a failure."""
    from ..llm.types import Block

    out = ResourceAttachment()
    for server_name, uri in resource_mentions(text, manager.servers)[:MAX_RESOURCES]:
        mention = f"@{server_name}:{uri}"
        server = manager.servers[server_name]
        try:
            result = await server.read_resource(uri)
        except McpCallError as e:
            out.problems.append(f"{mention}: {e}, not attached")
            continue
        texts: list[str] = []
        images: list[Block] = []
        for contents in getattr(result, "contents", None) or []:
            mime = str(getattr(contents, "mime_type", "") or "")
            blob = getattr(contents, "blob", None)
            if blob is not None and mime.startswith("image/"):
                add_image(images, texts, mime, str(blob))
            else:
                texts.append(resource_text(contents))
        out.blocks.extend(images)
        body = server.mask(clip("\n".join(texts), MAX_TEXT))
        out.blocks.append(Block.text_block(f"<resource {mention}>\n{body}\n</resource>"))
        out.names.append(mention.removeprefix("@"))
    return out


# ------------------------------------------------------------------------------------ prompts


@dataclass(frozen=True)
class PromptCommand:
    name: str  # without the slash: mcp__SERVER__PROMPT
    usage: str
    summary: str
    info: PromptInfo


def prompt_commands(manager: McpManager) -> list[PromptCommand]:
    """A slash command for each prompt of each ready server."""
    out = []
    for p in manager.prompts():
        name = exposed_name(p.server, p.name)
        summary = (p.description or f"prompt {p.name} of MCP server {p.server}").splitlines()[0]
        out.append(PromptCommand(name, _usage(p), short(summary, 120), p))
    return out


def parse_prompt_args(info: PromptInfo, line: str) -> dict[str, str]:
    """``line`` as the prompt's arguments; ``ValueError`` (one line) when it does not fit."""
    try:
        words = shlex.split(line)
    except ValueError as e:
        raise ValueError(f"cannot read the arguments: {e}") from None
    names = [a for a, _, _ in info.arguments]
    out: dict[str, str] = {}
    positional = []
    for w in words:
        key, eq, value = w.partition("=")
        if eq and key in names:
            out[key] = value
        else:
            positional.append(w)
    free = [n for n in names if n not in out]
    if len(positional) > len(free):
        if not free:
            raise ValueError(f"/{exposed_name(info.server, info.name)} takes no more arguments")
        positional[len(free) - 1 :] = [" ".join(positional[len(free) - 1 :])]  # the rest
    out.update(zip(free, positional, strict=False))
    missing = [a for a, required, _ in info.arguments if required and a not in out]
    if missing:
        raise ValueError(f"missing {', '.join(missing)} (usage: {_usage(info)})")
    return out


def _usage(info: PromptInfo) -> str:
    """``/mcp__SERVER__PROMPT <required> [optional]``, at most :data:`MAX_NAME` characters."""
    args = " ".join(f"<{a}>" if r else f"[{a}]" for a, r, _ in info.arguments)
    return short(f"/{exposed_name(info.server, info.name)} {args}".rstrip())


def find_prompt(manager: McpManager, command: str) -> PromptInfo | None:
    """The prompt a ``mcp__SERVER__PROMPT`` command names, among ready servers."""
    parts = split_name(command)
    if parts is None:
        return None
    for p in manager.prompts():
        if p.server == parts[0] and exposed_name(p.server, p.name) == command:
            return p
    return None


async def run_prompt(manager: McpManager, info: PromptInfo, line: str) -> list[Block]:
    """The prompt's messages as the blocks of a user turn. Raises ``ValueError`` (bad
    arguments) or :class:`McpCallError` (the server could not answer), each one line."""
    from ..llm.types import Block

    args = parse_prompt_args(info, line)
    result = await manager.servers[info.server].get_prompt(info.name, args)
    texts: list[str] = []
    images: list[Block] = []
    for message in getattr(result, "messages", None) or []:
        content: Any = getattr(message, "content", None)
        kind = getattr(content, "type", "")
        if kind == "text":
            texts.append(str(getattr(content, "text", "")))
        elif kind == "image":
            mime = str(getattr(content, "mime_type", "") or "")
            add_image(images, texts, mime, str(getattr(content, "data", "") or ""))
        elif kind == "resource":
            texts.append(resource_text(getattr(content, "resource", None)))
    text = manager.servers[info.server].mask(clip("\n\n".join(t for t in texts if t)))
    text = text or f"(prompt {info.name} returned nothing)"
    return [Block.text_block(text), *images]
