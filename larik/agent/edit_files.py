"""What the edit workflow reads and writes: the one place it touches the project's files.

The harness reads files for the model (the first message, a refused edit's current text, the
functions a failing test calls, the line it asks for) and writes the model's edits and its own
scratch file (:mod:`.own_tests`). Each is what a tool call would do, under the same rules:

* **a read is read_file's**: a path of the project (inside its root after symlinks) that no
  ``permissions.deny`` rule on read_file covers; a regular file — a FIFO, socket or device is
  refused before it is opened, by the function the file tools open with
  (``tools._files.open_regular``, through ``read_text``); at most :data:`MAX_BYTES`, and no
  more is read of a bigger file; UTF-8 text. Anything else reads as nothing, and an edit of it
  is refused with the reason (:func:`current`): its content never reaches the model or the
  transcript. (Before, a block on a denied file whose search did not match sent the whole file
  back as "the current content of" it; a FIFO blocked the event loop; a 300 MB file was read
  whole.)
* **a write is a write_file call** (:func:`write_call`) that the workflow runs through the tool
  runner, as the model's own call would run: the permission policy (deny rules, questions,
  protected files), PreToolUse/PostToolUse hooks, the checkpoint before the first change, the
  events a face shows.
* **a path a reply gives is placed only when it is plainly a file of the project**
  (:func:`place`): relative, with no ``~``, ``$VAR``, drive or ``..`` in it, inside the root
  after symlinks. A reply the harness cannot place is refused with a line to the model, never
  written elsewhere (a whole file headed ``~/pwn.txt`` went into the request's own file).

The one removal is the harness's own scratch file at the end of the turn that wrote it
(:func:`remove_own`). No other module of the workflow opens, reads, writes or removes a file:
tests/agent/test_edit_io.py walks them.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..llm.types import Block
from ..paths import resolve_path, shown

__all__ = [
    "MAX_BYTES",
    "Current",
    "Denied",
    "current",
    "place",
    "project_files",
    "read_shown",
    "remove_own",
    "write_call",
]

MAX_BYTES = 60_000  # the most read of one file; a bigger one is not put in a message or edited
OUTSIDE = "outside the project: nothing outside it is read or written"

#: whether a ``permissions.deny`` rule on read_file covers a path (given as the project names
#: it: the policy follows links itself); None: no rules (a unit test's)
Denied = Callable[[Path], bool]

_ids = itertools.count(1)
_DRIVE = re.compile(r"^[A-Za-z]:")
_SEPARATOR = re.compile(r"[\\/]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Current:
    """A file of the project as read_file could show it now."""

    text: str | None  # None: no such file, or not to be read (``why``)
    why: str = ""  # why it is not read ("" when read, or when there is no such file)


def current(root: Path, rel: str, denied: Denied | None) -> Current:
    """The file ``rel`` of the project at ``root`` as it is now, read by read_file's rules."""
    rp = resolve_path(root, rel)
    if not rp.inside:
        return Current(None, OUTSIDE)
    if not rp.path.exists():  # nothing there, or a link to nothing
        return Current(None)
    if denied is not None and (denied(root.resolve() / rel) or denied(rp.path)):
        return Current(None, "a deny rule covers reading it (read_file): not read, not changed")
    from .tools import ToolError
    from .tools._files import read_text

    try:
        return Current(read_text(rp.path, shown(rp.rel), limit=MAX_BYTES))
    except ToolError as e:
        return Current(None, f"not read, not changed: {e}")


def project_files(root: Path, denied: Denied | None) -> list[str]:
    """The project's files a file tool may see (the listing glob and grep use:
    ``tools._files.visible_files``): regular files inside the root after symlinks, .gitignore
    respected, none a deny rule covers. ``root`` is resolved."""
    from .tools._files import visible_files

    return visible_files(root, root, denied)


def read_shown(root: Path, rel: str, denied: Denied | None) -> str | None:
    """The text of ``rel`` as read_file could show it now (:func:`current`); None otherwise."""
    return current(root, rel, denied).text


def place(root: Path, raw: str) -> tuple[str, str]:
    """Where a path a reply gives is in the project: (the path relative to the root, "") or
    ("", why it is not placed)."""
    odd = _odd(raw)
    if odd:
        return "", (
            f"not a path of the project ({odd}): give the path relative to the project's root, "
            "as the files were shown; nothing outside the project is read or written"
        )
    rp = resolve_path(root, raw)
    if not rp.inside:
        return "", OUTSIDE
    return rp.rel, ""


def _odd(raw: str) -> str:
    """What makes ``raw`` no plain relative path of the project ("" when it is one)."""
    if not raw.strip():
        return "no path"
    if _CONTROL.search(raw):
        return "control characters in it"
    if raw.startswith("~"):
        return "a home folder, ~"
    if raw.startswith(("$", "%")):
        return "a variable"
    if raw.startswith(("/", "\\")) or _DRIVE.match(raw):
        return "an absolute path"
    if "://" in raw:
        return "an address"
    parts = _SEPARATOR.split(raw)
    if ".." in parts:
        return "a path with .. in it"
    if any(p.endswith((".", " ")) and p != "." for p in parts):
        return "a name ending in a dot or a space"
    return ""


def write_call(rel: str, content: str, *, confirm: bool = False) -> Block:
    """The write_file call that makes ``rel``'s content ``content``, for the tool runner.
    ``confirm``: the harness means a write that removes most of the file's definitions (its
    own scratch file, cut down to the tests that hold)."""
    args: dict[str, object] = {"path": rel, "content": content}
    if confirm:
        args["confirm_destructive"] = True
    return Block.tool_use(f"write_{next(_ids)}", "write_file", args)


def remove_own(root: Path, rel: str) -> None:
    """Take away the harness's own scratch file ``rel`` (the link itself, were a command to
    have made it one), which it wrote through the tool runner this turn."""
    with contextlib.suppress(OSError):
        os.unlink(root / rel)
