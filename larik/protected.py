"""The project files that decide what Larik runs or allows next time: one list, one test.

A model (or a command it runs) that could rewrite these would choose what runs in the *next*
session — a hook, an MCP server, a command's shell line, a looser permission mode, the
instructions the prompt carries — without the user seeing it happen. So:

- a file tool's write to one of them is always a question for the user, in every mode, yolo
  included (``larik.agent.permissions``): ``edits`` mode, allow rules and "allow always" do not
  cover it, and where nobody can be asked (print mode, bench) it is denied;
- the OS sandbox keeps them read-only for bash (``larik.sandbox``).

It holds what decides what *git* runs too (``.git/hooks/``, ``.git/config``, …): a model's
``write_file`` of ``.git/hooks/pre-commit`` would run at the user's next commit, outside any
sandbox. And what that config points git at, wherever it is (:mod:`larik.git_followed`: a
``core.hooksPath`` folder, an ``include.path`` file, a program a key names), read from the
repository's config and read again when it changes.

:data:`PROTECTED` is the list, as patterns relative to a folder. Each matches at any depth of
the project (``sub/.mcp.json`` too): Larik finds a project's config from the folder it starts
in, so a nested copy is what a run started there would read. Names are compared case-folded
(on a case-insensitive file system ``.Claude/Settings.json`` is the same file).
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

from . import git_followed

__all__ = ["INSTRUCTION_FILES", "PROTECTED", "is_protected", "protected_pattern"]

#: The project's instruction files that the prompt reads (larik.agent.prompt), in its order.
INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")

#: What decides what Larik runs or allows next time. ``DIR/**`` is the folder and everything
#: under it; a ``*`` matches within one name.
PROTECTED: tuple[str, ...] = (
    ".larik/**",  # config.toml (hooks, MCP servers, modes, allow rules), commands, skills
    ".mcp.json",  # MCP servers, the format other agents share
    ".claude/settings*.json",  # Claude Code's settings: their hooks run
    ".claude/hooks/**",
    ".claude/commands/**",  # a command's !`…` shell lines run
    ".claude/skills/**",
    ".claude/agents/**",
    ".agents/skills/**",
    *INSTRUCTION_FILES,
    # what the user's own git runs on the host: hooks, the config naming programs
    # (core.fsmonitor, core.hooksPath, filters), a .git file pointing elsewhere
    ".git",  # the name itself (a .git file, a folder put in its place), not what is inside:
    # commits, branches and the index must still work; only the entries below are kept
    ".git/config",
    ".git/config.worktree",
    ".git/commondir",
    ".git/hooks/**",
    ".git/info/attributes",
    ".git/modules/*/config",
    ".git/modules/*/hooks/**",
    ".git/worktrees/*/config.worktree",
    ".git/worktrees/*/commondir",
)


def protected_pattern(path: Path | str, root: Path) -> str | None:
    """The entry of :data:`PROTECTED` that ``path`` falls under, or None. ``path`` is taken
    relative to ``root`` when it is inside it, else as it is; both the path as written and the
    path with symlinks followed are checked (a link named ``notes`` that points at
    ``.mcp.json`` writes ``.mcp.json``; a ``.mcp.json`` that is a link writes through it)."""
    root = Path(os.path.abspath(root))
    p = Path(path).expanduser()
    lexical = Path(os.path.normpath(p if p.is_absolute() else root / p))
    candidates = [lexical]
    try:
        real = lexical.resolve()
    except (OSError, RuntimeError):
        real = lexical
    if real != lexical:
        candidates.append(real)
    try:
        real_root = root.resolve()
    except (OSError, RuntimeError):
        real_root = root
    for c in candidates:
        for base in (root, real_root):
            if c.is_relative_to(base):
                parts = c.relative_to(base).parts
                break
        else:
            parts = c.parts[1:]  # outside the project: its whole path
        hit = _match(tuple(s.casefold() for s in parts))
        if hit is not None:
            return hit
    return followed_by_git(candidates, root)


def followed_by_git(paths: list[Path], root: Path) -> str | None:
    """Why git follows one of ``paths`` (absolute) out of the config of the repository
    ``root`` is in (:mod:`larik.git_followed`: a hooks folder, an included config, a program
    a key names), or None."""
    for target in git_followed.targets(root):
        for p in paths:
            if target.covers(p):
                return target.why
    return None


def is_protected(path: Path | str, root: Path) -> bool:
    """Whether writing ``path`` would change what Larik runs or allows next time."""
    return protected_pattern(path, root) is not None


_RULES = tuple((p, tuple(p.casefold().split("/"))) for p in PROTECTED)


def _match(parts: tuple[str, ...]) -> str | None:
    for start in range(len(parts)):
        tail = parts[start:]
        for pattern, rule in _RULES:
            if rule[-1] == "**":
                head = rule[:-1]
                ok = len(tail) >= len(head) and all(
                    fnmatch.fnmatchcase(t, r) for t, r in zip(tail, head, strict=False)
                )
            else:
                ok = len(tail) == len(rule) and all(
                    fnmatch.fnmatchcase(t, r) for t, r in zip(tail, rule, strict=True)
                )
            if ok:
                return pattern
    return None
