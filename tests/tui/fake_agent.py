"""A small stand-in for ``larik.agent.Agent`` on the scripted provider, for the TUI's tests.

It implements the session's port (larik/session/port.py's ``AgentPort``: the session builds it
through an agent factory, larik/session/options.py) and the contract the TUI relies on: events in
order, the approver awaited before each tool call, replay rules applied to every request,
cancellation leaving the conversation valid. Tools do nothing but report; ``edit_file`` returns
a diff in ``data["diff"]``, ``bash`` an exit code.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from larik.agent.events import AgentEvent, AgentEventType, Approver, PermissionRequest
from larik.agent.jobs import JobTable
from larik.agent.permissions import PermissionPolicy
from larik.agent.usage import Accounting
from larik.llm.providers.scripted import ScriptedProvider
from larik.llm.replay import replayable_messages
from larik.llm.types import Block, EventType, Message, Request, StopReason, Usage

E = AgentEventType
SESSIONS: dict[str, list[Message]] = {}


class FakeAgent:
    def __init__(
        self, provider: ScriptedProvider, approver: Approver, spec: str, session: str
    ) -> None:
        self.provider = provider
        self.approver = approver
        self.provider_name, _, self.model = spec.partition("/")
        self.role: str | None = None
        self.effort = ""
        self.effort_applies: bool | None = True  # the scripted provider takes any effort
        self.permission_mode = "ask"
        self.messages: list[Message] = list(SESSIONS.get(session, []))
        self.usage = Accounting()
        self.reply_cost: float | None = 0.0  # None: a model the catalog has no price for
        self.context_tokens = 0
        self.context_window = 200_000
        self.session_id = session
        self.transcript_path = Path("/nonexistent") / f"{session}.jsonl"
        self.root = Path.cwd()
        self.tool_calls: list[tuple[str, dict[str, Any]]] = []  # run_tool's, for the tests
        self.tool_runner = self
        self.jobs = JobTable()  # none started: the fake runs no command
        self.hooks = None  # tool_runner.hooks: no hooks
        self.checkpoints = None  # it keeps none: /undo says so
        self.lsp = None
        self.log = SimpleNamespace(record=lambda record: None)  # display records: dropped
        self.permissions = PermissionPolicy(Path.cwd(), "ask")
        self.restored = None
        self.accepts_images: bool | None = None
        self.budget_check: Any = None
        self.warmer: float | None = None
        self.closed = False
        self.switches: list[str] = []
        SESSIONS[session] = self.messages

    @property
    def spec(self) -> str:
        return f"{self.provider_name}/{self.model}"

    async def run_tool(self, name: str, tool_input: dict[str, Any]) -> Any:
        """Asks the approver (ask mode) like the real one; a yes "runs" it: its output is the
        command after ``echo `` (else OUTPUT)."""
        from larik.agent.tools import ToolResult

        self.tool_calls.append((name, tool_input))
        if self.permission_mode == "ask":
            req = PermissionRequest(tool_name=name, tool_input=tool_input, summary=str(tool_input))
            answer = await self.approver(req)
            if not answer.allow:
                return ToolResult(
                    "permission denied: the user declined", True, data={"denied": True}
                )
        command = str(tool_input.get("command", ""))
        out = command.removeprefix("echo ") if command.startswith("echo ") else "OUTPUT"
        return ToolResult(f"{out}\n[exit code 0]")

    def path_denied(self, tool: str, path: Path) -> bool:
        return False

    def set_model(self, spec: str) -> Any:
        provider, _, model = spec.partition("/")
        if not model:
            from larik.llm.errors import ResolveError

            raise ResolveError(f"unknown model {spec!r}")
        self.provider_name, self.model = provider, model
        self.switches.append(spec)
        return type("Resolved", (), {"spec": spec})()

    async def close(self, reason: str = "other") -> None:
        self.closed = True
        self.close_reason = reason

    def compact(self) -> AsyncIterator[AgentEvent]:
        return self._compact()

    async def _compact(self) -> AsyncIterator[AgentEvent]:
        yield AgentEvent(E.NOTICE, text=f"compacted {len(self.messages)} messages")
        self.messages[:] = [Message.user("summary of the conversation")]
        yield AgentEvent(E.TURN_END, stop_reason=StopReason.END_TURN)

    async def run_turn(
        self, prompt: str | list[Block], typed: str = ""
    ) -> AsyncIterator[AgentEvent]:
        blocks = [Block.text_block(prompt)] if isinstance(prompt, str) else list(prompt)
        user = Message(role="user", blocks=blocks)
        self.messages.append(user)
        yield AgentEvent(E.MESSAGE, message=user)
        for _ in range(20):
            req = Request(
                model=self.model,
                messages=replayable_messages(self.messages, self.provider_name, self.model),
                effort=self.effort,  # type: ignore[arg-type]
            )
            text: list[str] = []
            done = None
            try:
                async for ev in self.provider.stream(req):
                    if ev.type is EventType.TEXT_DELTA:
                        text.append(ev.text)
                        yield AgentEvent(E.TEXT_DELTA, text=ev.text)
                    elif ev.type is EventType.THINKING_DELTA:
                        yield AgentEvent(E.THINKING_DELTA, text=ev.text)
                    elif ev.type is EventType.DONE:
                        done = ev
            except asyncio.CancelledError:
                partial = Message(
                    role="assistant",
                    blocks=[Block.text_block("".join(text))],
                    model=self.model,
                    interrupted=True,
                )
                self.messages.append(partial)
                raise
            assert done is not None and done.message is not None and done.usage is not None
            msg = done.message
            self.messages.append(msg)
            self._count(done.usage)
            yield AgentEvent(E.MESSAGE, message=msg)
            yield AgentEvent(E.USAGE, usage=done.usage, model=self.model, cost=self.reply_cost)
            if done.stop_reason is not StopReason.TOOL_USE:
                yield AgentEvent(E.TURN_END, stop_reason=done.stop_reason, text=msg.text())
                return
            results = []
            for tu in msg.tool_uses():
                args = tu.input_dict()
                summary = str(args.get("path") or args.get("command") or "")
                yield AgentEvent(
                    E.TOOL_START, tool_id=tu.id, tool_name=tu.name, tool_input=args, text=summary
                )
                diff = str(args.get("diff", ""))
                approval = await self.approver(PermissionRequest(tu.name, args, summary, diff))
                if approval.allow:
                    content, is_error = f"{tu.name} ok", False
                    data: dict[str, Any] = {"diff": diff} if diff else {}
                    if tu.name == "bash":
                        data["exit_code"] = 0
                else:
                    content = "denied by the user" + (
                        f": {approval.reason}" if approval.reason else ""
                    )
                    is_error, data = True, {"denied": True}
                yield AgentEvent(
                    E.TOOL_END,
                    tool_id=tu.id,
                    tool_name=tu.name,
                    text=content,
                    is_error=is_error,
                    duration=0.5,
                    data=data,
                )
                results.append(Block.tool_result(tu.id, content, is_error))
            um = Message(role="user", blocks=results)
            self.messages.append(um)
            yield AgentEvent(E.MESSAGE, message=um)

    def _count(self, usage: Usage) -> None:
        self.usage.add(f"{self.provider_name}/{self.model}", "main", usage, self.reply_cost)
        self.context_tokens = usage.context + usage.output
