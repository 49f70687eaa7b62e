"""The system prompt, in two layers.

``prefix(role, tools)`` is the stable part: who the agent is, its tools and its rules. It depends
only on the role and the tool set, so it is identical for every request of a session and
providers can cache it. ``session_context(root)`` is gathered once per session: working
directory, platform, date, a git summary and the project's AGENTS.md (CLAUDE.md if there is
none). A request sends ``system=[prefix, context]``.

An instruction file is the project's text sent to the model, so it is read only when it is a
regular text file inside the project once symlinks are resolved, no ``permissions.deny`` rule
for ``read_file`` covers it, and at most :data:`MAX_INSTRUCTIONS` characters of it (a bounded
read): ``AGENTS.md -> /proc/self/environ`` or ``-> ~/.ssh/id_rsa`` must not put the user's keys
in the prompt, nor a FIFO hang the start. A file refused is named in one line, with why
(:attr:`Instructions.skipped`; the agent shows it as a warning notice), and the next file is
tried. ``@path`` lines in CLAUDE.md are not followed: they reach the model as text.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from .. import host_programs
from ..protected import INSTRUCTION_FILES  # one list: the files a model must not rewrite unasked
from ..words import count

if TYPE_CHECKING:
    from .skills import SkillCatalog

__all__ = [
    "INSTRUCTION_FILES",
    "Instructions",
    "prefix",
    "project_instructions",
    "session_context",
    "skills_section",
]

MAX_INSTRUCTIONS = 20_000
MAX_STATUS_LINES = 20

_MAIN = """You are Larik, a coding agent working in the user's project from their terminal.
You read, search, edit and run code with your tools, and you finish the task you are given."""

_SUBAGENT = """You are a Larik subagent with the role {role}. Another agent gave you one \
self-contained job; you cannot ask it questions. Do the job, then reply with a complete, \
self-contained final answer: it is all the other agent will see."""

_EXPLORE = """You may only read and search (no edits, no commands). Report what you found with \
file paths and line numbers."""

_RULES = """Rules:
- Read a file before you edit it; change files with edit_file (exact text, unique match) or \
write_file (whole file). Keep changes minimal and in the project's style.
- Paths are relative to the project root. Stay inside the project unless asked otherwise.
- Use glob and grep to find things rather than guessing paths.
- Run the project's tests or the code you changed with bash when you can, and fix what fails.
- A tool result starting with "permission denied" means the user or their settings refused that \
call: do not retry it the same way; change approach or explain what you need.
- Independent read-only calls (read_file, glob, grep) may be made together in one reply.
- Be concise. When you are done, say briefly what you changed and how you checked it."""


#: the rules for a small model (profile.py): short, one instruction a line, only its tools'
#: ("#": read_file shows line numbers; "-answer": no answer tool)
_SHORT_RULES = (
    ("", "Rules:"),
    ("edit_file", "- Read a file with read_file before you change it."),
    (
        "edit_file",
        "- To change part of a file, use edit_file: copy old_string exactly from the file.",
    ),
    (
        "#",
        "- The numbers read_file puts before each line are not part of the file: never copy them.",
    ),
    ("write_file", "- Use write_file only to create a new file."),
    ("bash", "- After a change, run the tests with bash."),
    ("", "- If a call fails, read the error and change something. Never repeat the same call."),
    ("-answer", "- When the task is done, reply with a short answer and no tool call."),
    ("answer", "- As soon as you have what the task asks for, call answer with your answer."),
)


#: files listed for a small model, which will not look for them itself
SMALL_LISTING = 40


def prefix(
    role: str | None,
    tools: list[str],
    small: bool = False,
    root: Path | None = None,
    line_numbers: bool = True,
) -> str:
    """``small``: the short rules for a small model (see :mod:`.profile`), and with ``root``
    the project's files (up to ``SMALL_LISTING``): a small model guesses paths otherwise.
    ``line_numbers``: read_file shows them (a small model is told not to copy them)."""
    head = _MAIN if role in (None, "", "main") else _SUBAGENT.format(role=role)
    parts = [head]
    if role == "explore":
        parts.append(_EXPLORE)
    if tools:
        parts.append("Your tools: " + ", ".join(tools) + ".")
        if small:
            have = {*tools, *(["#"] if line_numbers and "read_file" in tools else [])}
            have |= set() if "answer" in tools else {"-answer"}
            parts.append("\n".join(line for need, line in _SHORT_RULES if not need or need in have))
            if root is not None:
                parts.append(_listing(root))
        else:
            parts.append(_RULES)
    else:
        parts.append("You have no tools in this session: answer from the conversation alone.")
    return "\n\n".join(parts)


def skills_section(catalog: SkillCatalog | None) -> str:
    """The skills the model may load: names and descriptions only (the skill tool loads the
    rest). Added to the session context; "" when there are none."""
    if not catalog:
        return ""
    lines = [
        "",
        "",
        "Skills (instructions for particular tasks; when a task matches a description, load "
        "that skill with the skill tool first and follow it):",
    ]
    lines += [f"- {s.name}: {s.description}" for s in catalog.skills]
    if catalog.unlisted:
        lines.append(f"- … {count(catalog.unlisted, 'more skill')} not listed")
    return "\n".join(lines)


def _listing(root: Path) -> str:
    from ..paths import shown
    from .tools._files import list_files

    try:
        files = list_files(root)
    except OSError:
        return ""
    head = [shown(f) for f in files[:SMALL_LISTING]]
    if not head:
        return "The project has no files yet."
    more = f"\n(and {len(files) - SMALL_LISTING} more)" if len(files) > SMALL_LISTING else ""
    return "The project's files:\n" + "\n".join(head) + more


PathDenied = Callable[[str, Path], bool]  # PermissionPolicy.denies_path: (tool, path) -> bool


@dataclass(frozen=True, slots=True)
class Instructions:
    """The project's instruction file as the prompt gets it."""

    name: str = ""  # the file read ("" when none was)
    body: str = ""
    skipped: tuple[str, ...] = ()  # one line per instruction file that was not read, and why


