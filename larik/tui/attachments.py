"""``@path`` in a prompt: completing paths and attaching the files to the turn.

``build_prompt(text, cwd)`` keeps the text as typed and adds the blocks of each ``@path`` that
names a file under the project, as every face attaches a file (``larik/session/attachments.py``:
a text block with the file's content, or an image block for PNG, JPEG, GIF and WebP). Files that are missing, outside the project, binary or too big are not attached;
the reason comes back in ``problems`` so the view can say so. Neither are images when the model
is known not to take them (``no_images``: its name; the catalog's word, the server's, or a
refusal earlier in the session: ``Agent.accepts_images``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..session.attachments import read_file

if TYPE_CHECKING:  # imported where used: no pydantic before the TUI's first frame
    from ..llm.types import Block
    from ..session import Session

__all__ = ["Attached", "attach", "build_prompt", "complete_path", "mentions"]

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


def complete_path(partial: str, cwd: Path, limit: int = 50) -> list[str]:
    """Paths under ``cwd`` that complete ``partial`` (directories end with ``/``).

    Hidden entries are listed only when ``partial``'s last part starts with a dot.
    """
    base, _, stem = partial.rpartition("/")
    directory = (cwd / base) if base else cwd
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    out: list[str] = []
    for name in names:
        if not name.startswith(stem) or (name.startswith(".") and not stem.startswith(".")):
            continue
        full = f"{base}/{name}" if base else name
        try:
            if (directory / name).is_dir():
                full += "/"
        except OSError:  # cannot tell: offer it as a file
            pass
        out.append(full)
        if len(out) >= limit:
            break
    return out
