"""Subagents: what the ``task`` tool runs, and how its answer is read.

``Agent.spawn(role)`` builds the subagent: it resolves its role through the parent's resolver
(so it gets that role's model and fallbacks), works in the same project under the same
permission policy (an "allow always" given to it holds for the session), shares the parent's
session context and running-process table (so an interrupt kills its commands too), and keeps
no transcript of its own. ``explore`` gets the read-only tools; any other role every tool but
``task`` (``tools_for``).

``subagent_answer`` drives its one turn: USAGE and NOTICE events go to the parent (which
counts the usage, records both in its transcript with ``subagent`` and forwards them to the
front end); the rest stays inside; the final text is the answer. This module does not know the
Agent class (:class:`Parent` and :class:`Child` say what it uses of one): the agent imports it,
never the other way round.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..llm.errors import LarikError
from ..llm.types import Usage
from .events import AgentEvent, AgentEventType
from .runner import CALL_ID
from .tools import ALL_TOOLS, READ_ONLY_TOOLS, ToolError

if TYPE_CHECKING:
    from .history import History
    from .settings import AgentSettings

__all__ = [
    "Parent",
    "Relay",
    "SubStep",
    "run_task",
    "subagent_answer",
    "subagent_links",
    "subagent_path",
    "subagent_steps",
    "tools_for",
]

E = AgentEventType


_FORWARDED = (E.USAGE, E.NOTICE, E.TOOL_START, E.TOOL_END)


class Child(Protocol):
    """What :func:`run_task` uses of a subagent (an Agent)."""

    @property
    def model(self) -> str: ...
    @property
    def provider_name(self) -> str: ...
    @property
    def session_id(self) -> str: ...
    def run_turn(self, prompt_: str, typed: str = "") -> AsyncIterator[AgentEvent]: ...
    async def close(self, reason: str = "other") -> list[AgentEvent]: ...


class Parent(Protocol):
    """What :func:`run_task` uses of the agent whose ``task`` tool runs it (an Agent)."""

    @property
    def settings(self) -> AgentSettings: ...
    @property
    def history(self) -> History: ...
    @property
    def emit(self) -> Callable[[AgentEvent], None] | None: ...
    def spawn(self, role: str, transcript_path: Path | None = None) -> Child: ...
    def next_subagent(self, role: str) -> Path | None: ...


def tools_for(role: str) -> tuple[str, ...]:
    return READ_ONLY_TOOLS if role == "explore" else tuple(t for t in ALL_TOOLS if t != "task")


def subagent_path(parent: Path | None, n: int, role: str) -> Path | None:
    """Where the ``n``-th subagent of a session keeps its transcript: beside the parent's, in
    ``SESSION.subagents/`` (never listed as a session of its own); None when the parent keeps
    none."""
    return None if parent is None else _folder(parent) / f"{n:02d}-{role}.jsonl"


def _folder(parent: Path) -> Path:
    return parent.with_name(f"{parent.stem}.subagents")


@dataclass
class Relay:
    """Where a subagent's events go. Usage is counted by the parent (``account`` returns the
    event it records); notices are recorded in the parent's transcript with ``subagent``; tool
    starts and ends go to the front end with ``subagent`` and ``data["parent_tool_id"]`` (the
    task call they belong to), so it can show them inside that call's card. ``link`` records
    where the subagent's own transcript is (``kind: "subagent"``)."""

    role: str
    account: Callable[[AgentEvent], AgentEvent]
    record: Callable[[dict[str, Any]], None]
    emit: Callable[[AgentEvent], None] | None
    call_id: str = field(default_factory=CALL_ID.get)

    def link(self, transcript: Path | None, parent: Path | None, session_id: str) -> None:
        rec: dict[str, Any] = {"kind": "subagent", "role": self.role, "tool_id": self.call_id}
        if transcript is not None and parent is not None:  # relative: the folder may move
            rec["transcript"] = os.path.relpath(transcript, parent.parent)
        self.record({**rec, "session": session_id})

    def __call__(self, ev: AgentEvent) -> None:
        ev.subagent = self.role
        if ev.type is E.USAGE:
            ev = self.account(ev)
        elif ev.type is E.NOTICE:
            rec = {"kind": "notice", "text": ev.text, "level": ev.level.value}
            self.record({**rec, "subagent": self.role})
        else:
            ev.data = {**ev.data, "parent_tool_id": self.call_id}
        if self.emit is not None:
            self.emit(ev)


