"""One ACP session: a Larik :class:`~larik.session.Session` and what ties it to the client.

A prompt becomes a turn of the session (or a slash command: :mod:`larik.acp.commands`); the
turn's events go out as session updates (:mod:`larik.acp.updates`) as they come — text and
thinking deltas of the same 20 ms as one chunk (the first after a pause at once: a delta costs
a list append, not a message; benchmarks/acp.py); the turn's end is the prompt's answer:
its stop reason (``end_turn``, ``max_tokens``, ``max_turn_requests``, ``refusal``,
``cancelled``) and its usage. A turn that fails (a provider's error, no model) is a JSON-RPC
error whose message is Larik's one-line reason — what was said and done before it stays in the
transcript.

A tool call that needs the user's approval is shown to the client first (``tool_call``, status
``pending``), then asked about with ``session/request_permission``: allow once, allow always
(the rule Larik remembers for the session, as the TUI's dialog says it: ``PermissionRequest
.always``; not offered where Larik asks every time) or reject. ``session/cancel`` is Esc: the
session cancels the turn, its commands are killed, the transcript stays valid, the prompt
answers ``cancelled``.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from acp import RequestError, helpers
from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    PermissionOption,
    PromptResponse,
    ToolCallUpdate,
    UnstructuredCommandInput,
    Usage,
)

from ..agent.events import AgentEvent, AgentEventType, Approval, PermissionRequest
from ..agent.runner import CALL_ID
from ..llm.errors import LarikError
from ..modes import AFTER_PLAN, Mode
from ..session import SessionEvent, SessionEventType, Turn
from . import options, updates
from .commands import COMMANDS, run_builtin
from .content import convert

if TYPE_CHECKING:
    from ..session import Session
    from .agent import LarikAgent

__all__ = ["STOP_REASONS", "Conversation"]

log = logging.getLogger("larik.acp")
E = AgentEventType
S = SessionEventType

#: A turn's end (``TurnResult.stop``) as an ACP stop reason; anything else ends the turn.
STOP_REASONS = {
    "max_tokens": "max_tokens",
    "max_turns": "max_turn_requests",
    "budget": "max_turn_requests",  # the closest the schema has: a limit on the turn's requests
    "refusal": "refusal",
    "cancelled": "cancelled",
}
ANNOUNCE_WAIT = 10.0  # seconds an approval waits for its call to reach the client first
COALESCE = 0.02  # seconds of text deltas sent as one chunk (a 50 Hz screen sees no difference)
ALLOW, ALWAYS, REJECT = "allow", "always", "reject"
PLAN_CHOICES = (
    (Mode.EDITS, "Yes, and edit freely (edits mode)", "allow_always"),
    (Mode.ASK, "Yes, approving each edit (ask mode)", "allow_once"),
    ("keep", "No, keep planning", "reject_once"),
)
#: The safe answer first, as the TUI's focus starts on "Don't trust": an editor highlights the
#: first option, and a stray Enter must not trust a project that asks for yolo.
TRUST_CHOICES = (
    ("now", "Not now", "reject_once"),
    ("never", "Don't trust it", "reject_always"),
    ("trust", "Trust this folder", "allow_always"),
)


class Conversation:
    def __init__(self, host: LarikAgent, session: Session) -> None:
        self.host = host
        self.session = session
        self.id = session.session_id
        self.root = Path(session.cwd).resolve()
        self.models: list[tuple[str, str, str]] = []  # options.model_choices, once computed
        self._announced: dict[str, asyncio.Event] = {}
        self._outputs: dict[str, str] = {}  # a running command's output so far
        self._open: dict[str, None] = {}  # calls shown and not ended, in the order they started
        self._offered: list[Any] | None = None  # the commands last advertised
        self._usage = Usage(total_tokens=0, input_tokens=0, output_tokens=0)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._pump: asyncio.Task[None] | None = None
        self._pending: list[tuple[str, list[str]]] = []  # text and thinking not sent yet
        self._timer: asyncio.TimerHandle | None = None
        self._sent_at = 0.0  # loop time of the last flush
        self.trust: Any = None  # the project's ProjectTrust while its question waits
        self.servers: list[Any] = []  # the client's MCP servers (a rebuilt session gets them)
        self._asked = 0  # questions asked that are not a tool call's (their ids)

    # -- starting and stopping ----------------------------------------------------------------
    def start_pump(self) -> None:
        """Forward what the session says outside turns (an MCP server failed, a command file
        is malformed, the mode changed) for as long as it lives."""
        events = self.session.events(agent_events=False)
        self._pump = asyncio.ensure_future(self._forward(events))

    async def _forward(self, events: Any) -> None:
        async for ev in events:
            if not isinstance(ev, SessionEvent):
                continue
            if ev.type is S.NOTICE:
                await self.send(updates.notice(ev.text, ev.level))
            elif ev.type is S.CHANGED and ev.text in ("mode", "model", "effort"):
                await self.send_settings(mode=ev.text == "mode")
            elif ev.type is S.CHANGED and ev.text == "mcp":  # a server's prompts came or went
                await self.send_commands()

    async def close(self, reason: str = "other") -> None:
        try:
            await self.session.close(reason)
        finally:
            if self._pump is not None:
                self._pump.cancel()

    async def replace(self, session: Session) -> None:
        """Go on in ``session`` (the same id: a session rebuilt on a trusted config)."""
        old, self.session = self.session, session
        await old.close("other")
        if self._pump is not None:
            self._pump.cancel()
        self.start_pump()

    # -- what the client is told ----------------------------------------------------------------
    async def send(self, update: Any) -> None:
        """One session update; a client that is gone is not an error here (the connection's
        end closes the session)."""
        try:
            await self.host.client.session_update(self.id, update)
        except (ConnectionError, OSError) as e:
            log.debug("larik acp: an update was not delivered: %s", e)

    def later(self, coro: Any) -> None:
        """Run ``coro`` after the current request is answered (its response is queued first)."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _stream(self, kind: str, text: str) -> None:
        """A text or thinking delta: sent with the others of the next :data:`COALESCE`
        seconds as one chunk (at once after a pause)."""
        if self._pending and self._pending[-1][0] == kind:
            self._pending[-1][1].append(text)
        else:
            self._pending.append((kind, [text]))
        if self._timer is None:
            loop = asyncio.get_running_loop()
            wait = max(0.0, self._sent_at + COALESCE - loop.time())
            self._timer = loop.call_later(wait, self._flush_later)

    def _flush_later(self) -> None:
        self._timer = None
        self.later(self.flush())

    async def flush(self) -> None:
        """Send the text and thinking gathered so far, a chunk per run of one kind. Each is
        taken and written in one step (a send writes before it waits), so the order holds
        whoever flushes — the timer, or an update that must come after them."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._sent_at = asyncio.get_running_loop().time()
        while self._pending:
            kind, parts = self._pending.pop(0)
            text = "".join(parts)
            if kind == "thought":
                await self.send(helpers.update_agent_thought_text(text))
            else:
                await self.send(helpers.update_agent_message_text(text))

    async def send_settings(self, *, mode: bool = False) -> None:
        if mode:
            await self.send(helpers.update_current_mode(self.session.permission_mode))
        await self.send(
            ConfigOptionUpdate(
                session_update="config_option_update", config_options=self.config_options()
            )
        )

    def config_options(self) -> list[Any]:
        return options.config_options(self.session, self.models)

    async def send_commands(self) -> None:
        """``available_commands_update`` when the commands differ from those last advertised
        (a command file added, an MCP server's prompts): not after every turn."""
        rows = [(b.name, b.summary, b.usage) for b in COMMANDS]
        rows += [
            (name, summary, usage) for name, usage, summary in self.session.servers.command_rows()
        ]
        commands = []
        for name, summary, usage in rows:
            hint = usage.partition(" ")[2]
            commands.append(
                AvailableCommand(
                    name=name,
                    description=summary,
                    input=AvailableCommandInput(UnstructuredCommandInput(hint=hint))
                    if hint
                    else None,
                )
            )
        if commands == self._offered:
            return
        self._offered = commands
        update = AvailableCommandsUpdate(
            session_update="available_commands_update", available_commands=commands
        )
        await self.send(update)

    # -- a prompt -------------------------------------------------------------------------------
    async def prompt(self, blocks: list[Any]) -> PromptResponse:
        if self.session.busy:
            raise RequestError.invalid_request(
                {"details": "a turn is running in this session: cancel it first"}
            )
        if self.trust is not None:
            await self._settle_trust()
        converted = convert(blocks, self.root, self.session.settings.path_denied)
        for problem in converted.problems:
            await self.send(updates.notice(problem, "warning"))
        prompt = converted.prompt()
        turn = await self._turn(prompt, converted.typed)
        if isinstance(turn, str):  # a built-in command answered
            await self.send(helpers.update_agent_message_text(turn))
            return PromptResponse(stop_reason="end_turn")
        return await self.run(turn)

    async def _turn(self, prompt: str | list[Any], typed: str = "") -> Turn | str:
        """``typed``: the editor's text, kept for the lists and /rewind when files came with it."""
        from ..session import AmbiguousCommand
        from ..session.commands import parse

        parsed = parse(prompt) if isinstance(prompt, str) else None
        if parsed is None:
            return self.session.send(prompt, typed)
        name, args = parsed
        try:
            answer = await run_builtin(self, name, args)
            if answer is not None:
                return answer
            turn = await self.session.run_command(name, args)
        except AmbiguousCommand as e:
            return str(e)
        except LarikError as e:
            return f"/{name}: {e}"
        return turn if turn is not None else self.session.send(prompt)

    async def run(self, turn: Turn) -> PromptResponse:
        """Drive ``turn`` to its end, sending its events; the prompt's answer."""
        self._usage = Usage(total_tokens=0, input_tokens=0, output_tokens=0)
        try:
            result = await turn.run(self._on_event)
        finally:
            await self.flush()
            await self._end_open_calls()
            self._announced.clear()
            self._outputs.clear()
        if result.stop == "error":
            raise RequestError(-32603, result.error or "the turn failed", {"details": result.error})
        if result.plan and self.session.permission_mode == Mode.PLAN:
            await self.send(updates.plan_update(result.plan))
            mode = await self.choose(
                "Carry out the plan?", "switch_mode", result.plan, PLAN_CHOICES
            )
            if mode in AFTER_PLAN:
                return await self.run(self.session.accept_plan(mode))
        await self.send_commands()  # a command file added during the turn is offered now
        stop: Any = STOP_REASONS.get(result.stop, "end_turn")
        return PromptResponse(stop_reason=stop, usage=self._usage)

    # -- questions that are not a tool call's ---------------------------------------------------
    async def choose(
        self, title: str, kind: str, body: str, choices: tuple[tuple[str, str, str], ...]
    ) -> str:
        """Ask the user through ``session/request_permission`` about something of Larik's own
        (the plan, the folder's trust): shown as a call of its own first. ``choices``:
        ``(option id, label, ACP kind)``. The option picked; "" when cancelled or unanswered."""
        self._asked += 1
        call_id = f"larik-{kind}-{self._asked}"
        content = [updates.text_content(body)]
        start = helpers.start_tool_call(
            call_id, title, kind=cast(Any, kind), status="pending", content=content
        )
        await self.send(start)
        options = [PermissionOption(option_id=i, name=n, kind=cast(Any, k)) for i, n, k in choices]
        call = ToolCallUpdate(tool_call_id=call_id, title=title, status="pending")
        try:
            answer = await self.host.client.request_permission(
                session_id=self.id, tool_call=call, options=options
            )
            picked = getattr(answer.outcome, "option_id", "") or ""
        except (ConnectionError, OSError, RequestError):
            picked = ""
        if picked not in {i for i, _, _ in choices}:
            picked = ""
        label = next((n for i, n, _ in choices if i == picked), "no answer")
        await self.send(
            helpers.update_tool_call(call_id, status="completed", title=f"{title} {label}")
        )
        return picked

    async def _settle_trust(self) -> None:
        """The project's "Trust this folder?", asked at its first prompt (a question needs a
        session the client knows); trusted, the session is rebuilt on the trusted config under
        the same id before the prompt goes on. The answer is remembered as the TUI's is."""
        from .. import trust
        from ..config import state_dir

        pt, self.trust = self.trust, None
        body = f"{pt.root} asks for settings that loosen safety or run code:\n" + "\n".join(
            f"- {a}" for a in pt.asks
        )
        answer = await self.choose("Trust this folder?", "other", body, TRUST_CHOICES)
        if answer in ("trust", "never"):
            try:
                await asyncio.to_thread(
                    trust.remember, state_dir(), pt.root, pt.digest, answer == "trust"
                )
            except OSError as e:
                await self.send(updates.notice(f"the answer was not remembered: {e}", "warning"))
        if answer != "trust":
            await self.send(updates.notice(pt.ignored_line().removeprefix("larik: "), "warning"))
            return
        await self.host.rebuild(self)
        await self.send(updates.notice(f"trusted {pt.root}: applied " + "; ".join(pt.asks)))

    def _on_event(self, ev: AgentEvent) -> Any:
        """A delta is kept for the next chunk (no coroutine made for it: this runs once per
        delta); any other event is sent by :meth:`_shown`, after what streamed before it."""
        t = ev.type
        if t is E.TEXT_DELTA:
            self._stream("message", ev.text)
        elif t is E.THINKING_DELTA:
            self._stream("thought", ev.text)
        elif t in _SHOWN:
            return self._shown(ev)
        return None

    async def _shown(self, ev: AgentEvent) -> None:
        t = ev.type
        if self._pending:  # what streamed before this event goes first
            await self.flush()
        if t is E.TOOL_START:
            self._open[ev.tool_id] = None
            await self.send(updates.tool_start(self.root, ev))
            self._announced.setdefault(ev.tool_id, asyncio.Event()).set()
        elif t is E.TOOL_OUTPUT:
            out = self._outputs.get(ev.tool_id, "") + ev.text
            self._outputs[ev.tool_id] = out[-updates.SHOWN_OUTPUT * 2 :]
            await self.send(updates.tool_output(ev.tool_id, self._outputs[ev.tool_id]))
        elif t is E.TOOL_END:
            self._open.pop(ev.tool_id, None)
            self._outputs.pop(ev.tool_id, None)
            await self.send(updates.tool_end(self.root, ev))
        elif t is E.NOTICE:
            await self.send(updates.notice(ev.text, str(ev.level)))
        elif t is E.USAGE:
            await self._count(ev)

    async def _count(self, ev: AgentEvent) -> None:
        u, total = ev.usage, self._usage
        if u is not None:
            total.input_tokens += u.input + u.cache_read + u.cache_write
            total.output_tokens += u.output
            total.total_tokens = total.input_tokens + total.output_tokens
            total.cached_read_tokens = (total.cached_read_tokens or 0) + u.cache_read
            total.cached_write_tokens = (total.cached_write_tokens or 0) + u.cache_write
        status = self.session.status
        await self.send(updates.usage(status.context_tokens, status.context_window, status.cost))

    async def _end_open_calls(self) -> None:
        """Every call the turn left unfinished (it was cancelled while the call ran, or the
        turn failed) gets its final status: ``failed`` — ACP v1 has no ``cancelled`` — and
        why, so no editor shows it running forever."""
        while self._open:
            tool_id = next(iter(self._open))
            del self._open[tool_id]
            await self.send(updates.tool_cut_short(tool_id))

    def cancel(self) -> None:
        self.session.cancel()

    # -- the permission dialog --------------------------------------------------------------
    async def announced(self, tool_id: str) -> None:
        """Wait until call ``tool_id`` has been shown to the client (its ``tool_call``): the
        tool runs in a task of its own, the turn's events reach the client in this one."""
        shown = self._announced.setdefault(tool_id, asyncio.Event())
        try:  # asyncio.timeout, not wait_for: 3.11's wait_for can swallow a cancel
            async with asyncio.timeout(ANNOUNCE_WAIT):
                await shown.wait()
        except TimeoutError:
            pass

    async def approve(self, req: PermissionRequest) -> Approval:
        """Larik's permission question as ``session/request_permission``."""
        tool_id = CALL_ID.get()
        await self.announced(tool_id)
        choices = [PermissionOption(option_id=ALLOW, name="Allow", kind="allow_once")]
        if req.always:
            name = f"Always allow {req.always}"
            choices.append(PermissionOption(option_id=ALWAYS, name=name, kind="allow_always"))
        choices.append(PermissionOption(option_id=REJECT, name="Reject", kind="reject_once"))
        content: list[Any] | None = None
        if req.diff:
            content = [updates.text_content(f"```diff\n{req.diff.rstrip()}\n```")]
        call = ToolCallUpdate(
            tool_call_id=tool_id, title=req.summary, status="pending", content=content
        )
        try:
            answer = await self.host.client.request_permission(
                session_id=self.id, tool_call=call, options=choices
            )
        except (ConnectionError, OSError, RequestError) as e:
            return Approval(False, reason=f"the editor did not answer ({e})")
        outcome = answer.outcome
        picked = getattr(outcome, "option_id", None)
        if picked == ALLOW:
            return Approval(True)
        if picked == ALWAYS and req.always:
            return Approval(True, always=True)
        if getattr(outcome, "outcome", "") == "cancelled":
            return Approval(False, reason="the user cancelled the turn")
        return Approval(False, reason="the user said no")


_SHOWN = frozenset({E.TOOL_START, E.TOOL_OUTPUT, E.TOOL_END, E.NOTICE, E.USAGE})
