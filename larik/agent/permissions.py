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
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from .. import shell
from ..modes import AFTER_PLAN, Mode, parse_mode
from ..paths import resolve_path
from ..protected import protected_pattern
from ..refusal import Refusal
from ..sandbox import Sandbox
from . import plan
from .events import Approver, PermissionRequest
from .permission_rules import HARMLESS_WRITES, Rule, narrow_rule, unasked, writes
from .tools import READ_ONLY_TOOLS, AnyTool, ToolContext, beyond_defaults, write_tools

__all__ = ["PermissionPolicy", "Rule"]

Verdict = Literal["allow", "deny", "ask"]


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


@dataclass(slots=True)
class Decision:
    verdict: Verdict
    reason: str = ""
    firm: bool = False  # an "ask" that guards a deny rule: only the user may answer it
    remedy: Refusal | None = None  # a denial's, whole: its reason and what would allow it

    @classmethod
    def deny(cls, reason: str, **remedy: Any) -> Decision:
        """A denial; ``remedy``: :class:`Refusal`'s fields past its reason."""
        return cls("deny", reason, remedy=Refusal(reason, **remedy))

    def refusal(self) -> Refusal:
        return self.remedy or Refusal(self.reason)


class PermissionPolicy:
    def __init__(
        self,
        root: Path,
        mode: str = Mode.ASK,
        allow: list[str] | None = None,
        deny: list[str] | None = None,
        approver: Approver | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.root = root.resolve()
        self.sandbox = sandbox  # what bash commands run in (None: no OS sandbox)
        self.mode: Mode = parse_mode(mode)
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
        if self.mode is Mode.PLAN and d.verdict != "deny":
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
        if box is not None and box.active and self.mode is Mode.PLAN:
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
                return Decision.deny(f"denied by the rule {rule.text!r} in permissions.deny")
        if tool.path_target and not rp.inside:
            if any(r.matches(name, targets) for r in self.allow):
                return Decision("allow")
            return Decision.deny(
                f"{rp.path} is outside the project root {self.root}; file tools stay inside it",
                rules=(f"{name}: {rp.path.parent}/*",),
            )
        if any(r.matches(name, targets) for r in self.allow + self.session_allow):
            return Decision("allow")
        return Decision(self._by_mode(tool.kind))

    def _decide_command(self, name: str, command: str) -> Decision:
        script = shell.parse(command)
        views = [command, *script.sources, *(v for c in script.commands for v in c.views)]
        for rule in self.deny:
            if rule.matches(name, views):
                return Decision.deny(f"denied by the rule {rule.text!r} in permissions.deny")
        outside, doubts = writes(script, self.root)
        for path in script.writes:
            if path.value is None or path.value in HARMLESS_WRITES:
                continue
            targets = self._path_targets(path.value, as_written=True)
            for rule in self.deny:
                if any(rule.matches(t, targets) for t in write_tools()):
                    return Decision.deny(
                        f"it writes to {shell.short(path.value)}, denied by the rule {rule.text!r} in "
                        "permissions.deny",
                    )
        rules = self.allow + self.session_allow
        if any(r.exact and r.matches(name, [command]) for r in rules):
            return Decision("allow")  # the user allowed exactly this text
        doubts = [*script.unvouched, *doubts]
        if doubts and any(
            fnmatch.fnmatchcase(t, r.tool) for r in self.deny for t in (name, *write_tools())
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
            what = {"write": "file changes", "task": "worker subagents"}
            calls = what.get(tool.kind, f"calls of {tool.name}")
            return Decision.deny(
                f"plan mode: {calls} are off until the user accepts a plan",
                instead="read and search what you need, then present your plan",
                mode=AFTER_PLAN[0],
                what=calls,
            )
        script = shell.parse(tool.target(args))
        writes = [w for w in script.writes if w.value not in HARMLESS_WRITES]
        readings: list[plan.Reading] = []
        if writes:
            problem = f"it writes to {shell.short(writes[0].raw, 60)}"
        else:
            problem, readings = plan.script_problem(script)
        if problem:
            return Decision.deny(
                f"plan mode runs only read-only commands, and {problem}",
                instead="read and search what you need, then present your plan",
                mode=AFTER_PLAN[0],
                what="commands that change things",
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
                        return Decision.deny(
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

    def _by_mode(self, kind: str) -> Verdict:
        if kind in ("read", "task", "job") or self.mode is Mode.YOLO:
            return "allow"
        if kind == "write" and self.mode.writes_unasked:
            return "allow"
        return "ask"

    def always_rules(self, tool: AnyTool, args: Any) -> tuple[list[Rule], str]:
        """What "allow always" remembers for this call, and how to say it to the user."""
        if tool.kind == "write":
            rules = [Rule(t, "*", f"{t}: *") for t in write_tools()]
            return rules, "file edits in this project"
        if tool.kind == "fetch":  # its target is the URL's host
            host = tool.target(args)
            return [Rule(tool.name, host, f"{tool.name}: {host}")], f"fetches from {host}"
        if tool.kind != "exec":  # an MCP tool: its target is its arguments, not a command
            return [Rule(tool.name, "*", tool.name)], f"every {tool.name} call"
        cmd = tool.target(args)
        rule = narrow_rule(tool.name, cmd, self.root)
        if rule is not None:
            stem = re.sub(r"\[([\[*?])\]", r"\1", rule.pattern[:-1])  # glob.escape undone
            return [rule], f"{rule.text!r} ({stem}, alone or with more arguments)"
        return [Rule(tool.name, cmd, f"{tool.name}: {cmd}", exact=True)], "this exact command"

    # -- asking -----------------------------------------------------------------------------
    async def check(
        self,
        tool: AnyTool,
        args: Any,
        tool_input: dict[str, Any],
        ctx: ToolContext,
        hook: HookAnswer = ("", ""),
    ) -> Refusal | None:
        """None when the call may run; otherwise why it may not and what would allow it
        (each face phrases it: :mod:`larik.refusal`). ``hook``: a PreToolUse hook's ``allow``
        or ``ask`` and its reason (see the module)."""
        d = with_hook(self.decide(tool, args), hook)
        if d.verdict == "allow":
            return None
        if d.verdict == "deny":
            return d.refusal()
        if self.approver is None:
            return self._alone(tool, args, d, hook)
        async with self._asking:
            return await self._ask(tool, args, tool_input, ctx, hook)

    async def _ask(
        self,
        tool: AnyTool,
        args: Any,
        tool_input: dict[str, Any],
        ctx: ToolContext,
        hook: HookAnswer,
    ) -> Refusal | None:
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
        return Refusal(f"the user declined this {tool.name} call{reason}")

    def _alone(self, tool: AnyTool, args: Any, d: Decision, hook: HookAnswer) -> Refusal:
        """A call that needs asking, with no one to ask (print mode, bench): refused."""
        if hook[0] == "ask":
            why = f"a PreToolUse hook wants the user to approve this call ({d.reason})"
            return Refusal(why, unasked=True)
        if d.firm and self.changes_what_runs(tool, args):
            return Refusal(
                f"{d.reason}; only the user may allow that",
                unasked=True,
                instead="leave that file as it is and tell the user what to change in it",
            )
        if self.leaves_sandbox(tool, args):
            return Refusal(
                "running outside the OS sandbox needs the user's approval",
                unasked=True,
                instead="set [sandbox] in the config instead",
            )
        if self.mode is Mode.YOLO:
            return Refusal(
                d.reason,
                unasked=True,
                instead="write the command without that, or ask the user to change permissions.deny",
            )
        if self.mode is Mode.PLAN:
            return Refusal(
                f"{tool.name} needs approval in plan mode ({d.reason})",
                unasked=True,
                instead="read inside the project with the read tools",
            )
        return unasked(tool, args, d.reason, self.mode, self.root)
