"""Who may run which tool call: modes, allow/deny rules, the project root, the Approver.

Order of decision for one call:

1. a ``permissions.deny`` rule that matches → denied. For bash a rule is matched against the
   whole command as written and against every simple command in it, as bash will run it
   (:mod:`larik.shell` reads the command with tree-sitter-bash: lists, pipelines,
   subshells, substitutions, heredoc bodies, ``bash -c`` strings; assignments and wrappers such
   as ``env``, ``command``, ``\\`` seen through), and a redirection's target is matched against
   the deny rules of the file tools that write (``write_file``, ``edit_file``);
2. a file tool's path outside the project root → denied, unless a ``permissions.allow`` rule
   from config covers that path (``..`` and symlinks are resolved first);
3. bash, when a bash or file-writing deny rule is in force and the tree cannot vouch for what the
   command runs (``eval``, ``$X args``, a parse error, …) → asked, in every mode, yolo included:
   the deny rule must hold and nothing here can tell whether it does;
4. a write to a file that decides what Larik runs or allows next time (:mod:`larik.protected`:
   ``.larik/``, ``.mcp.json``, ``.claude/settings*.json``, ``.claude/hooks/``, …, the
   instruction files) by a file tool, or by a bash redirection → asked, in every mode, yolo
   included: ``edits``, allow rules, "allow always" and hooks do not cover it, and without an
   Approver it is denied (the OS sandbox keeps these files read-only for the rest of bash);
5. an allow rule (config, or "allow always" given during this session) → allowed; for bash
   every simple command must be covered, no redirection may write outside the project, and
   the tree must vouch for the command;
6. the mode: ``ask`` allows reads and asks for writes and bash; ``edits`` allows writes and asks
   for bash; ``yolo`` allows everything. Subagent tasks are allowed (their own calls are checked),
   and so are the job tools (``job_output``, ``job_stop``: only the session's own background
   jobs, whose commands were checked as any bash command — ``background`` changes nothing here).
   ``web_fetch`` (kind ``fetch``) is asked for in every mode but yolo, per domain: its target is
   the URL's host, so "allow always" remembers ``web_fetch: HOST``.
   ``plan`` (:mod:`.plan`) allows reads, explore subagents and read-only commands and refuses
   everything else, allow rules included; a read-only command that reads outside the project
   or near a read deny rule is asked about. web_fetch reads, so plan mode keeps it, asked for
   per domain as in ``ask`` mode (it is network egress: never unasked).

A hook (:mod:`.hooks`) may block a call, or answer ``ask`` or ``allow`` for it: ``allow`` only
skips a question the rules and mode would ask; it never overrides a denial, nor a question
asked because a deny rule is in force and Larik cannot tell whether the call breaks it (a
``firm`` one).

A rule is ``"TOOL: PATTERN"`` (``TOOL`` may itself be a pattern; no pattern means any call),
matched with fnmatch against the path both relative to the root and absolute, or for bash
against a simple command's words after quote removal (``git "status"`` is ``git status``). In
a bash *allow* rule a trailing ``*`` right after a word ends that word: ``bash: git status*``
covers ``git status`` and ``git status -s``, never ``git statusx``. Asking goes to the Approver;
with none (print mode, bench) the call is denied and the reason says how to allow it. A denial
is returned as text for the model's tool result.
"""

from __future__ import annotations

import asyncio
import fnmatch
import glob
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from .. import shell
from ..llm.errors import ConfigError
from ..paths import resolve_path
from ..protected import protected_pattern
from ..sandbox import Sandbox
from ..tool_names import parse_rule
from . import plan
from .events import Approver, PermissionRequest
from .tools import READ_ONLY_TOOLS, AnyTool, ToolContext, beyond_defaults

__all__ = ["MODES", "PermissionPolicy", "Rule", "check_mode"]

MODES = ("ask", "edits", "yolo", "plan")
Verdict = Literal["allow", "deny", "ask"]
WRITE_TOOLS = ("write_file", "edit_file")  # a redirection is a write: their path rules apply
HARMLESS_WRITES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty")


HookAnswer = tuple[str, str]  # a PreToolUse hook's "allow" / "ask" / "", and its reason


