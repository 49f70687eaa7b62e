"""A file attached to a prompt (``@path``), as every face attaches it.

A prompt typed in the TUI or given to print mode attaches each ``@path`` it names
(:func:`attach`: the files under the project, then the ``@server:URI`` MCP resources); an
editor attaches the files it mentions or embeds (``larik/acp/content.py``). All of them hand
the model the same blocks, made here: a text file as one ``<file path="NAME">`` text block, an
image (PNG, JPEG, GIF, WebP) as an ``Image NAME:`` line and the image. What is missing, outside
the project, too big, binary, not a regular file or (for a model that takes none) an image is
not attached, and the reason comes back in ``problems``, one line each, for the face to say.

Importing this module imports no pydantic (the TUI's first frame comes before it): the blocks'
type is imported when a file is read.
"""

from __future__ import annotations

import base64
import os
import re
import stat
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..llm.types import Block
    from .core import Session

__all__ = [
    "IMAGE_TYPES",
    "Attached",
    "attach",
    "build_prompt",
    "mentions",
    "MAX_IMAGE",
    "MAX_TEXT",
    "Read",
    "file_block",
    "image_blocks",
    "read_file",
    "too_big_text",
]

IMAGE_TYPES = {  # by suffix: the images a prompt may carry
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
MAX_TEXT = 256 * 1024  # bytes of one attached text file
MAX_IMAGE = 5 * 1024 * 1024  # bytes of one attached image
_BINARY_PROBE = 8192  # a NUL byte in the first this many bytes: a binary file


@dataclass
class Read:
    """What attaching one file gave: its blocks, or the one line saying why not."""

    blocks: list[Block] = field(default_factory=list)
    problem: str = ""


def file_block(name: str, text: str) -> Block:
    """A text file attached to a prompt, as the model sees ``@name``."""
    from ..llm.types import Block

    return Block.text_block(f'<file path="{name}">\n{text}\n</file>')


def image_blocks(name: str, media_type: str, data: str) -> list[Block]:
    """An image file attached to a prompt (``data``: base64): a line naming it, the image."""
    from ..llm.types import Block

    return [Block.text_block(f"Image {name}:"), Block.image(media_type, data)]


def too_big_text(name: str) -> str:
    return f"@{name}: larger than {MAX_TEXT // 1024} KB, not attached"


def read_file(path: Path, name: str, *, no_images: str = "") -> Read:
    """Attach the file at ``path``, shown to the model as ``name`` (the caller has checked it
    is one the prompt may attach: inside the project, no deny rule). ``no_images``: the
    model in use, when it takes no images. Raises OSError when the file cannot be read."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        return Read(problem=f"@{name}: not a regular file, not attached")
    media = IMAGE_TYPES.get(path.suffix.lower())
    if media:
        if no_images:
            return Read(
                problem=f"@{name}: {no_images} does not take images, not attached "
                "(/model to pick one that does)"
            )
        if st.st_size > MAX_IMAGE:
            return Read(problem=f"@{name}: image larger than {MAX_IMAGE >> 20} MB, not attached")
        with open(path, "rb") as fh:
            raw = fh.read(MAX_IMAGE + 1)
        if len(raw) > MAX_IMAGE:  # it grew since
            return Read(problem=f"@{name}: image larger than {MAX_IMAGE >> 20} MB, not attached")
        return Read(image_blocks(name, media, base64.b64encode(raw).decode("ascii")))
    if st.st_size > MAX_TEXT:
        return Read(problem=too_big_text(name))
    with open(path, "rb") as fh:
        raw = fh.read(MAX_TEXT + 1)
    if b"\0" in raw[:_BINARY_PROBE]:
        return Read(problem=f"@{name}: a binary file, not attached")
    return Read([file_block(name, raw[:MAX_TEXT].decode("utf-8", errors="replace"))])


_MENTION = re.compile(r"(?:(?<=\s)|^)@((?:\\ |[^\s])+)")


@dataclass
class Attached:
    blocks: list[Block] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def prompt(self) -> str | list[Block]:
        """A plain string when nothing was attached, else the blocks."""
        if not self.files:
            return self.blocks[0].text if self.blocks else ""
        return self.blocks


def mentions(text: str) -> list[str]:
    """The ``@path`` tokens of a prompt, in order, without the ``@`` (``\\ `` is a space)."""
    return [m.group(1).replace("\\ ", " ").rstrip(".,;:!?)") for m in _MENTION.finditer(text)]


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def build_prompt(
    text: str, cwd: Path, skip: Collection[str] = (), *, no_images: str = ""
) -> Attached:
    """``skip``: names of MCP servers; ``@NAME:…`` is their resource, not a path.
    ``no_images``: the model in use, when it does not take images (they are then not attached)."""
    from ..llm.types import Block

    out = Attached(blocks=[Block.text_block(text)])
    root = cwd.resolve()
    for name in dict.fromkeys(mentions(text)):
        if name.partition(":")[0] in skip and ":" in name:
            continue
        try:
            _attach(out, name, root, no_images)
        except (OSError, RuntimeError, ValueError) as e:  # unreadable, a symlink loop, …
            why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            out.problems.append(f"@{name}: cannot read it ({why}), not attached")
    return out


def _attach(out: Attached, name: str, root: Path, no_images: str = "") -> None:
    """Attach file ``name`` (under ``root``) to ``out``, or add the reason it is not."""
    path = (root / os.path.expanduser(name)).resolve()
    if not path.is_file():
        if (root / name).exists() or "/" in name or "." in name:
            out.problems.append(f"@{name}: no such file")
        return
    if not _inside(path, root):
        out.problems.append(f"@{name}: outside the project, not attached")
        return
    read = read_file(path, name, no_images=no_images)
    if read.problem:
        out.problems.append(read.problem)
        return
    out.blocks += read.blocks
    out.files.append(name)


async def attach(session: Session, text: str, cwd: Path) -> Attached:
    """``text`` as the session's next prompt: its ``@path`` files attached (not images when
    the model does not take them), then its ``@server:URI`` MCP resources read."""
    no_images = session.spec if getattr(session.agent, "accepts_images", None) is False else ""
    out = build_prompt(text, cwd, skip=session.resource_names(), no_images=no_images)
    if session.mentions_resources(text):
        got = await session.attach_resources(text)
        out.problems += got.problems
        if got.blocks:
            out.blocks += got.blocks
            out.files += got.names
    return out
