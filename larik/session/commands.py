"""Slash commands, face-neutral: the parser and the built-in commands' names and help lines.

Every face reads the same table: the TUI gives each row a handler (``larik/tui/slash.py``, which
a test walks: every row here has one there), print mode runs ``/name args`` as a custom command
when ``name`` is one, and an editor (ACP) advertises the rows as its available commands. A
custom command may not take a built-in's name or alias (:func:`builtin_names`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..llm.effort import Effort

if TYPE_CHECKING:
    from ..agent.permission_rules import Rule
    from .core import Session

__all__ = [
    "BUILTINS",
    "Builtin",
    "builtin",
    "builtin_names",
    "forget_rule",
    "parse",
    "rules_lines",
]


@dataclass(frozen=True, slots=True)
class Builtin:
    name: str
    usage: str  # "/name [ARG]": the completion menu's and /help's
    summary: str  # the one help line
    aliases: tuple[str, ...] = ()


BUILTINS: tuple[Builtin, ...] = (
    Builtin(
        "model", "/model [SPEC]", "a model for this session (/model default: next start's too)"
    ),
    Builtin("routing", "/routing", "role -> model -> fallbacks: change, apply a preset, save"),
    Builtin("effort", "/effort [LEVEL]", f"reasoning effort: {Effort.words(last=' or ')}"),
    Builtin("init", "/init", "the model writes AGENTS.md for this project (or improves it)"),
    Builtin("compact", "/compact", "summarise the conversation to free context"),
    Builtin("clear", "/clear", "start a new session (the old one stays saved)", ("new",)),
    Builtin("resume", "/resume [ID]", "open an earlier session of this project"),
    Builtin("undo", "/undo", "take back the last turn's file changes (again: the one before)"),
    Builtin("rewind", "/rewind [N]", "go back to before a turn: code, conversation or both"),
    Builtin("fork", "/fork", "go on in a copy of this session (this one is kept)"),
    Builtin("cost", "/cost", "tokens and cost so far, per model and per role"),
    Builtin(
        "export",
        "/export [FORMAT] [PATH]",
        "write the conversation to a file (md, html or jsonl), tool calls and results too",
    ),
    Builtin("copy", "/copy", "copy the last reply to the clipboard"),
    Builtin("find", "/find [TEXT]", "search the conversation, tool output too (also Ctrl+F)"),
    Builtin(
        "permissions",
        "/permissions [MODE or forget N]",
        "the permission mode and rules in effect; forget a session rule",
    ),
    Builtin("jobs", "/jobs", "background jobs: command, runtime, state, last lines; stop one"),
    Builtin("mcp", "/mcp", "MCP servers: state, tools; turn one on or off, reconnect"),
    Builtin("lsp", "/lsp", "language servers: found where, which run, their last diagnostics"),
    Builtin("hooks", "/hooks", "the hooks in effect: event, matcher, command, file"),
    Builtin(
        "trust",
        "/trust [ANSWER]",
        "this folder's trust: what it asks for and why; ANSWER: yes, no or forget",
    ),
    Builtin("theme", "/theme [NAME]", "pick a theme (each shown as you move to it), or set NAME"),
    Builtin("keys", "/keys", "what each key does, and the file that changes them"),
    Builtin("vim", "/vim", "vim-style editing of the prompt: on or off (saved)"),
    Builtin("help", "/help", "this list, and the keys", ("?",)),
    Builtin("exit", "/exit", "quit (prints how to resume)", ("quit", "q")),
)


def builtin(name: str) -> Builtin | None:
    """The built-in command called ``name`` (or with that alias)."""
    name = name.lower()
    return next((b for b in BUILTINS if name == b.name or name in b.aliases), None)


def builtin_names() -> frozenset[str]:
    """The built-in commands' names and aliases: no custom command may take one."""
    return frozenset(n for b in BUILTINS for n in (b.name, *b.aliases))


def parse(text: str) -> tuple[str, str] | None:
    """``"/model  openai/gpt-5 "`` -> ``("model", "openai/gpt-5")``; None when not a command.

    A line that starts with ``//`` or ``/`` followed by a space, or that looks like a path
    (``/usr/bin …``), is a prompt, not a command.
    """
    s = text.strip()
    if not s.startswith("/") or s.startswith("//") or len(s) < 2 or s[1].isspace():
        return None
    head, _, rest = s[1:].partition(" ")
    if "/" in head:
        return None
    return head.lower(), rest.strip()


def rules_lines(rules: list[tuple[str, Rule]]) -> list[str]:
    """The rules in effect as Markdown lines: the config's deny and allow rules, then the
    session's, numbered for ``/permissions forget N``."""
    lines: list[str] = []
    for kind in ("deny", "allow"):
        texts = [r.text for k, r in rules if k == kind]
        if texts:
            lines.append(f"- {kind} (config): " + ", ".join(f"`{t}`" for t in texts))
    mine = [r for k, r in rules if k == "session"]
    if mine:
        lines.append("- allowed for this session (`/permissions forget N` takes one back):")
        lines += [f"  - {n}: `{r.text}`" for n, r in enumerate(mine, start=1)]
    if not rules:
        lines.append("- no allow or deny rules (config `[permissions]`, or *allow always*)")
    return lines


def forget_rule(session: Session, arg: str) -> str:
    """``/permissions forget N`` in any face: the session rule taken back, said in one line
    (Markdown). ValueError, with the line that says why, when ``arg`` names none."""
    if not arg.strip().isdigit():
        raise ValueError(f"/permissions forget N: N is a number, not {arg!r}")
    rule = session.settings.forget_rule(int(arg))
    return f"forgot `{rule.text}`: such calls are asked again"
