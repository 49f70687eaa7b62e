"""The system prompt, in two layers.

``prefix(role, tools)`` is the stable part: who the agent is, its tools and its rules. It depends
only on the role and the tool set, so it is identical for every request of a session and
providers can cache it. ``session_context(root)`` is gathered once per session: working
directory, platform, date, a git summary and the project's AGENTS.md (CLAUDE.md if there is
none). A request sends ``system=[prefix, context]``.
"""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from ..protected import INSTRUCTION_FILES  # one list: the files a model must not rewrite unasked

if TYPE_CHECKING:
    from .skills import SkillCatalog

__all__ = ["INSTRUCTION_FILES", "prefix", "session_context", "skills_section"]

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
_SHORT_RULES = (
    ("", "Rules:"),
    ("edit_file", "- Read a file with read_file before you change it."),
    (
        "edit_file",
        "- To change part of a file, use edit_file: copy old_string exactly from the file.",
    ),
    ("write_file", "- Use write_file only to create a new file."),
    ("bash", "- After a change, run the tests with bash."),
    ("", "- If a call fails, read the error and change something. Never repeat the same call."),
    ("", "- When the task is done, reply with a short answer and no tool call."),
)


#: files listed for a small model, which will not look for them itself
SMALL_LISTING = 40


def prefix(
    role: str | None, tools: list[str], small: bool = False, root: Path | None = None
) -> str:
    """``small``: the short rules for a small model (see :mod:`.profile`), and with ``root``
    the project's files (up to ``SMALL_LISTING``): a small model guesses paths otherwise."""
    head = _MAIN if role in (None, "", "main") else _SUBAGENT.format(role=role)
    parts = [head]
    if role == "explore":
        parts.append(_EXPLORE)
    if tools:
        parts.append("Your tools: " + ", ".join(tools) + ".")
        if small:
            parts.append(
                "\n".join(line for need, line in _SHORT_RULES if not need or need in tools)
            )
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
        lines.append(f"- … {catalog.unlisted} more skills not listed")
    return "\n".join(lines)


def _listing(root: Path) -> str:
    from .paths import shown
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


def session_context(root: Path, today: date | None = None) -> str:
    lines = [
        "Session context:",
        f"- Working directory (project root): {root}",
        f"- Platform: {platform.system()} {platform.release()}",
        f"- Date: {(today or date.today()).isoformat()}",
    ]
    lines += _git_summary(root)
    text = "\n".join(lines)
    instructions = project_instructions(root)
    if instructions:
        name, body = instructions
        text += f"\n\nProject instructions from {name}:\n\n{body}"
    return text


def project_instructions(root: Path) -> tuple[str, str] | None:
    for name in INSTRUCTION_FILES:
        p = root / name
        if p.is_file():
            body = p.read_text(encoding="utf-8", errors="replace").strip()
            if len(body) > MAX_INSTRUCTIONS:
                body = (
                    body[:MAX_INSTRUCTIONS] + f"\n[… {name} cut at {MAX_INSTRUCTIONS} characters]"
                )
            return name, body
    return None


# reading the project's repository must not change it (no index refresh written back) nor
# run what its .git/config names (an fsmonitor program, hooks)
_READ_ONLY_GIT = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null")


def _git(root: Path, *args: str) -> str | None:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    try:
        proc = subprocess.run(
            ["git", *_READ_ONLY_GIT, *args],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
            env=env,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


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
        out.append(f"- Git status: {len(status)} changed or untracked file(s):")
        out += [f"    {s}" for s in status[:MAX_STATUS_LINES]]
        if len(status) > MAX_STATUS_LINES:
            out.append(f"    … and {len(status) - MAX_STATUS_LINES} more")
    return out
