"""A file attached to a prompt (``@path``), as every face attaches it.

A prompt typed in the TUI or given to print mode attaches each ``@path`` it names
(:func:`attach`: the files under the project, then the ``@server:URI`` MCP resources); an
editor attaches the files it mentions or embeds (``larik/acp/content.py``); the TUI's pasted
images and image paths (``larik/tui/images.py``) are checked and read here too. All of them
hand the model the same blocks, made here: a text file as one ``<file path="NAME">`` text
block, an image (PNG, JPEG, GIF, WebP) as an ``Image NAME:`` line and the image. What is
missing, outside the project, under a ``read_file`` deny rule, too big, binary, not a regular
file or (for a model that takes none) an image is not attached, and the reason comes back in
``problems``, one line each, for the face to say.

Importing this module imports no pydantic (the TUI's first frame comes before it): the blocks'
type is imported when a file is read.
"""

from __future__ import annotations

import base64
import os
import re
import stat
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..image_bytes import BY_SUFFIX, MAX_IMAGE, image_type

if TYPE_CHECKING:
    from ..llm.types import Block
    from .core import Session

__all__ = [
    "IMAGE_TYPES",
    "Attached",
    "attach",
    "attachable",
    "build_prompt",
    "denied_line",
    "mentions",
    "MAX_IMAGE",
    "MAX_TEXT",
    "no_images_for",
    "PathDenied",
    "Read",
    "file_block",
    "image_blocks",
    "image_type",
    "read_file",
    "read_image",
    "too_big_text",
]

PathDenied = Callable[[str, Path], bool]  # the session's deny rules: (tool, path) -> covered

IMAGE_TYPES = BY_SUFFIX  # by suffix: the images a prompt may carry (larik.image_bytes)
MAX_TEXT = 256 * 1024  # bytes of one attached text file
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


def denied_line(name: str) -> str:
    return f"@{name}: a permissions.deny rule covers it, not attached"


def read_image(name: str, media: str, raw: bytes, *, no_images: str = "") -> Read:
    """An image's bytes attached to a prompt as ``name`` (a file's, or a pasted image's), or
    why not: the model takes no images (``no_images``: the model), or it is too big."""
    problem = _image_refused(name, len(raw), no_images)
    if problem:
        return Read(problem=problem)
    return Read(image_blocks(name, media, base64.b64encode(raw).decode("ascii")))


def _image_refused(name: str, size: int, no_images: str) -> str:
    if no_images:
        return (
            f"@{name}: {no_images} does not take images, not attached "
            "(/model to pick one that does)"
        )
    if size > MAX_IMAGE:
        return f"@{name}: image larger than {MAX_IMAGE >> 20} MB, not attached"
    return ""


def read_file(path: Path, name: str, *, no_images: str = "") -> Read:
    """Attach the file at ``path``, shown to the model as ``name`` (the caller has checked it
    is one the prompt may attach: inside the project, no deny rule). ``no_images``: the
    model in use, when it takes no images. Raises OSError when the file cannot be read."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        return Read(problem=f"@{name}: not a regular file, not attached")
    media = IMAGE_TYPES.get(path.suffix.lower())
    if media:
        problem = _image_refused(name, st.st_size, no_images)  # refused before it is read
        if problem:
            return Read(problem=problem)
        with open(path, "rb") as fh:
            raw = fh.read(MAX_IMAGE + 1)  # more than the limit when it grew since
        return read_image(name, media, raw)
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

    def add(self, name: str, read: Read) -> None:
        """One file (or pasted image) ``name``: its blocks, or the reason it is not attached."""
        if read.problem:
            self.problems.append(read.problem)
            return
        self.blocks += read.blocks
        self.files.append(name)

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
    text: str,
    cwd: Path,
    skip: Collection[str] = (),
    *,
    no_images: str = "",
    denied: PathDenied | None = None,
) -> Attached:
    """``skip``: names of MCP servers; ``@NAME:…`` is their resource, not a path.
    ``no_images``: the model in use, when it does not take images (they are then not attached).
    ``denied``: the session's deny rules (a file a ``read_file`` deny rule covers is not read)."""
    from ..llm.types import Block

    out = Attached(blocks=[Block.text_block(text)])
    root = cwd.resolve()
    for name in dict.fromkeys(mentions(text)):
        if name.partition(":")[0] in skip and ":" in name:
            continue
        try:
            _attach(out, name, root, no_images, denied)
        except (OSError, RuntimeError, ValueError) as e:  # unreadable, a symlink loop, …
            why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            out.problems.append(f"@{name}: cannot read it ({why}), not attached")
    return out


def attachable(name: str, path: Path, root: Path, denied: PathDenied | None = None) -> str:
    """Why the file at ``path`` (resolved), named ``name``, may not be attached to a prompt
    ("" when it may): outside the project ``root`` (resolved), or under a deny rule."""
    if not _inside(path, root):
        return f"@{name}: outside the project, not attached"
    if denied is not None and denied("read_file", path):
        return denied_line(name)
    return ""


def _attach(
    out: Attached, name: str, root: Path, no_images: str = "", denied: PathDenied | None = None
) -> None:
    """Attach file ``name`` (under ``root``) to ``out``, or add the reason it is not."""
    path = (root / os.path.expanduser(name)).resolve()
    if not path.is_file():
        if (root / name).exists() or "/" in name or "." in name:
            out.problems.append(f"@{name}: no such file")
        return
    problem = attachable(name, path, root, denied)
    if problem:
        out.problems.append(problem)
        return
    out.add(name, read_file(path, name, no_images=no_images))


def no_images_for(session: Session) -> str:
    """The session's model when it is known not to take images, else ""."""
    agent = session.agent
    return session.spec if agent is not None and agent.accepts_images is False else ""


async def attach(session: Session, text: str, cwd: Path) -> Attached:
    """``text`` as the session's next prompt: its ``@path`` files attached (not images when
    the model does not take them, nor a file a deny rule covers), then its ``@server:URI`` MCP
    resources read."""
    out = build_prompt(
        text,
        cwd,
        skip=session.servers.resource_names(),
        no_images=no_images_for(session),
        denied=session.settings.path_denied,
    )
    if session.servers.mentions_resources(text):
        got = await session.servers.attach_resources(text)
        out.problems += got.problems
        if got.blocks:
            out.blocks += got.blocks
            out.files += got.names
    return out
