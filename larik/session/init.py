"""``/init``: the model writes the project's ``AGENTS.md`` from the project itself, as Codex,
Claude Code (``CLAUDE.md``) and OpenCode do — a turn on :data:`PROMPT`, through the normal tools
and permission rules (in ask mode the write is a dialog like any other). The file it writes is
the one Larik reads into the system prompt (``larik/agent/prompt.py``: ``AGENTS.md``, else
``CLAUDE.md``); an existing one is improved, not replaced blindly.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .core import Session, Turn

__all__ = ["PROMPT", "init_prompt", "init_turn"]

PROMPT = """\
Write the file AGENTS.md at the root of this project: a guide for coding agents (and people) \
working in this repository.

First look at the project: its README, its build and package files (pyproject.toml, \
package.json, Makefile, Cargo.toml, go.mod, …), its CI configuration, its linter and formatter \
settings, the layout of its source and test folders, and any agent instructions it already has \
(CLAUDE.md, .cursorrules, .cursor/rules/, .github/copilot-instructions.md: carry over what still \
holds).

Then write, in short sections:
- what the project is, in a sentence or two;
- the commands to install, build, lint, format and test it, and how to run a single test;
- how the code is laid out: the main folders and what lives where;
- the code style it follows (formatting, naming, imports, types, error handling), as its code \
and its tool settings show;
- its conventions for tests, commits and pull requests, if it has any.

Only what you found in this project: no generic advice and no guesses; commands exactly as they \
are run here. Keep it under about 150 lines. Write it with the file tools, then say in one or \
two sentences what it covers."""

EXISTING = """

This project has an AGENTS.md already: read it first and improve it — keep what is right, fix \
what is out of date, add what is missing."""


def init_turn(session: Session) -> Turn:
    """The ``/init`` turn, as every face starts it (the lists show it as typed: ``/init``)."""
    return session.send(init_prompt(session.cwd), "/init")


def init_prompt(root: Path) -> str:
    """What ``/init`` asks the model, for the project at ``root``."""
    try:
        exists = (root / "AGENTS.md").is_file()
    except OSError:
        exists = False
    return PROMPT + (EXISTING if exists else "")
