"""What each event sends a hook, and what its answer means: Claude Code's contract.

Every hook gets one JSON object on stdin: ``session_id``, ``transcript_path``, ``cwd``,
``permission_mode`` (Larik's: ask, edits, yolo, plan) and ``hook_event_name``, plus

==================  ============================================================================
PreToolUse          ``tool_name``, ``tool_input``, ``tool_use_id``
PostToolUse         the same and ``tool_response`` (``output``, ``is_error``, ``exit_code`` for bash)
UserPromptSubmit    ``prompt``
Stop                ``stop_hook_active`` (this turn already went on because of a Stop hook),
                    ``last_assistant_message``
SubagentStop        ``stop_hook_active``, ``last_assistant_message``, ``agent_type`` (the role),
                    ``agent_transcript_path``
PreCompact          ``trigger``: manual or auto; ``custom_instructions`` ("")
SessionStart        ``source``: startup, resume or compact; ``model``
SessionEnd          ``reason``: clear, prompt_input_exit, resume or other
==================  ============================================================================

``tool_name`` is the name the hook's matcher matched (``Bash`` for a ``Bash`` matcher, ``bash``
for ``bash`` or ``*``); ``tool_input`` is the call's arguments as the model gave them, plus
``file_path`` (absolute) for read_file, write_file and edit_file, the key Claude Code's scripts
read.

The answer, per hook:

- exit 0: stdout that is a JSON object is read (below); other stdout is context for the model
  for UserPromptSubmit and SessionStart, and ignored otherwise;
- exit 2: a block, stderr is the reason — PreToolUse: the call does not run and the model gets
  the reason; PostToolUse: the reason is added to the result the model gets; UserPromptSubmit:
  the prompt is not sent, the user sees the reason; Stop and SubagentStop: the model goes on,
  told the reason; PreCompact, SessionStart and SessionEnd cannot be blocked: the user sees it;
- any other exit, a timeout, a hook that cannot start, stdout over the limit, JSON that does
  not parse: a visible notice, and Larik carries on as if the hook had said nothing.

JSON fields: ``continue: false`` (with ``stopReason``) ends the turn; ``systemMessage`` is shown
to the user; ``decision: "block"`` with ``reason`` blocks like exit 2 (PostToolUse,
UserPromptSubmit, Stop; for PreToolUse the old ``approve``/``block`` mean allow/deny);
``hookSpecificOutput``: ``permissionDecision`` (allow, ask, deny) with
``permissionDecisionReason`` and ``updatedInput`` (keys replacing the call's arguments) for
PreToolUse, ``additionalContext`` for PostToolUse, UserPromptSubmit and SessionStart.

Hooks of one event run one after another, user's first, in config order; the first block ends
the round. A PreToolUse hook sees the input as earlier hooks left it. What a PreToolUse
``allow``/``ask`` means next to the permission rules is :mod:`larik.agent.permissions`'s to say.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..llm import jsontext
from ..llm.secrets import mask
from ..others_text import bounded
from .config import HookCommand, HookEntry, HooksConfig, tool_names
from .process import MAX_STDOUT, Finished, run_hook

__all__ = ["FILE_PATH_TOOLS", "Hooks", "HookNotice", "Launch", "Launcher", "Outcome"]

#: Larik's tools whose ``path`` Claude Code's scripts read as ``tool_input.file_path``.
FILE_PATH_TOOLS = ("read_file", "write_file", "edit_file")
MAX_REASON = 4_000  # characters of a block reason the model gets
MAX_CONTEXT = 10_000  # characters of context one hook adds (as Claude Code)


@dataclass(frozen=True, slots=True)
class HookNotice:
    text: str
    level: Literal["info", "warning"] = "warning"


@dataclass
class Outcome:
    """What the hooks of one event said, together."""

    block: str = ""
    """Non-empty: blocked, with this reason."""
    decision: Literal["", "allow", "ask"] = ""
    """PreToolUse: a hook's allow or ask (a deny is a block)."""
    decision_reason: str = ""
    updated_input: dict[str, Any] | None = None
    """PreToolUse: the call's arguments as the hooks left them (None: unchanged)."""
    context: list[str] = field(default_factory=list)
    """Text for the model (additionalContext; plain stdout at prompt and session start)."""
    stop: str | None = None
    """Not None: a hook said ``continue: false``; its stopReason ("" when it gave none)."""
    notices: list[HookNotice] = field(default_factory=list)
    """For the user: hook failures, systemMessage lines."""

    @property
    def ends(self) -> bool:
        return bool(self.block) or self.stop is not None