def with_hook(d: Decision, hook: HookAnswer) -> Decision:
    """The rules' decision with a hook's answer: ``ask`` turns an allow into a question;
    ``allow`` answers a question the rules and mode would ask, unless it is firm (it guards a
    deny rule); nothing a hook says lifts a denial."""
    answer, reason = hook
    if answer == "ask" and d.verdict == "allow":
        return Decision(
            "ask", f"a PreToolUse hook asks: {reason}" if reason else "a PreToolUse hook asks"
        )
    if answer == "allow" and d.verdict == "ask" and not d.firm:
        return Decision("allow")
    return d


def _listed(reasons: list[str], most: int = 3) -> str:
    more = len(reasons) - most
    return "; ".join(reasons[:most]) + (f"; and {more} more" if more > 0 else "")


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ConfigError(f"unknown permission mode {mode!r}: use {', '.join(MODES)}")
    return mode


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


@dataclass(slots=True)
class Decision:
    verdict: Verdict
    reason: str = ""
    firm: bool = False  # an "ask" that guards a deny rule: only the user may answer it


class PermissionPolicy:
    def __init__(
        self,
        root: Path,
        mode: str = "ask",
        allow: list[str] | None = None,
        deny: list[str] | None = None,
        approver: Approver | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.root = root.resolve()
        self.sandbox = sandbox  # what bash commands run in (None: no OS sandbox)
        self.mode = check_mode(mode)
        self.allow = [Rule.parse(r, "permissions.allow") for r in allow or []]
        self.deny = [Rule.parse(r, "permissions.deny") for r in deny or []]
        self.session_allow: list[Rule] = []
        self.approver = approver
        self._asking = asyncio.Lock()  # one question at a time (read-only calls run together)

    # -- the rules in effect -----------------------------------------------------------------
    def rules(self) -> list[tuple[str, Rule]]:
        """Every rule in effect, as ("deny" | "allow" | "session", rule): the config's, then
        what "allow always this session" added (numbered from 1 by :meth:`forget`)."""
        return [
            *(("deny", r) for r in self.deny),
            *(("allow", r) for r in self.allow),
            *(("session", r) for r in self.session_allow),
        ]

    def forget(self, n: int) -> Rule:
        """Take back the ``n``-th rule "allow always this session" added (from 1): its calls
        are asked again. ValueError when there is no such rule."""
        if not 1 <= n <= len(self.session_allow):
            have = len(self.session_allow)
            raise ValueError(f"no session rule {n}: there {'is' if have == 1 else 'are'} {have}")
        return self.session_allow.pop(n - 1)

    # -- paths ------------------------------------------------------------------------------
    def _path_targets(self, raw: str, *, as_written: bool = False) -> list[str]:
        """What path rules are matched against: the resolved path, relative to the root when
        inside it, and absolute. ``as_written`` adds the path before symlinks are followed
        (for deny rules only: a link the project made must not widen an allow rule)."""
        rp = resolve_path(self.root, raw)
        targets = [rp.rel, rp.path.as_posix()] if rp.inside else [rp.path.as_posix()]
        if as_written:
            p = Path(raw).expanduser()
            lexical = Path(os.path.normpath(p if p.is_absolute() else self.root / p))
            try:
                targets.append(lexical.relative_to(self.root).as_posix() or ".")
            except ValueError:
                pass
            targets.append(lexical.as_posix())
        return list(dict.fromkeys(targets))

    def denies_path(self, tool_name: str, path: Path) -> bool:
        """Whether a deny rule for ``tool_name`` matches ``path`` (relative to the root and
        absolute, before and after symlinks are followed). For tools that meet paths the model
        did not name, such as grep walking a folder."""
        targets = self._path_targets(str(path), as_written=True)
        return any(rule.matches(tool_name, targets) for rule in self.deny)

    # -- the pure part ----------------------------------------------------------------------
    def decide(self, tool: AnyTool, args: Any) -> Decision:
        d = self._decide(tool, args)
        if self.mode == "plan" and d.verdict != "deny":
            d = self._plan(tool, args, d)
        if d.verdict != "deny":
            changes = self.changes_what_runs(tool, args)
            if changes:
                return Decision("ask", changes, firm=True)
        if d.verdict != "deny" and self.leaves_sandbox(tool, args):
            return Decision("ask", "it runs outside the OS sandbox", firm=True)
        return d

    def changes_what_runs(self, tool: AnyTool, args: Any) -> str:
        """Why a call writes a file that decides what Larik runs or allows next time
        (:mod:`larik.protected`), or "": only the user may allow that — in every mode, yolo
        included; allow rules, "allow always" and hooks notwithstanding; without an Approver,
        denied. For bash, the redirections it is seen to write through (the OS sandbox keeps
        the files read-only for the rest)."""
        if tool.kind == "write" and tool.path_target:
            paths = [tool.target(args)]
        elif tool.kind == "exec":
            paths = [w.value for w in shell.parse(tool.target(args)).writes if w.value]
        else:
            return ""
        for raw in paths:
            pattern = protected_pattern(raw, self.root)
            if pattern is not None:
                rp = resolve_path(self.root, raw)
                return (
                    f"it writes {shell.short(rp.rel, 80)}, which decides what Larik runs or "
                    f"allows next time ({pattern})"
                )
        return ""

    def command_sandbox(self) -> Sandbox | None:
        """The sandbox a command runs in now: in plan mode the session's, made read-only —
        the command table is not the only fence; a command it lets through that writes
        anyway (``git status`` rewriting the index, a gap in the table) writes nothing."""
        box = self.sandbox
        if box is not None and box.active and self.mode == "plan":
            return replace(box, mode="read-only")
        return box

    def leaves_sandbox(self, tool: AnyTool, args: Any) -> bool:
        """Whether a call asks to run outside the sandbox: only the user may allow that (asked
        in every mode, allow rules and hooks notwithstanding; without an Approver, denied)."""
        return (
            tool.kind == "exec"
            and self.sandbox is not None
            and self.sandbox.active
            and getattr(args, "sandbox", True) is False
        )

    def _decide(self, tool: AnyTool, args: Any) -> Decision:
        if tool.kind == "exec":
            return self._decide_command(tool.name, tool.target(args))
        name, target = tool.name, tool.target(args)
        if tool.path_target:
            rp = resolve_path(self.root, target)
            targets = self._path_targets(target)
            deny_targets = self._path_targets(target, as_written=True)
        else:
            targets = deny_targets = [target]
        for rule in self.deny:
            if rule.matches(name, deny_targets):
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
        if any(r.matches(name, targets) for r in self.allow + self.session_allow):
            return Decision("allow")
        return Decision(self._by_mode(tool.kind))

    def _decide_command(self, name: str, command: str) -> Decision:
        script = shell.parse(command)
        views = [command, *script.sources, *(v for c in script.commands for v in c.views)]
        for rule in self.deny:
            if rule.matches(name, views):
                return Decision("deny", f"denied by the rule {rule.text!r} in permissions.deny")
        outside, doubts = self._writes(script)
        for path in script.writes:
            if path.value is None or path.value in HARMLESS_WRITES:
                continue
            targets = self._path_targets(path.value, as_written=True)
            for rule in self.deny:
                if any(rule.matches(t, targets) for t in WRITE_TOOLS):
                    return Decision(
                        "deny",
                        f"it writes to {shell.short(path.value)}, denied by the rule {rule.text!r} in "
                        "permissions.deny",
                    )
        rules = self.allow + self.session_allow
        if any(r.exact and r.matches(name, [command]) for r in rules):
            return Decision("allow")  # the user allowed exactly this text
        doubts = [*script.unvouched, *doubts]
        if doubts and any(
            fnmatch.fnmatchcase(t, r.tool) for r in self.deny for t in (name, *WRITE_TOOLS)
        ):
            return Decision(
                "ask",
                "a permissions.deny rule is in force and Larik cannot tell whether this "
                f"command breaks it: {_listed(doubts)}",
                firm=True,
            )
        if (
            not doubts
            and not outside
            and script.commands
            and all(any(r.covers(name, c.text) for r in rules) for c in script.commands)
        ):
            return Decision("allow")
        verdict = self._by_mode("exec")
        if verdict == "allow":
            return Decision("allow")
        if doubts:
            return Decision("ask", f"no allow rule can cover it: {_listed(doubts)}")
        if outside:
            return Decision(
                "ask",
                f"it writes outside the project, to {', '.join(map(shell.short, outside))}; no "
                "allow rule covers that",
            )
        return Decision("ask")

    def _plan(self, tool: AnyTool, args: Any, d: Decision) -> Decision:
        """Plan mode, for a call no deny rule refused: reads as in ask mode, explore subagents,
        read-only commands; nothing else."""
        if tool.kind in ("read", "job", "fetch"):  # job: own jobs; fetch: asked per domain
            return d
        if tool.kind == "task" and tool.target(args) == "explore":
            return d
        if tool.kind != "exec":
            what = {"write": "file changes are", "task": "worker subagents are"}
            return Decision(
                "deny",
                f"plan mode: {what.get(tool.kind, f'{tool.name} calls are')} off until the user "
                "accepts a plan; read and search what you need, then present your plan",
            )
        script = shell.parse(tool.target(args))
        writes = [w for w in script.writes if w.value not in HARMLESS_WRITES]
        readings: list[plan.Reading] = []
        if writes:
            problem = f"it writes to {shell.short(writes[0].raw, 60)}"
        else:
            problem, readings = plan.script_problem(script)
        if problem:
            return Decision(
                "deny",
                f"plan mode runs only read-only commands, and {problem}; read and search what "
                "you need, then present your plan",
            )
        return self._plan_reads(script, readings)

    def _plan_reads(self, script: shell.ShellScript, readings: list[plan.Reading]) -> Decision:
        """A read-only command runs unasked when what it reads is what the read tools may read:
        inside the project, and clear of any deny rule on a read tool. When such a rule is in
        force and the command's reach is unclear, the question is firm."""
        guards = [
            r for r in self.deny if any(fnmatch.fnmatchcase(t, r.tool) for t in READ_ONLY_TOOLS)
        ]
        for r in readings:
            for p in r.paths:
                targets = self._path_targets(p, as_written=True)
                for rule in guards:
                    if any(rule.matches(t, targets) for t in READ_ONLY_TOOLS):
                        return Decision(
                            "deny",
                            f"it reads {shell.short(p, 60)}, denied by the rule {rule.text!r} "
                            "in permissions.deny",
                        )
        firm = bool(guards)
        if script.changes_dir:
            return Decision(
                "ask", "it changes directory, so its paths cannot be checked", firm=firm
            )
        for r in readings:
            if r.unknown:
                why = f"it reads {shell.short(r.unknown[0], 60)}, known only when it runs"
                return Decision("ask", why, firm=firm)
            if r.walks and guards:
                why = "it walks folders while a permissions.deny rule on reading is in force"
                return Decision("ask", why, firm=True)
            outside = [p for p in r.paths if not resolve_path(self.root, p).inside]
            if outside:
                return Decision(
                    "ask", f"it reads outside the project ({shell.short(outside[0], 60)})"
                )
        return Decision("allow")

    def _writes(self, script: shell.ShellScript) -> tuple[list[str], list[str]]:
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
            elif not resolve_path(self.root, v).inside:
                outside.append(v)
        return outside, doubts

    def _by_mode(self, kind: str) -> Verdict:
        if kind in ("read", "task", "job") or self.mode == "yolo":
            return "allow"
        if kind == "write" and self.mode == "edits":
            return "allow"
        return "ask"

    def _rule_for(self, tool_name: str, cmd: shell.SimpleCommand, *, narrow: bool) -> Rule | None:
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

    def _narrow_rule(self, tool_name: str, command: str) -> Rule | None:
        """The narrowest rule covering this command, when it is one simple command that a rule
        can cover at all."""
        script = shell.parse(command)
        if script.unvouched or len(script.commands) != 1 or any(self._writes(script)):
            return None
        return self._rule_for(tool_name, script.commands[0], narrow=True)

    def always_rules(self, tool: AnyTool, args: Any) -> tuple[list[Rule], str]:
        """What "allow always" remembers for this call, and how to say it to the user."""
        if tool.kind == "write":
            rules = [Rule(t, "*", f"{t}: *") for t in ("write_file", "edit_file")]
            return rules, "file edits in this project"
        if tool.kind == "fetch":  # its target is the URL's host
            host = tool.target(args)
            return [Rule(tool.name, host, f"{tool.name}: {host}")], f"fetches from {host}"
        if tool.kind != "exec":  # an MCP tool: its target is its arguments, not a command
            return [Rule(tool.name, "*", tool.name)], f"every {tool.name} call"
        cmd = tool.target(args)
        rule = self._narrow_rule(tool.name, cmd)
        if rule is not None:
            stem = re.sub(r"\[([\[*?])\]", r"\1", rule.pattern[:-1])  # glob.escape undone
            return [rule], f"{rule.text!r} ({stem}, alone or with more arguments)"
        return [Rule(tool.name, cmd, f"{tool.name}: {cmd}", exact=True)], "this exact command"

    def _how_to_allow(self, tool: AnyTool, args: Any) -> str:
        """How the user could let this very call through without being asked."""
        if tool.path_target:
            rp = resolve_path(self.root, tool.target(args))
            rule = f"{tool.name}: {rp.rel if rp.inside else rp.path.as_posix()}"
            return f"--permission-mode edits, or add a permissions.allow rule such as {rule!r}"
        if tool.kind == "fetch":
            rule = f"{tool.name}: {tool.target(args)}"
            return f"--permission-mode yolo, or add a permissions.allow rule such as {rule!r}"
        if tool.kind != "exec":
            return f"--permission-mode yolo, or add a permissions.allow rule such as {tool.name!r}"
        script = shell.parse(tool.target(args))
        rules = [self._rule_for(tool.name, c, narrow=False) for c in script.commands]
        if script.unvouched or any(self._writes(script)) or not rules or None in rules:
            return "--permission-mode yolo (no permissions.allow rule can cover this command)"
        texts = list(dict.fromkeys(repr(r.text) for r in rules if r))
        if len(texts) == 1:
            return f"--permission-mode yolo, or add a permissions.allow rule such as {texts[0]}"
        return f"--permission-mode yolo, or add permissions.allow rules {' and '.join(texts)}"

    # -- asking -----------------------------------------------------------------------------
    async def check(
        self,
        tool: AnyTool,
        args: Any,
        tool_input: dict[str, Any],
        ctx: ToolContext,
        hook: HookAnswer = ("", ""),
    ) -> str | None:
        """None when the call may run; otherwise the reason it may not, for the model.
        ``hook``: a PreToolUse hook's ``allow`` or ``ask`` and its reason (see the module)."""
        d = with_hook(self.decide(tool, args), hook)
        if d.verdict == "allow":
            return None
        if d.verdict == "deny":
            return f"permission denied: {d.reason}"
        if self.approver is None and hook[0] == "ask":
            return (
                f"permission denied: a PreToolUse hook wants the user to approve this call "
                f"({d.reason}) and there is no one to ask (print mode)"
            )
        if self.approver is None and d.firm and self.changes_what_runs(tool, args):
            return (
                f"permission denied: {d.reason}; only the user may allow that, and there is no "
                "one to ask (print mode). Leave that file as it is and tell the user what to "
                "change in it"
            )
        if self.approver is None and self.leaves_sandbox(tool, args):
            return (
                "permission denied: running outside the OS sandbox needs the user's approval "
                "and there is no one to ask (print mode); set [sandbox] in the config instead"
            )
        if self.approver is None and self.mode == "yolo":
            return (
                f"permission denied: {d.reason}. Write the command without that, or ask the "
                "user to change permissions.deny."
            )
        if self.approver is None and self.mode == "plan":
            return (
                f"permission denied: {tool.name} needs approval in plan mode ({d.reason}) and "
                "there is no one to ask (print mode); read inside the project with the read tools"
            )
        if self.approver is None:
            what = {"write": "file changes", "exec": "commands", "fetch": "fetches"}.get(
                tool.kind, "these calls"
            )
            why = f" ({d.reason})" if d.reason else ""
            return (
                f"permission denied: {tool.name} needs approval in {self.mode!r} permission "
                f"mode{why} and there is no one to ask (print mode). To allow {what}, rerun "
                f"with {self._how_to_allow(tool, args)}."
            )
        async with self._asking:
            return await self._ask(tool, args, tool_input, ctx, hook)

    async def _ask(
        self,
        tool: AnyTool,
        args: Any,
        tool_input: dict[str, Any],
        ctx: ToolContext,
        hook: HookAnswer,
    ) -> str | None:
        assert self.approver is not None
        if with_hook(self.decide(tool, args), hook).verdict == "allow":
            return None  # an "allow always" given while this call waited its turn covers it
        rules, label = self.always_rules(tool, args)
        out = self.leaves_sandbox(tool, args)
        runs = self.changes_what_runs(tool, args)
        if out or runs:
            rules, label = [], ""  # asked each time: no "allow always" for these
        where = " OUTSIDE the OS sandbox" if out else ""
        what = " (a file that decides what Larik runs next time)" if runs else ""
        req = PermissionRequest(
            tool_name=tool.name,
            tool_input=beyond_defaults(tool.args, tool_input),
            summary=f"{tool.name}{where}: {tool.summary(args)}{what}",
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