def session_context(
    root: Path, today: date | None = None, instructions: Instructions | None = None
) -> str:
    """``instructions``: the project's, already read (else read here, with no deny rules)."""
    lines = [
        "Session context:",
        f"- Working directory (project root): {root}",
        f"- Platform: {platform.system()} {platform.release()}",
        f"- Date: {(today or date.today()).isoformat()}",
    ]
    lines += _git_summary(root)
    text = "\n".join(lines)
    found = instructions if instructions is not None else project_instructions(root)
    if found.name:
        text += f"\n\nProject instructions from {found.name}:\n\n{found.body}"
    return text


def project_instructions(root: Path, denied: PathDenied | None = None) -> Instructions:
    """The first of :data:`INSTRUCTION_FILES` that may be read (see the module's docstring);
    ``denied`` is the session's deny-rule check (:meth:`PermissionPolicy.denies_path`)."""
    root = root.resolve()
    skipped: list[str] = []
    for name in INSTRUCTION_FILES:
        path = root / name
        if not os.path.lexists(path):
            continue
        try:
            body = _read_instructions(root, path, denied)
        except _Skipped as e:
            skipped.append(f"{name} was not read into the system prompt: {e}")
            continue
        return Instructions(name, body, tuple(skipped))
    return Instructions(skipped=tuple(skipped))


class _Skipped(Exception):
    pass


def _read_instructions(root: Path, path: Path, denied: PathDenied | None) -> str:
    from ..paths import shown
    from . import tools
    from .tools._files import open_regular, special_kind

    try:
        real = path.resolve(strict=True)
    except FileNotFoundError:
        raise _Skipped("it is a symlink to nothing") from None
    except (OSError, RuntimeError) as e:
        raise _Skipped(f"it cannot be read ({getattr(e, 'strerror', None) or e})") from None
    if not real.is_relative_to(root):
        raise _Skipped(f"it leads outside the project (to {shown(str(real))})")
    if denied is not None and denied("read_file", path):
        raise _Skipped("a permissions.deny rule covers it")
    try:
        kind = special_kind(os.stat(real), real)
        if kind:
            raise _Skipped(f"it is {kind}, not a regular file")
        with open_regular(real, path.name) as fh:
            data = fh.read(MAX_INSTRUCTIONS * 4 + 1)  # bounded: UTF-8 is at most 4 bytes a char
    except OSError as e:
        raise _Skipped(f"it cannot be read ({e.strerror or e})") from None
    except tools.ToolError as e:  # swapped for something else since the check above
        raise _Skipped(str(e)) from None
    if b"\0" in data[:8192]:
        raise _Skipped("it is a binary file")
    body = data.decode("utf-8", errors="replace").strip()
    if len(data) > MAX_INSTRUCTIONS * 4 or len(body) > MAX_INSTRUCTIONS:
        body = body[:MAX_INSTRUCTIONS] + f"\n[… {path.name} cut at {MAX_INSTRUCTIONS} characters]"
    return body


def _git(root: Path, *args: str) -> str | None:
    out = host_programs.project_git(args, root, timeout=5)
    return None if out is None else out.decode("utf-8", "replace")


def _git_summary(root: Path) -> list[str]:
    branch = _git(root, "rev-parse", "--abbrev-ref", "HEAD")
    if branch is None:
        if _git(root, "rev-parse", "--is-inside-work-tree") is None:
            return ["- Git: not a git repository"]
        branch = "(no commits yet)"
    status = (_git(root, "status", "--short") or "").splitlines()
    out = [f"- Git branch: {branch.strip()}"]
    if not status:
        out.append("- Git status: clean")
    else:
        out.append(f"- Git status: {count(len(status), 'changed or untracked file')}:")
        out += [f"    {s}" for s in status[:MAX_STATUS_LINES]]
        if len(status) > MAX_STATUS_LINES:
            out.append(f"    … and {len(status) - MAX_STATUS_LINES} more")
    return out
