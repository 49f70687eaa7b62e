"""The editor a session runs in, when it does the tools' file I/O and runs their commands.

An editor that drives Larik over ACP may offer to read and write files for the tools
(``fs/read_text_file``, ``fs/write_text_file``: an edit then sees the editor's unsaved buffer,
and the editor shows the change for review) and to run commands in its own terminal
(``terminal/*``). ``ToolContext.editor`` is that editor (``larik/acp/editor.py``); None — the
TUI, print mode, bench, an editor that offers neither — and the tools do their own I/O.

What stays Larik's, always, before the editor is asked: the permission check (deny rules, the
project root, the mode, the user's approval), the regular-file check (no FIFO, device or file
of /proc is touched), the OS sandbox a command runs in (the editor's terminal runs the same
``bwrap`` command line, with the same environment without credentials), the command's
timeout, and the bounds on what comes back (:data:`MAX_TEXT` of a file, the bash tool's tail
of a command's output). What the editor answers is text from another party: an error, an
answer over the bound, are a tool error the model sees.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

__all__ = ["MAX_TEXT", "Editor", "EditorRun"]

MAX_TEXT = 8 << 20  # characters of one file the editor may hand a tool


@dataclass(slots=True)
class EditorRun:
    """How a command run in the editor's terminal ended."""

    output: str
    exit_code: int | None  # None: ended by a signal (``signal`` says which, if known)
    signal: str = ""
    truncated: bool = False  # the editor kept only the end of the output
    timed_out: bool = False


class Editor(Protocol):
    reads: bool  # file tools read through it
    writes: bool  # file tools write through it
    runs: bool  # bash runs in its terminal

    async def read_text(self, path: Path) -> str:
        """``path``'s text as the editor has it (its buffer); ToolError when it cannot."""
        ...

    async def write_text(self, path: Path, text: str) -> None:
        """Make ``path``'s content ``text``; ToolError when it cannot."""
        ...

    async def run(self, argv: list[str], cwd: Path, timeout: float) -> EditorRun:
        """Run ``argv`` in ``cwd``; killed at ``timeout`` seconds, or when cancelled."""
        ...
