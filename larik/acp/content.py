"""An ACP prompt as a Larik prompt: text, images, and files as ``@file`` attachments.

The blocks keep their order. A resource *link* to a file (``file://``, as Zed sends an
``@``-mention) is read by Larik and attached as the TUI attaches ``@path`` (``larik/session/attachments.py``:
a ``<file path="…">`` text block, or an image block for PNG, JPEG, GIF and WebP). Larik's rules
come first — a file outside the project, or one a ``permissions.deny`` rule keeps from
``read_file``, is not read (and the client is not asked for it); nor is a file too big, binary
or not a regular file. An *embedded* resource is the client's own copy of the text (an editor's
buffer): attached as it is, within the same size limit. Images are checked (a known type,
base64 that decodes, at most 5 MB). What is not attached comes back in ``problems``, one line
each, for the client to show.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from ..llm.types import Block
from ..paths import resolve_path
from ..session.attachments import (
    IMAGE_TYPES,
    MAX_IMAGE,
    MAX_TEXT,
    denied_line,
    file_block,
    read_file,
    too_big_text,
)

__all__ = ["Converted", "convert"]


@dataclass
class Converted:
    blocks: list[Block] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # the editor's own text blocks

    @property
    def typed(self) -> str:
        """What the user wrote (the text blocks, not the files and links they came with)."""
        return "\n".join(self.texts)

    def prompt(self) -> str | list[Block]:
        """One text block: the plain string (a /command is looked for in it); else blocks."""
        if len(self.blocks) == 1 and self.blocks[0].type == "text":
            return self.blocks[0].text
        return self.blocks


def convert(
    blocks: list[Any], root: Path, denied: Callable[[str, Path], bool] | None = None
) -> Converted:
    """``blocks``: the SDK's content blocks of a ``session/prompt``; ``denied(tool, path)``:
    the session's deny rules."""
    out = Converted()
    root = root.resolve()
    for b in blocks:
        kind = getattr(b, "type", "")
        if kind == "text":
            out.blocks.append(Block.text_block(b.text))
            out.texts.append(b.text)
        elif kind == "image":
            _image(out, b.data, b.mime_type, "an image")
        elif kind == "resource_link":
            _link(out, b, root, denied)
        elif kind == "resource":
            _embedded(out, b.resource, root)
        else:
            out.problems.append(f"a {kind or 'content'} block: Larik does not take it, left out")
    if not any(b.type == "text" for b in out.blocks):
        out.blocks.insert(0, Block.text_block(""))
    return out


def _image(out: Converted, data: str, media: str, what: str) -> None:
    if media not in IMAGE_TYPES.values():
        out.problems.append(f"{what} of type {media!r}: not PNG, JPEG, GIF or WebP, left out")
        return
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        out.problems.append(f"{what}: its data is not base64, left out")
        return
    if len(raw) > MAX_IMAGE:
        out.problems.append(f"{what}: larger than 5 MB, left out")
        return
    out.blocks.append(Block.image(media, base64.b64encode(raw).decode("ascii")))


def _name(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _file_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    return Path(unquote(parsed.path))


def _link(out: Converted, b: Any, root: Path, denied: Callable[[str, Path], bool] | None) -> None:
    path = _file_path(b.uri)
    if path is None:  # a web page, an MCP resource: named, not fetched
        out.blocks.append(Block.text_block(f"[{b.name}]({b.uri})"))
        return
    rp = resolve_path(root, str(path))
    name = rp.rel if rp.inside else rp.path.as_posix()
    if not rp.inside:
        out.problems.append(f"@{name}: outside the project, not attached")
    elif denied is not None and denied("read_file", rp.path):
        out.problems.append(denied_line(name))
    else:
        try:
            _read(out, rp.path, name)
        except OSError as e:
            out.problems.append(f"@{name}: cannot read it ({e.strerror or e}), not attached")


def _read(out: Converted, path: Path, name: str) -> None:
    read = read_file(path, name)
    out.blocks += read.blocks
    if read.problem:
        out.problems.append(read.problem)


def _embedded(out: Converted, resource: Any, root: Path) -> None:
    path = _file_path(resource.uri)
    name = _name(path.resolve(), root) if path is not None else resource.uri
    text = getattr(resource, "text", None)
    if isinstance(text, str):
        if len(text.encode("utf-8", errors="replace")) > MAX_TEXT:
            out.problems.append(too_big_text(name))
            return
        out.blocks.append(file_block(name, text))
        return
    media = resource.mime_type or ""
    if media.startswith("image/"):
        _image(out, resource.blob, media, f"@{name}")
    else:
        out.problems.append(f"@{name}: binary content ({media or 'no type'}), not attached")
