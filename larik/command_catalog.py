"""What a custom command is once read (:class:`CustomCommand`: its name, scope, body and front
matter, what it takes and how /help shows it) and the commands a session can run
(:class:`CommandCatalog`: found by name, by a namespaced name's last part, by prefix).
:mod:`larik.custom_commands` finds them; :mod:`larik.command_expand` expands one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import frontmatter
from .command_files import SHELL_LINE as _SHELL
from .command_shell_line import ARG as _ARG

__all__ = ["CommandCatalog", "CustomCommand"]


@dataclass(frozen=True)
class CustomCommand:
    name: str  # "review", "frontend:review" (lowercase)
    path: Path
    scope: str  # "user" or "project"
    where: str  # what /help shows: "user", "project", "project:frontend"
    body: str
    digest: str  # SHA-256 of the file's bytes, as trusted
    description: str = ""
    argument_hint: str = ""
    model: str = ""
    allowed_tools: tuple[str, ...] = ()

    @property
    def short(self) -> str:
        return self.name.rpartition(":")[2]

    @property
    def has_shell(self) -> bool:
        return bool(_SHELL.search(self.body))

    def hint(self) -> str:
        """What the command takes: its ``argument-hint``, else what its body uses
        (``$ARGUMENTS`` → ``[arguments]``, ``$1 $2`` → ``[arg1] [arg2]``), else nothing."""
        if self.argument_hint:
            return self.argument_hint
        keys = set(_ARG.findall(self.body))
        if "ARGUMENTS" in keys:
            return "[arguments]"
        return " ".join(f"[arg{n}]" for n in sorted(int(k) for k in keys))

    def usage(self) -> str:
        return f"/{self.name} {self.hint()}".rstrip()

    def summary(self) -> str:
        """The description; else the body's first line, its placeholders shown as ``…`` (the
        usage column names the arguments: /help showed "Say hello to $ARGUMENTS")."""
        text = self.description or _ARG.sub("…", _first_line(self.body)) or "(no description)"
        return f"{text} ({self.where})"


@dataclass(frozen=True)
class CommandCatalog:
    commands: tuple[CustomCommand, ...] = ()
    problems: tuple[str, ...] = ()

    def find(self, name: str) -> CustomCommand | None:
        """By full name; else by the last part of a namespaced name when only one has it."""
        key = name.lower()
        for c in self.commands:
            if c.name == key:
                return c
        matches = [c for c in self.commands if c.short == key]
        return matches[0] if len(matches) == 1 else None

    def ambiguous(self, name: str) -> list[CustomCommand]:
        key = name.lower()
        matches = [c for c in self.commands if c.short == key]
        return matches if len(matches) > 1 and self.find(name) is None else []

    def complete(self, prefix: str) -> list[CustomCommand]:
        p = prefix.lower()
        return [c for c in self.commands if c.name.startswith(p) or c.short.startswith(p)]


def _first_line(body: str) -> str:
    for line in body.splitlines():
        if line.strip():
            return frontmatter.one_line(line.strip().lstrip("#").strip(), 80)
    return ""