Base = Callable[[], Mapping[str, Any]]


@dataclass(frozen=True)
class Launch:
    """How one hook command starts: ``argv`` (None: ``bash -c COMMAND`` as it is), and
    ``explain``, which says what a failed hook's stderr may owe to the sandbox ("" nothing)."""

    argv: list[str] | None
    explain: Callable[[str], str] | None = None


#: ``(entry, command) -> Launch``: the agent's, which knows the session's OS sandbox.
Launcher = Callable[[HookEntry, str], Launch]
#: Events whose block (exit 2, decision "block") only shows the reason to the user.
_UNBLOCKABLE = ("PreCompact", "SessionStart", "SessionEnd")
#: Events whose additionalContext goes to the model.
_CONTEXT = ("PostToolUse", "UserPromptSubmit", "SessionStart")
#: Seconds SessionEnd's hooks may hold the exit, all of them together (Claude Code's upper
#: bound): each runs with what is left of it as its timeout, then the rest are skipped. A hook
#: declaring ``timeout = 600`` must not keep /exit (or SIGTERM) waiting ten minutes.
SESSION_END_BUDGET = 60.0


class Hooks:
    """The session's hooks. ``base`` gives the fields every event sends (session id,
    transcript path, permission mode): the agent sets it."""

    def __init__(self, config: HooksConfig, root: Path, launcher: Launcher | None = None) -> None:
        """``launcher``: how each hook starts — in the session's OS sandbox, as the agent
        works it out (:mod:`larik.sandbox.programs`); None: ``bash -c`` as it is."""
        self.config = config
        self.root = root
        self.launcher = launcher
        self.base: Base = dict

    def has(self, event: str) -> bool:
        return bool(self.config.entries(event))

    # -- events -----------------------------------------------------------------------------
    async def pre_tool_use(self, tool: str, tool_input: dict[str, Any], call_id: str) -> Outcome:
        sent = self._tool_input(tool, tool_input)
        current, changed = dict(tool_input), False
        out = Outcome()
        for entry, name in self._matching("PreToolUse", tool_names(tool)):
            for cmd in entry.commands():
                fields = {"tool_name": name, "tool_input": sent, "tool_use_id": call_id}
                out.updated_input = None
                await self._one("PreToolUse", entry, cmd, fields, out)
                if out.updated_input is not None:  # the next hook sees the new input
                    current, changed = _apply(tool, current, sent, out.updated_input), True
                    sent = self._tool_input(tool, current)
                out.updated_input = current if changed else None
                if out.ends:
                    return out
        return out

    async def post_tool_use(
        self, tool: str, tool_input: dict[str, Any], call_id: str, response: dict[str, Any]
    ) -> Outcome:
        sent = self._tool_input(tool, tool_input)
        out = Outcome()
        for entry, name in self._matching("PostToolUse", tool_names(tool)):
            for cmd in entry.commands():
                fields = {
                    "tool_name": name,
                    "tool_input": sent,
                    "tool_use_id": call_id,
                    "tool_response": response,
                }
                await self._one("PostToolUse", entry, cmd, fields, out)
                if out.ends:
                    return out
        return out

    async def user_prompt_submit(self, prompt: str) -> Outcome:
        return await self._simple("UserPromptSubmit", {"prompt": prompt})

    async def stop(self, active: bool, last_message: str) -> Outcome:
        fields = {"stop_hook_active": active, "last_assistant_message": last_message}
        return await self._simple("Stop", fields)

    async def subagent_stop(
        self, active: bool, last_message: str, role: str, transcript: str
    ) -> Outcome:
        fields = {
            "stop_hook_active": active,
            "last_assistant_message": last_message,
            "agent_type": role,
            "agent_transcript_path": transcript,
        }
        return await self._simple("SubagentStop", fields, (role,))

    async def pre_compact(self, trigger: str) -> Outcome:
        fields = {"trigger": trigger, "custom_instructions": ""}
        return await self._simple("PreCompact", fields, (trigger,))

    async def session_start(self, source: str, model: str) -> Outcome:
        return await self._simple("SessionStart", {"source": source, "model": model}, (source,))

    async def notification(self, message: str, title: str, kind: str) -> Outcome:
        """Notification (the TUI's): ``kind`` is Claude Code's ``notification_type``
        (``permission_prompt``, ``idle_prompt``) or Larik's ``job_finished``; cannot block."""
        fields = {"message": message, "title": title, "notification_type": kind}
        out = await self._simple("Notification", fields, (kind,))
        out.block, out.stop = "", None  # nothing to stop: a notification is only news
        return out

    async def session_end(self, reason: str) -> Outcome:
        """SessionEnd's hooks, within :data:`SESSION_END_BUDGET` all together."""
        out = Outcome()
        deadline = asyncio.get_running_loop().time() + SESSION_END_BUDGET
        for entry, _ in self._matching("SessionEnd", (reason,)):
            for cmd in entry.commands():
                left = round(deadline - asyncio.get_running_loop().time(), 1)
                if left <= 0:
                    out.notices.append(
                        HookNotice(
                            f"{_label('SessionEnd', cmd, entry)} skipped: SessionEnd hooks may "
                            f"hold the exit {SESSION_END_BUDGET:g} s in all",
                        )
                    )
                    continue
                timeout = min(cmd.timeout, left)
                await self._one("SessionEnd", entry, cmd, {"reason": reason}, out, timeout)
        return out

    # -- running ----------------------------------------------------------------------------
    def _matching(self, event: str, names: tuple[str, ...] | None) -> list[tuple[HookEntry, str]]:
        out = []
        for entry in self.config.entries(event):
            if names is None:
                out.append((entry, ""))
            elif (name := entry.matched_name(names)) is not None:
                out.append((entry, name))
        return out

    async def _simple(
        self, event: str, fields: dict[str, Any], names: tuple[str, ...] | None = None
    ) -> Outcome:
        out = Outcome()
        for entry, _ in self._matching(event, names):
            for cmd in entry.commands():
                await self._one(event, entry, cmd, fields, out)
                if out.ends:
                    return out
        return out

    async def _one(
        self,
        event: str,
        entry: HookEntry,
        cmd: HookCommand,
        fields: dict[str, Any],
        out: Outcome,
        timeout: float | None = None,
    ) -> None:
        payload = {
            **self.base(),
            "cwd": str(self.root),
            "hook_event_name": event,
            **fields,
        }
        data = mask(jsontext.dumps(payload, ensure_ascii=False, default=str)).encode(
            "utf-8", "replace"
        )
        timeout = cmd.timeout if timeout is None else timeout
        launch = self.launcher(entry, cmd.command) if self.launcher else Launch(None)
        finished = await run_hook(
            cmd.command, data, cwd=self.root, timeout=timeout, argv=launch.argv
        )
        _Reader(event, _label(event, cmd, entry), out, launch.explain).read(finished, timeout)

    def _tool_input(self, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
        """The arguments as a hook sees them: with ``file_path`` for the file tools."""
        sent = dict(tool_input)
        raw = tool_input.get("path")
        if tool in FILE_PATH_TOOLS and isinstance(raw, str):
            from ..paths import resolve_path

            sent["file_path"] = str(resolve_path(self.root, raw).path)
        return sent


def _apply(
    tool: str, current: dict[str, Any], sent: dict[str, Any], updated: dict[str, Any]
) -> dict[str, Any]:
    """The call's arguments after a hook's ``updatedInput``: its keys replace, a changed
    ``file_path`` is the new ``path``, and ``file_path`` itself is not an argument."""
    new = {**current, **{k: v for k, v in updated.items() if k != "file_path"}}
    fp = updated.get("file_path")
    if tool in FILE_PATH_TOOLS and fp is not None and fp != sent.get("file_path"):
        new["path"] = fp
    return new


def _label(event: str, cmd: HookCommand, entry: HookEntry) -> str:
    command = " ".join(cmd.command.split())
    command = command if len(command) <= 60 else command[:59] + "…"
    where = f" from {entry.source}" if entry.source else ""
    return f"{event} hook `{command}`{where}"


def _clip(text: str, limit: int) -> str:
    """A hook's text (a reason, context, a message), bounded and cleaned by the one rule of
    others' text (:func:`larik.others_text.bounded`)."""
    return bounded(text.strip(), limit)


class _Reader:
    """Reads one hook's ending into the round's Outcome."""

    def __init__(
        self, event: str, who: str, out: Outcome, explain: Callable[[str], str] | None = None
    ) -> None:
        self.event, self.who, self.out, self.explain = event, who, out, explain

    def note(self, text: str, level: Literal["info", "warning"] = "warning") -> None:
        self.out.notices.append(HookNotice(_clip(text, 500), level))

    def read(self, f: Finished, timeout: float) -> None:
        if f.error:
            return self.note(f"{self.who} could not start: {f.error}; carrying on without it")
        if f.timed_out:
            return self.note(
                f"{self.who} timed out after {timeout:g} s and was killed; carrying on"
            )
        if f.stray:
            self.note(f"{self.who} left processes holding its output open; they were killed")
        stderr = f.stderr.text().strip()
        if f.code == 2:
            return self.blocked(_clip(stderr, MAX_REASON) or f"blocked by the {self.who}")
        if f.code != 0:
            how = (
                f"was killed by signal {-(f.code or 0)}"
                if (f.code or 0) < 0
                else f"failed (exit {f.code})"
            )
            first = stderr.splitlines()[0] if stderr else "no message"
            self.note(f"{self.who} {how}: {first}; carrying on")
            if self.explain is not None and (why := self.explain(stderr)):
                self.note(why)  # it may be the sandbox's doing: what to set
            return None
        if f.stdout.over:
            return self.note(
                f"{self.who} printed more than {MAX_STDOUT >> 20} MiB ({f.stdout.total:,} bytes); "
                "its output was ignored"
            )
        text = f.stdout.text().strip()
        if not text.startswith("{"):
            if text and self.event in ("UserPromptSubmit", "SessionStart"):
                self.out.context.append(_clip(text, MAX_CONTEXT))
            return None
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            data = None
        if not isinstance(data, dict):
            return self.note(f"{self.who} printed something that is not valid JSON; ignored")
        return self.answer(data)

    def blocked(self, reason: str) -> None:
        if self.event in _UNBLOCKABLE:  # nothing to block: the user sees it
            return self.note(f"{self.who}: {reason}")
        self.out.block = reason
        return None

    def answer(self, data: dict[str, Any]) -> None:
        message = data.get("systemMessage")
        if isinstance(message, str) and message.strip():
            self.note(f"{self.who}: {message}")
        if data.get("continue") is False:
            reason = data.get("stopReason")
            self.out.stop = _clip(reason, 500) if isinstance(reason, str) else ""
        specific = data.get("hookSpecificOutput")
        specific = specific if isinstance(specific, dict) else {}
        decision, reason = data.get("decision"), _text(data.get("reason"))
        if self.event == "PreToolUse":
            return self.permission(specific, decision, reason)
        if decision == "block":
            return self.blocked(_clip(reason, MAX_REASON) or f"blocked by the {self.who}")
        context = specific.get("additionalContext")
        if isinstance(context, str) and context.strip() and self.event in _CONTEXT:
            self.out.context.append(_clip(context, MAX_CONTEXT))
        return None

    def permission(self, specific: dict[str, Any], decision: Any, reason: str) -> None:
        verdict = specific.get("permissionDecision")
        why = _text(specific.get("permissionDecisionReason"))
        if verdict is None and decision in ("approve", "block"):  # the older fields
            verdict, why = ("allow" if decision == "approve" else "deny"), reason
        if verdict == "deny":
            return self.blocked(_clip(why, MAX_REASON) or f"denied by the {self.who}")
        if verdict in ("allow", "ask"):
            if self.out.decision != "ask":  # ask wins over allow
                self.out.decision, self.out.decision_reason = verdict, _clip(why, 500)
        elif verdict is not None:
            self.note(
                f"{self.who}: permissionDecision {str(verdict)[:20]!r} is not allow, ask or deny; ignored"
            )
        updated = specific.get("updatedInput")
        if isinstance(updated, dict):
            self.out.updated_input = {**(self.out.updated_input or {}), **updated}
        elif updated is not None:
            self.note(f"{self.who}: updatedInput is not an object; ignored")
        return None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
