"""Who may run which tool call: modes, allow/deny rules, the project root, the Approver.

Order of decision for one call:

1. a ``permissions.deny`` rule that matches → denied (for bash: any part of a compound command);
2. a file tool's path outside the project root → denied, unless a ``permissions.allow`` rule
   from config covers that path (``..`` and symlinks are resolved first);
3. an allow rule (config, or "allow always" given during this session) → allowed; for bash every
   part of a compound command (split on ``;``, ``&&``, ``||``, ``|``, ``&`` and newlines
   outside quotes) must be covered, and a command with ``$(…)`` or backticks (even quoted), a
   heredoc or an unclosed quote is never covered by a rule;
4. the mode: ``ask`` allows reads and asks for writes and bash; ``edits`` allows writes and asks
   for bash; ``yolo`` allows everything. Subagent tasks are allowed (their own calls are checked).

A rule is ``"TOOL: PATTERN"`` (``TOOL`` may itself be a pattern; no pattern means any call),
matched with fnmatch against the command, or against the path both relative to the root and
absolute. Asking goes to the Approver; with none (print mode, bench) the call is denied and the
reason says how to allow it. A denial is returned as text for the model's tool result.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..llm.errors import ConfigError
from .events import Approver, PermissionRequest
from .paths import resolve_path
from .tools import ALL_TOOLS, Tool, ToolArgs, ToolContext

__all__ = ["MODES", "PermissionPolicy", "Rule", "check_mode", "command_parts"]

MODES = ("ask", "edits", "yolo")
Verdict = Literal["allow", "deny", "ask"]
_SUBSHELL = ("$(", "`", "<(", ">(")


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ConfigError(f"unknown permission mode {mode!r}: use ask, edits or yolo")
    return mode


def command_parts(command: str) -> list[str] | None:
    """The simple commands of a compound one, split where bash would: on ``&&``, ``||``, ``;``,
    ``|``, ``&`` and newlines outside quotes (``>&``, ``<&`` and ``&>`` are redirections;
    comments are dropped). None when rules cannot vouch for it: a subshell (``$(``, backticks,
    ``<(``, ``>(``, even quoted), an unclosed quote, or what this reading could get wrong —
    a heredoc (``<<``), ANSI-C quoting (``$'``), or ``${`` together with quotes."""
    if any(s in command for s in _SUBSHELL) or "<<" in command or "$'" in command:
        return None
    if "${" in command and ("'" in command or '"' in command):
        return None
    parts: list[str] = []
    piece: list[str] = []
    quote = ""
    i, n = 0, len(command)
    while i < n:
        c = command[i]
        if quote == "'":
            quote = "" if c == "'" else quote
        elif c == "\\":  # the next character is literal (in double quotes too)
            piece.append(command[i : i + 2])
            i += 2
            continue
        elif quote:
            quote = "" if c == '"' else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or command[i - 1] in _WORD_END):  # a comment: to the line end
            end = command.find("\n", i)
            i = n if end < 0 else end
            continue
        elif c in ";|\n" or (c == "&" and _separates(command, i)):
            parts.append("".join(piece))
            piece = []
            i += 2 if command.startswith(("&&", "||"), i) else 1
            continue
        piece.append(c)
        i += 1
    if quote:
        return None
    parts.append("".join(piece))
    return [p.strip() for p in parts if p.strip()]


_WORD_END = " \t\n;&|()<>"


def _separates(command: str, i: int) -> bool:
    """Whether the ``&`` at ``i`` is a control operator, not part of ``>&``, ``<&`` or ``&>``."""
    if command.startswith("&>", i):
        return False
    return i == 0 or command[i - 1] not in "<>"


@dataclass(frozen=True, slots=True)
class Rule:
    tool: str
    pattern: str
    text: str
    exact: bool = False  # "allow always" on a compound command: exactly that command

    @classmethod
    def parse(cls, text: str, where: str = "permissions") -> Rule:
        tool, sep, pattern = text.partition(":")
        tool, pattern = tool.strip(), pattern.strip().strip("\"'") if sep else "*"
        if not tool:
            raise ConfigError(f"{where}: rule {text!r} names no tool (write it as 'TOOL: PATTERN')")
        if not any(fnmatch.fnmatchcase(t, tool) for t in ALL_TOOLS):
            raise ConfigError(
                f"{where}: rule {text!r} names no known tool ({', '.join(ALL_TOOLS)})"
            )
        return cls(tool, pattern or "*", text)

    def matches(self, tool: str, targets: list[str]) -> bool:
        if not fnmatch.fnmatchcase(tool, self.tool):
            return False
        if self.exact:
            return self.pattern in targets
        pat = str(Path(self.pattern).expanduser()) if self.pattern.startswith("~") else self.pattern
        return any(fnmatch.fnmatchcase(t, pat) for t in targets)


@dataclass(slots=True)
class Decision:
    verdict: Verdict
    reason: str = ""


class PermissionPolicy:
    def __init__(
        self,
        root: Path,
        mode: str = "ask",
        allow: list[str] | None = None,
        deny: list[str] | None = None,
        approver: Approver | None = None,
    ) -> None:
        self.root = root.resolve()
        self.mode = check_mode(mode)
        self.allow = [Rule.parse(r, "permissions.allow") for r in allow or []]
        self.deny = [Rule.parse(r, "permissions.deny") for r in deny or []]
        self.session_allow: list[Rule] = []
        self.approver = approver

    # -- the pure part ----------------------------------------------------------------------
    def decide(self, tool: Tool, args: ToolArgs) -> Decision:
        name, target = tool.name, tool.target(args)
        if tool.path_target:
            rp = resolve_path(self.root, target)
            targets = [rp.rel, rp.path.as_posix()] if rp.inside else [rp.path.as_posix()]
            parts: list[str] | None = targets
        elif tool.kind == "exec":
            parts = command_parts(target)
            targets = [target] + (parts or [])
        else:
            targets = parts = [target]
        for rule in self.deny:
            if rule.matches(name, targets):
                return Decision("deny", f"denied by the rule {rule.text!r} in permissions.deny")
        if tool.path_target and not rp.inside:
            if any(r.matches(name, targets) for r in self.allow):
                return Decision("allow")
            return Decision(
                "deny",
                f"{rp.path} is outside the project root {self.root}; file tools stay inside "
                f'it unless a permissions.allow rule covers the path (e.g. "{name}: '
                f'{rp.path.parent}/*")',
            )
        rules = self.allow + self.session_allow
        if tool.kind == "exec":
            if any(r.exact and r.matches(name, [target]) for r in rules):
                return Decision("allow")
            if parts and all(
                any(r.matches(name, [p]) for r in rules if not r.exact) for p in parts
            ):
                return Decision("allow")
        elif any(r.matches(name, targets) for r in rules):
            return Decision("allow")
        return Decision(self._by_mode(tool.kind))

    def _by_mode(self, kind: str) -> Verdict:
        if kind in ("read", "task") or self.mode == "yolo":
            return "allow"
        if kind == "write" and self.mode == "edits":
            return "allow"
        return "ask"

    def always_rules(self, tool: Tool, args: ToolArgs) -> tuple[list[Rule], str]:
        """What "allow always" remembers for this call, and how to say it to the user."""
        if tool.kind == "write":
            rules = [Rule(t, "*", f"{t}: *") for t in ("write_file", "edit_file")]
            return rules, "file edits in this project"
        parts = command_parts(tool.target(args)) or []
        if len(parts) == 1 and parts[0].split():
            first = parts[0].split()[0]
            return [Rule(tool.name, f"{first}*", f"bash: {first}*")], f"bash commands: {first} …"
        cmd = tool.target(args)
        return [Rule(tool.name, cmd, f"bash: {cmd}", exact=True)], "this exact command"

    def _example_rule(self, tool: Tool, args: ToolArgs) -> str:
        """A permissions.allow rule that would let this very call through."""
        if tool.path_target:
            rp = resolve_path(self.root, tool.target(args))
            return f"{tool.name}: {rp.rel if rp.inside else rp.path.as_posix()}"
        parts = command_parts(tool.target(args)) or []
        words = parts[0].split() if len(parts) == 1 else []
        return f"{tool.name}: {words[0]}*" if words else f"{tool.name}: pytest*"

    # -- asking -----------------------------------------------------------------------------
    async def check(
        self, tool: Tool, args: ToolArgs, tool_input: dict[str, Any], ctx: ToolContext
    ) -> str | None:
        """None when the call may run; otherwise the reason it may not, for the model."""
        d = self.decide(tool, args)
        if d.verdict == "allow":
            return None
        if d.verdict == "deny":
            return f"permission denied: {d.reason}"
        if self.approver is None:
            what = "file changes" if tool.kind == "write" else "commands"
            fix = "edits" if tool.kind == "write" else "yolo"
            return (
                f"permission denied: {tool.name} needs approval in {self.mode!r} permission "
                f"mode and there is no one to ask (print mode). To allow {what}, rerun with "
                f"--permission-mode {fix}, or add a permissions.allow rule such as "
                f"{self._example_rule(tool, args)!r}."
            )
        rules, label = self.always_rules(tool, args)
        req = PermissionRequest(
            tool_name=tool.name,
            tool_input=tool_input,
            summary=f"{tool.name}: {tool.summary(args)}",
            diff=await tool.preview(args, ctx),
            always=label,
        )
        answer = await self.approver(req)
        if answer.allow:
            if answer.always:
                self.session_allow.extend(rules)
            return None
        reason = f": {answer.reason}" if answer.reason else ""
        return f"permission denied: the user declined this {tool.name} call{reason}"
