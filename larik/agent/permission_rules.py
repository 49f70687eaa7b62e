"""Permission rules: what a ``"TOOL: PATTERN"`` rule matches and covers, where a command
writes, and the narrowest rule that would cover a command (what "allow always" remembers and
what a refusal suggests). The policy that applies them is :mod:`.permissions`."""

from __future__ import annotations

import fnmatch
import glob
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .. import shell
from ..llm.errors import ConfigError
from ..modes import Mode
from ..paths import resolve_path
from ..refusal import Refusal
from ..tool_contract import AnyTool
from ..tool_names import parse_rule

__all__ = ["HARMLESS_WRITES", "Rule", "narrow_rule", "rule_for", "unasked", "writes"]

HARMLESS_WRITES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty")


@dataclass(frozen=True, slots=True)
class Rule:
    tool: str
    pattern: str
    text: str
    exact: bool = False  # "allow always" on a compound command: exactly that command

    @classmethod
    def parse(cls, text: str, where: str = "permissions") -> Rule:
        try:
            tool, pattern = parse_rule(text)
        except ValueError as e:
            raise ConfigError(f"{where}: {e}") from None
        return cls(tool, pattern, text)

    def matches(self, tool: str, targets: list[str]) -> bool:
        """A plain glob match of the pattern against any of the targets (deny rules, paths)."""
        if not fnmatch.fnmatchcase(tool, self.tool):
            return False
        if self.exact:
            return self.pattern in targets
        pat = str(Path(self.pattern).expanduser()) if self.pattern.startswith("~") else self.pattern
        return any(fnmatch.fnmatchcase(t, pat) for t in targets)

    def covers(self, tool: str, command: str) -> bool:
        """Whether this allow rule covers one simple command (its words after quote removal).
        A trailing ``*`` right after a word ends that word: ``git status*`` covers ``git status``
        and ``git status …``, not ``git statusx`` (nor ``pytest*`` ``pytest=1 touch …``)."""
        if self.exact or not fnmatch.fnmatchcase(tool, self.tool):
            return False
        p = self.pattern
        if len(p) > 1 and p.endswith("*") and not p[-2].isspace():
            stem = p[:-1]
            return fnmatch.fnmatchcase(command, stem) or fnmatch.fnmatchcase(command, stem + " *")
        return fnmatch.fnmatchcase(command, p)


def writes(script: shell.ShellScript, root: Path) -> tuple[list[str], list[str]]:
    """The redirection targets outside the project root, and doubts about the targets whose
    place is known only when the command runs (``> $OUT``, a relative path after ``cd``,
    any path once the command makes a link with ``ln``)."""
    outside: list[str] = []
    doubts: list[str] = []
    for w in script.writes:
        v = w.value
        if v in HARMLESS_WRITES:
            continue
        if v is None:
            doubts.append(f"it writes to {shell.short(w.raw)}, a path known only when it runs")
        elif script.makes_links:
            doubts.append(
                f"it writes to {shell.short(v)} and makes a link (ln) that may lead elsewhere"
            )
        elif script.changes_dir and not v.startswith(("/", "~")):
            doubts.append(f"it writes to {shell.short(v)} after changing directory")
        elif not resolve_path(root, v).inside:
            outside.append(v)
    return outside, doubts


def rule_for(tool_name: str, cmd: shell.SimpleCommand, *, narrow: bool) -> Rule | None:
    """A rule covering this simple command: its name and its words up to its first operand
    (``git status*``, ``python -m pytest*``), or just its name when it has none (``ls*``).
    When a word before the first operand is known only when it runs: None if ``narrow``
    (the rule would be wider than the call), else just the name."""
    words = cmd.words
    end = 1
    for i, w in enumerate(words[1:], 1):
        if w.value is None:
            if narrow:
                return None
            break
        if not w.value.startswith("-"):
            end = i + 1
            break
    if words[0].value is None:
        return None
    prefix = glob.escape(" ".join(w.text for w in words[:end]))
    rule = Rule(tool_name, f"{prefix}*", f"{tool_name}: {prefix}*")
    return rule if rule.covers(tool_name, cmd.text) else None


def narrow_rule(tool_name: str, command: str, root: Path) -> Rule | None:
    """The narrowest rule covering this command, when it is one simple command that a rule
    can cover at all."""
    script = shell.parse(command)
    if script.unvouched or len(script.commands) != 1 or any(writes(script, root)):
        return None
    return rule_for(tool_name, script.commands[0], narrow=True)


def unasked(tool: AnyTool, args: Any, reason: str, mode: Mode, root: Path) -> Refusal:
    """A call this mode asks about, with no one to ask: what would let it through."""
    what = {"write": "file changes", "exec": "commands", "fetch": "fetches"}
    why = f" ({reason})" if reason else ""
    refusal = Refusal(
        f"{tool.name} needs approval in {str(mode)!r} permission mode{why}",
        unasked=True,
        mode=Mode.EDITS if tool.path_target else Mode.YOLO,
        what=what.get(tool.kind, "these calls"),
    )
    if tool.path_target:
        rp = resolve_path(root, tool.target(args))
        return replace(refusal, rules=(f"{tool.name}: {rp.rel if rp.inside else rp.path}",))
    if tool.kind != "exec":
        target = f": {tool.target(args)}" if tool.kind == "fetch" else ""
        return replace(refusal, rules=(f"{tool.name}{target}",))
    script = shell.parse(tool.target(args))
    rules = [rule_for(tool.name, c, narrow=False) for c in script.commands]
    if script.unvouched or any(writes(script, root)) or not rules or None in rules:
        return replace(refusal, uncoverable=True)
    return replace(refusal, rules=tuple(dict.fromkeys(r.text for r in rules if r)))
