"""MCP results as Larik's neutral pieces: text for the model, images as image blocks.

A tool result's content list may hold text, images, audio, links to resources and embedded
resources; ``structuredContent`` may come with it. What the model gets:

* text blocks, joined by blank lines (an error result's text is the error message);
* images (PNG, JPEG, GIF, WebP; at most :data:`MAX_IMAGES`, each at most :data:`MAX_IMAGE`
  bytes of base64) as tool-result images; others as a one-line note;
* audio and binary resources as a one-line note (type and size: no model here reads audio);
* a resource link as ``[resource: URI (name)]``; an embedded text resource as its text;
* ``structuredContent`` as JSON when the content list has no text (servers are asked to send
  both; when they do, the text is used once, not twice);
* everything cut to :data:`MAX_TEXT` characters, with a note saying how much was left out
  (a 5 MB result must not fill the context window), and cleaned of what acts on a terminal
  (:mod:`larik.others_text`, the one rule of every channel of others' text).

The same bounds hold for everything else a server supplies (a lying server may send megabytes
of anything): an error's message (a JSON-RPC error, an ``isError`` result, an exception's text)
is cut by :func:`clip` like a result; a resource's or a prompt's images by :func:`add_image`
like a result's; and the names, titles and descriptions it lists are cut to :data:`MAX_NAME`
(tool descriptions to :data:`larik.mcp.offer.MAX_DESCRIPTION`) by :func:`short` when they
are read, so neither the model nor the screen sees more.

The functions take the SDK's pydantic objects but read them by attribute, so this module imports
no SDK.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..image_bytes import MEDIA_TYPES
from ..others_text import bounded, one_line
from ..others_text import short as described_text

if TYPE_CHECKING:
    from ..llm.types import Block

__all__ = [
    "MAX_IMAGE",
    "MAX_IMAGES",
    "MAX_NAME",
    "MAX_TEXT",
    "Converted",
    "add_image",
    "clip",
    "described_text",
    "result_parts",
    "resource_text",
    "short",
]

MAX_TEXT = 60_000
MAX_IMAGE = 5 * 1024 * 1024
MAX_IMAGES = 8
MAX_NAME = 200  # characters of a name, title, URI or short description a server lists
IMAGE_TYPES = MEDIA_TYPES  # larik.image_bytes: the images Larik sends a model


@dataclass
class Converted:
    text: str = ""
    images: list[Block] = field(default_factory=list)
    is_error: bool = False


def clip(text: str, limit: int = MAX_TEXT) -> str:
    """A server's text (a result, an error), bounded and cleaned by the one rule
    (:func:`larik.others_text.bounded`)."""
    return bounded(text, limit)


def short(text: object, limit: int = MAX_NAME) -> str:
    """A server-supplied name or description: one line of at most ``limit`` characters
    (…-ended if cut), cleaned (:func:`larik.others_text.one_line`)."""
    return one_line(text or "", limit)


def add_image(images: list[Block], texts: list[str], mime: str, data: str) -> None:
    """An image a server sent, as an image block when it is of a type models read, at most
    :data:`MAX_IMAGE` bytes of base64 and one of the first :data:`MAX_IMAGES`; else a note."""
    from ..llm.types import Block

    if mime in IMAGE_TYPES and len(data) <= MAX_IMAGE and len(images) < MAX_IMAGES:
        images.append(Block.image(mime, data))
    else:
        texts.append(f"[image {short(mime, 60) or '?'} of {_size(data)} not passed on]")


def _size(b64: str) -> str:
    n = len(b64) * 3 // 4
    return f"{n / 1024 / 1024:.1f} MB" if n >= 1 << 20 else f"{n / 1024:.0f} KB"


def _piece(item: Any, out: Converted, texts: list[str]) -> None:
    kind = getattr(item, "type", "")
    if kind == "text":
        texts.append(str(getattr(item, "text", "")))
    elif kind == "image":
        mime = str(getattr(item, "mime_type", "") or "")
        add_image(out.images, texts, mime, str(getattr(item, "data", "") or ""))
    elif kind == "audio":
        mime = short(getattr(item, "mime_type", ""), 60) or "?"
        texts.append(f"[audio {mime} of {_size(str(getattr(item, 'data', '') or ''))} omitted]")
    elif kind == "resource_link":
        name = short(getattr(item, "name", ""))
        texts.append(f"[resource: {short(getattr(item, 'uri', ''))}{f' ({name})' if name else ''}]")
    elif kind == "resource":
        texts.append(resource_text(getattr(item, "resource", None)))
    else:
        texts.append(f"[{short(kind, 60) or 'unknown'} content omitted]")


def resource_text(contents: Any) -> str:
    """One resource's contents as text (a binary one as a one-line note)."""
    uri = short(getattr(contents, "uri", ""))
    text = getattr(contents, "text", None)
    if text is not None:
        return str(text)
    mime = short(getattr(contents, "mime_type", ""), 60) or "?"
    return f"[binary resource {uri} ({mime}, {_size(str(getattr(contents, 'blob', '') or ''))})]"


def result_parts(result: Any) -> Converted:
    """A ``CallToolResult`` as text and images for the model."""
    out = Converted(is_error=bool(getattr(result, "is_error", False)))
    texts: list[str] = []
    for item in getattr(result, "content", None) or []:
        _piece(item, out, texts)
    structured = getattr(result, "structured_content", None)
    if structured is not None and not any(t.strip() for t in texts):
        texts.append(json.dumps(structured, ensure_ascii=False, indent=1, allow_nan=True))
    out.text = clip("\n\n".join(t for t in texts if t)) or ("(no output)" if not out.images else "")
    return out
