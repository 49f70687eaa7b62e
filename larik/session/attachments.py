"""A file attached to a prompt (``@path``), as every face attaches it.

The TUI attaches the ``@path`` a user types (``larik/tui/attachments.py``), an editor the files
it mentions or embeds (``larik/acp/content.py``); both hand the model the same blocks, made
here: a text file as one ``<file path="NAME">`` text block, an image (PNG, JPEG, GIF, WebP) as
an ``Image NAME:`` line and the image. What is too big, binary, not a regular file or (for a
model that takes none) an image is not attached, and :func:`read_file` says why, in one line.

Importing this module imports no pydantic (the TUI's first frame comes before it): the blocks'
type is imported when a file is read.
"""

from __future__ import annotations

import base64
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..llm.types import Block

__all__ = [
    "IMAGE_TYPES",
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