@dataclass(frozen=True)
class SubStep:
    """One tool call a subagent made, for a front end's card: status running/ok/error."""

    name: str
    args: dict[str, Any]  # as the model sent them ({} when they were not a JSON object)
    status: str


def subagent_links(transcript: Path) -> dict[str, Path]:
    """Task call id -> its subagent's transcript, from a session's ``subagent`` records. A
    link that leaves the session's ``.subagents`` folder (a hand-edited or hostile file) is
    dropped; an unreadable transcript gives none."""
    from .transcript import TranscriptError, load_transcript

    if not _folder(transcript).is_dir():
        return {}  # no subagent ever wrote here: do not read the session twice
    try:
        records = load_transcript(transcript).records
    except (TranscriptError, OSError):
        return {}
    folder = _folder(transcript).resolve()
    out: dict[str, Path] = {}
    for rec in records:
        rel, tool_id = rec.get("transcript"), rec.get("tool_id")
        if (
            rec.get("kind") != "subagent"
            or not isinstance(rel, str)
            or not isinstance(tool_id, str)
        ):
            continue
        path = (transcript.parent / rel).resolve()
        if path.parent == folder and path.suffix == ".jsonl":
            out[tool_id] = path
    return out


def subagent_steps(path: Path) -> list[SubStep]:
    """The tool calls in a subagent's transcript, in order, with how each ended."""
    from .transcript import TranscriptError, load_transcript

    try:
        messages = load_transcript(path).messages
    except (TranscriptError, OSError):
        return []
    ended = {b.id: b.is_error for m in messages for b in m.blocks if b.type == "tool_result"}
    steps = []
    for m in messages:
        for b in m.tool_uses():
            status = "running" if b.id not in ended else "error" if ended[b.id] else "ok"
            try:
                args = b.input_dict()
            except ValueError:
                args = {}
            steps.append(SubStep(b.name, args, status))
    return steps


async def subagent_answer(
    role: str, events: AsyncIterator[AgentEvent], forward: Callable[[AgentEvent], None]
) -> str:
    """The final answer of the subagent turn ``events``; its usage, notices and tool starts
    and ends go to ``forward``. A failed turn raises ToolError (the model sees an error
    result)."""
    answer, error, max_turns, stuck, budget = "", "", False, "", False
    async for ev in events:
        if ev.type in _FORWARDED and (ev.type is not E.USAGE or ev.usage is not None):
            forward(ev)
        elif ev.type is E.TURN_END:
            answer, max_turns = ev.text, bool(ev.data.get("max_turns"))
            stuck = str(ev.data.get("stuck") or "")
            budget = bool(ev.data.get("budget"))
        elif ev.type is E.ERROR:
            error = ev.text
    if error:
        raise ToolError(f"the {role} subagent failed: {error}")
    if max_turns:
        answer += f"\n[the {role} subagent stopped at the max-turns limit before finishing]"
    if stuck:
        answer += (
            f"\n[the {role} subagent was stopped: it was stuck repeating itself ({stuck}) "
            "before finishing; do not give it the same job again unchanged]"
        )
    if budget:
        answer += f"\n[the {role} subagent was stopped: its next request would cross the budget]"
    return answer.strip() or f"(the {role} subagent finished without an answer)"


async def run_task(parent: Parent, role: str, prompt: str) -> str:
    """The task tool of ``parent``: a subagent on ``role`` with its own transcript, linked from
    the parent's; its usage counted there, its events relayed (:class:`Relay`)."""
    path = parent.next_subagent(role)
    try:
        sub = parent.spawn(role, path)
    except LarikError as e:
        raise ToolError(f"cannot start the {role} subagent: {e}") from None

    def account(ev: AgentEvent) -> AgentEvent:
        provider = sub.provider_name if ev.model == sub.model else None
        return parent.history.account(ev.usage or Usage(), ev.model, provider, ev.role, role)

    relay = Relay(role, account, parent.history.record, parent.emit)
    relay.link(path, parent.settings.transcript_path, sub.session_id)
    try:
        return await subagent_answer(role, sub.run_turn(prompt), relay)
    finally:
        await sub.close()
