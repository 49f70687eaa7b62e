"""The face-neutral session: one conversation and everything it runs with.

A :class:`Session` is made from ``(cwd, config, options)`` and wires four parts around its agent
(:mod:`.port`: what it needs of one): the conversation (turns, cancel, events:
:mod:`.conversation`), the store (saved sessions, checkpoints, fork: :mod:`.store`), the servers
(MCP, resources, prompts, custom commands: :mod:`.servers`) and the settings (model, mode,
effort, budget, plan usage: :mod:`.settings`). A face reads ``status`` (a frozen
:class:`~.port.SessionStatus`), never the agent. Every face
— the TUI, print mode, bench, an editor over ACP — builds one and drives it; none builds an
agent or an MCP manager itself (tests/test_layers.py). Nothing heavy is imported until it is
needed: constructing a session imports no pydantic and no SDK, so the TUI paints first.

Driving it::

    session = Session(cwd, config, SessionOptions(model="anthropic/claude-sonnet-4-5"),
                      approver=my_dialog)
    await session.start()                    # MCP servers, custom commands, the agent
    turn = session.send("fix the failing test")
    async for ev in turn: ...                # the turn's AgentEvents (also on events())
    turn.result                              # TurnResult: stop, text, error, plan
    await session.close("prompt_input_exit")

The approval hook (``approver``) is the face's dialog: the TUI's modal, ACP's
request_permission; without one (print mode, bench) a call that needs asking is denied and the
model is told why. ``cancel()`` ends the running turn as Esc does: its commands are killed, the
transcript stays valid, and the turn ends with ``stop == "cancelled"`` (no exception for the
face that iterates it).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..agent.events import AgentEvent, Approval, PermissionRequest
from ..llm.errors import LarikError
from ..modes import AFTER_PLAN
from .conversation import Conversation, SessionBusy, Subscription, Turn
from .events import SessionEvent, SessionEventType, TurnResult
from .options import AgentFactory, SessionOptions
from .port import AgentPort, AgentSlot, SessionStatus, status_of
from .servers import AmbiguousCommand, PromptExpansion, Servers
from .settings import Settings
from .store import SessionStore

if TYPE_CHECKING:
    from ..agent.events import Approver
    from ..agent.tools import ToolResult
    from ..mcp.server import McpServer

__all__ = ["AmbiguousCommand", "Session", "SessionBusy", "Subscription", "Turn", "TurnResult"]

S = SessionEventType


class Session:
    """One conversation; see the module docstring. ``agent_factory`` replaces how the agent is
    built (tests hand the TUI an agent on the scripted provider); by default it is
    ``Agent.create`` with this session's options and MCP servers. Its parts are public:
    ``conversation``, ``store``, ``servers``, ``settings``."""

    def __init__(
        self,
        cwd: Path,
        config: Any,
        options: SessionOptions | None = None,
        *,
        approver: Approver | None = None,
        agent_factory: AgentFactory | None = None,
        mcp_login: Callable[[McpServer, str], None] | bool = True,
    ) -> None:
        self.cwd = Path(cwd)
        self.config = config
        self.options = o = options or SessionOptions()
        self.approver = approver  # the face's dialog; None: nobody to ask (denied, told why)
        self.factory: AgentFactory = agent_factory or self._create_agent
        self._slot = AgentSlot()
        self.conversation = c = Conversation()
        self.settings = Settings(
            self._slot, open=self.open, busy=lambda: c.busy, changed=c.changed, say=c.notice
        )
        c.on_turn_start = self.settings.budget.begin_turn
        c.on_reply = self.settings.reply_seen
        self.store = SessionStore(self.cwd, self._slot, c, self._replace)
        self.servers = Servers(
            self.cwd,
            lambda: self.config,
            self._slot,
            say=c.notice,
            changed=c.changed,
            login=mcp_login,  # True: a notice; False: none; else how its address reaches you
            enabled=o.mcp,
        )

    @property
    def agent(self) -> AgentPort | None:
        """The agent (``larik.agent.Agent`` or a test's stand-in), once opened: the parts'
        and the tests'. A face reads ``status`` instead (tests/test_layers.py)."""
        return self._slot.current

    # -- what a face reads --------------------------------------------------------------------
    @property
    def status(self) -> SessionStatus:
        """What a status line, ``/cost`` and an editor show, as of now."""
        agent = self._slot.current
        plans = self.settings.plan_usage if agent is not None else None
        return status_of(agent, busy=self.busy, plans=plans)

    @property
    def ready(self) -> bool:
        """Whether the session has its agent (a model) yet."""
        return self._slot.current is not None

    @property
    def busy(self) -> bool:
        return self.conversation.busy

    @property
    def session_id(self) -> str:
        agent = self._slot.current
        return agent.session_id if agent is not None else ""

    @property
    def spec(self) -> str:
        """The model in use as ``provider/model`` ("" before the agent exists)."""
        return self.settings.spec

    @property
    def permission_mode(self) -> str:
        return self.settings.mode

    # -- starting -----------------------------------------------------------------------------
    async def start(self, *, wait_for_servers: bool = False) -> None:
        """The MCP servers (started; ``wait_for_servers``: each settled first, so a one-shot
        task has their tools from its first request; a failure is a notice, as always),
        the custom commands, then the agent on ``options.model`` / ``options.resume``."""
        self.servers.prepare()
        self.servers.start()
        if wait_for_servers:
            await self.servers.wait_settled()
        if self.options.commands:
            await self.servers.discover_commands()
        await self.open(self.options.model, self.options.resume)

    async def open(self, model: str = "", resume: str | None = None) -> AgentPort:
        """Build the agent on ``model`` ("" the configured one), on a new session or on
        ``resume``'s, and make it this session's. Raises what building raises (a missing key,
        an unknown model, a session that is not there or is in use)."""
        agent = await self._build(model, resume)
        self._adopt(agent)
        self.conversation.publish(
            SessionEvent(S.OPENED, data={"reason": "start", "messages": len(agent.messages)})
        )
        return agent

    async def _build(self, model: str, resume: str | None) -> AgentPort:
        approver = self._approve if self.approver is not None else None
        agent: AgentPort = await self.factory(approver=approver, model=model, resume=resume)
        return agent

    async def _create_agent(
        self, *, approver: Approver | None, model: str = "", resume: str | None = None
    ) -> AgentPort:
        import importlib

        # the agent, its tools and routing: imported in a thread, so a face's screen stays live
        await asyncio.to_thread(importlib.import_module, "larik.agent.agent")
        from dataclasses import replace

        from ..agent import Agent

        options = replace(self.options, model=model, resume=resume)  # the agent's, whole
        return await Agent.create(
            cwd=self.cwd,
            config=self.config,
            options=options,
            approver=approver,
            tool_source=self.servers.prepare(),
        )

    def _adopt(self, agent: AgentPort) -> None:
        """``agent`` is the session's: the budget counts its spending from now on."""
        self._slot.current = agent
        self.settings.adopt(agent, self.config, self.options.max_budget_usd)

    async def _replace(self, resume: str | None, reason: str) -> None:
        """Another conversation in this one's place (the store's clear, resume, fork): effort
        and mode carry over; if it cannot be opened, this one goes on."""
        old = self._slot.need()
        self.conversation.idle(reason)
        new = await self._build(self.spec, resume)
        new.effort = old.effort
        new.permission_mode = old.permission_mode
        try:
            await old.close(reason)
        except Exception:  # the old session is saved already
            pass
        self._adopt(new)
        self.conversation.publish(
            SessionEvent(S.OPENED, data={"reason": reason, "messages": len(new.messages)})
        )

    async def _approve(self, request: PermissionRequest) -> Approval:
        hook = self.approver
        if hook is None:
            return Approval(False, reason="nobody can be asked")
        return await hook(request)

    # -- turns --------------------------------------------------------------------------------
    def send(self, prompt: Any, typed: str = "") -> Turn:
        """A turn on ``prompt`` (text, or blocks: attachments); ``typed``: a command as typed."""
        agent = self._slot.need()
        return self.conversation.turn(lambda: agent.run_turn(prompt, typed))

    def compact(self) -> Turn:
        """A turn that summarises the conversation to free context."""
        return self.conversation.turn(self._slot.need().compact)

    def accept_plan(self, mode: str = AFTER_PLAN[0]) -> Turn:
        """Leave plan mode for ``mode`` (one of ``AFTER_PLAN``) and carry the plan out."""
        from ..agent import plan

        if mode not in AFTER_PLAN:
            raise LarikError(
                f"a plan is carried out in {' or '.join(AFTER_PLAN)} mode, not {mode!r}"
            )
        self.settings.set_mode(mode)
        return self.send(plan.accepted(mode))

    async def run_command(self, name: str, args: str = "") -> Turn | None:
        """``/name args`` as a turn: a custom command (its expansion, then the turn) or an MCP
        server's prompt. None: no such command (a file added since is looked for first);
        :class:`AmbiguousCommand` for a short name two commands share. Built-in commands are
        the face's (they open its pickers): ``larik.session.commands.BUILTINS``."""
        agent = self._slot.need()
        found = await self.servers.expand(name, args)
        if found is None:
            return None
        if isinstance(found, PromptExpansion):
            turn = self.send(found.prompt, found.typed)
            turn.shown = found.shown
            return turn
        from ..custom_commands import command_turn

        cmd = found
        source: Callable[[], AsyncIterator[AgentEvent]] = lambda: command_turn(  # noqa: E731
            agent, cmd, args, self.config
        )
        return self.conversation.turn(source, f"/{cmd.name} {args}".rstrip())

    def cancel(self) -> bool:
        """End the running turn as Esc does (``Conversation.cancel``); False if none runs."""
        return self.conversation.cancel()

    def events(self, *, agent_events: bool = True) -> Subscription:
        """Every event from now on, in order: the turns' AgentEvents and the session's own
        SessionEvents; it ends when the session is closed. ``agent_events=False``: only the
        SessionEvents (a face that iterates its turns itself, and pays nothing per delta)."""
        return self.conversation.events(agent_events=agent_events)

    # -- a !command ---------------------------------------------------------------------------
    async def run_shell(
        self, command: str, on_output: Callable[[bytes], None] | None = None, timeout: float = 300.0
    ) -> tuple[ToolResult, float]:
        """Run ``command`` as the bash tool runs the model's (its own process group, killed at
        ``timeout`` or when cancelled; the output's tail kept), in the OS sandbox, and record
        it in the transcript (display only: the model does not see it). Returns (the tool's
        result, seconds)."""
        import time

        from ..agent.tools import ToolContext, bash

        started = time.monotonic()
        args = bash.Args(command=command, timeout=timeout, sandbox=True)
        result = await bash.run(args, ToolContext(root=self.cwd, on_output=on_output))
        from ..agent.shown import seconds, shell_record

        duration = seconds(time.monotonic() - started)  # as kept: a resumed card reads the same
        if self.ready:
            try:
                code = result.data.get("exit_code", -1)
                self.store.record(shell_record(command, result.content, code, duration))
            except Exception as e:  # the output was shown; the transcript could not say so
                self.conversation.notice(
                    f"the !command was not saved in the session: {e}", "warning"
                )
        return result, duration

    # -- closing ------------------------------------------------------------------------------
    async def close(self, reason: str = "other") -> list[AgentEvent]:
        """Cancel the running turn, close the agent (SessionEnd hooks run; the transcript is
        saved and unlocked), stop every MCP server; every events() stream ends. Returns the
        notices SessionEnd's hooks gave."""
        said = await self.close_agent(reason)
        await self.servers.close()
        self.conversation.end_streams()
        return said

    async def close_agent(self, reason: str = "other") -> list[AgentEvent]:
        self.cancel()
        agent = self._slot.current
        return list(await agent.close(reason) or []) if agent is not None else []
