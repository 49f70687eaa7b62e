"""Slash commands: the table the completion menu, ``/help`` and the dispatcher share.

The handlers are methods of the app named ``cmd_<name>`` taking the argument text; this module
only knows names, usages and one-line summaries, and how to parse what the user typed.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["COMMANDS", "Command", "complete", "find", "help_markdown", "parse"]


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    usage: str
    summary: str
    aliases: tuple[str, ...] = ()


COMMANDS: tuple[Command, ...] = (
    Command("model", "/model [SPEC]", "pick a model, or switch to SPEC (provider/model)"),
    Command("routing", "/routing", "role -> model -> fallbacks: change, apply a preset, save"),
    Command("effort", "/effort [LEVEL]", "reasoning effort: low, medium, high, max or default"),
    Command("compact", "/compact", "summarise the conversation to free context"),
    Command("clear", "/clear", "start a new session (the old one stays saved)", ("new",)),
    Command("resume", "/resume [ID]", "open an earlier session of this project"),
    Command("cost", "/cost", "tokens and cost so far, per model and per role"),
    Command(
        "permissions", "/permissions [MODE]", "show or set the permission mode: ask, edits, yolo"
    ),
    Command("help", "/help", "this list, and the keys", ("?",)),
    Command("exit", "/exit", "quit (prints how to resume)", ("quit", "q")),
)


def find(name: str) -> Command | None:
    name = name.lower()
    for c in COMMANDS:
        if name == c.name or name in c.aliases:
            return c
    return None


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


def complete(prefix: str) -> list[Command]:
    """Commands whose name (or an alias) starts with ``prefix`` (without the slash)."""
    p = prefix.lower()
    return [c for c in COMMANDS if c.name.startswith(p) or any(a.startswith(p) for a in c.aliases)]


KEYS = (
    ("Enter", "send"),
    ("Shift+Enter, Ctrl+J", "new line"),
    ("Up / Down", "prompt history"),
    ("@path", "attach a file (images too)"),
    ("!command", "run a shell command here and show its output"),
    ("Esc", "interrupt the running turn"),
    ("Ctrl+C twice", "quit"),
)


def help_markdown() -> str:
    rows = "\n".join(f"| `{c.usage}` | {c.summary} |" for c in COMMANDS)
    keys = "\n".join(f"| {k} | {v} |" for k, v in KEYS)
    return f"| command | does |\n|---|---|\n{rows}\n\n| key | does |\n|---|---|\n{keys}\n"
