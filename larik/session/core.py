"""The face-neutral session: one conversation and everything it runs with.

A :class:`Session` is made from ``(cwd, config, options)`` and owns the agent, the MCP servers,
the custom-command catalogue, the checkpoints (through the agent) and the transcript. Every face
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
import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..agent.events import AgentEvent, AgentEventType, Approval, PermissionRequest
from ..llm.effort import Effort
from ..llm.errors import LarikError
from ..modes import AFTER_PLAN, Mode, parse_mode
from ..words import count
from . import plans
from .budget import Budget, limits_of
from .commands import builtin_names
from .events import SessionEvent, SessionEventType, TurnResult
from .options import AgentFactory, SessionOptions

if TYPE_CHECKING:
    from ..agent.events import Approver
    from ..custom_commands import CommandCatalog
    from ..mcp.manager import McpManager
    from ..mcp.server import McpServer

__all__ = ["AmbiguousCommand", "Session", "SessionBusy", "Subscription", "Turn", "spec_of"]

E = AgentEventType
S = SessionEventType
Event = AgentEvent | SessionEvent
_CLOSED = object()  # the end of every events() stream


def spec_of(agent: Any) -> str:
    """``provider/model`` of an agent's current model."""
    spec = getattr(agent, "spec", "")
    if spec:
        return str(spec)
    model = getattr(agent, "model", "") or ""
    provider = getattr(agent, "provider_name", "") or ""
    return f"{provider}/{model}" if provider and model else str(model)


class SessionBusy(LarikError):
    """A turn was started while another one runs."""


class AmbiguousCommand(LarikError):
    """A short command name that more than one custom command has."""

    def __init__(self, name: str, names: list[str]) -> None:
        super().__init__(f"/{name} is ambiguous: " + ", ".join(f"/{n}" for n in names))
        self.names = names


class Turn:
    """One turn: iterate it once for its events (each also goes to ``Session.events()``), or
    ``await turn.run(on_event)``; ``result`` says how it ended. ``shown``: the user's message as
    a face shows it (a command's expansion is not what was typed)."""

    def __init__(
        self, session: Session, source: Callable[[], AsyncIterator[AgentEvent]], shown: str = ""
    ) -> None:
        self.session = session
        self._source = source
        self.shown = shown
        self.result = TurnResult()
        self._started = False

    def __aiter__(self) -> AsyncGenerator[AgentEvent, None]:
        return self._events()

    async def run(self, on_event: Callable[[AgentEvent], Any] | None = None) -> TurnResult:
        """Drain the turn, handing each event to ``on_event`` (awaited if it returns an
        awaitable). A ``cancel()`` that lands in ``on_event`` ends the turn too."""
        try:
            async with aclosing(self._events()) as events:
                async for ev in events:
                    if on_event is not None:
                        out = on_event(ev)
                        if inspect.isawaitable(out):
                            await out
        except asyncio.CancelledError:
            if not self.session._cancelled_by_request():
                raise
            self.result.stop = "cancelled"
        return self.result

    async def _events(self) -> AsyncGenerator[AgentEvent, None]:
        s = self.session
        if self._started:
            raise LarikError("a turn runs once")
        self._started = True
        s._begin()
        finished = False
        try:
            async with aclosing(self._source()) as source:  # type: ignore[type-var]
                async for ev in source:
                    self._note(ev)
                    s._publish(ev)
                    if ev.type is E.USAGE:  # a reply may bring a plan's new usage figures
                        s._plan_seen()
                    yield ev
            finished = True
        except asyncio.CancelledError:
            self.result.stop = "cancelled"
            if not s._cancelled_by_request():
                raise
            finished = True
        except LarikError as e:
            self.result.stop, self.result.error = "error", str(e)
            raise
        finally:
            if not finished and not self.result.stop:
                self.result.stop = "cancelled"  # closed early by the face (or a stop signal)
            s._end(self.result)

    def _note(self, ev: AgentEvent) -> None:
        r = self.result
        if ev.type is E.TURN_END and not ev.subagent:
            r.text = ev.text
            r.stop = "max_turns" if ev.data.get("max_turns") else str(ev.stop_reason or "")
            r.plan = str(ev.data.get("plan") or "")
        elif ev.type is E.ERROR and not ev.subagent:
            r.stop, r.error = "error", ev.text


class Subscription:
    """One ``events()`` stream: subscribed when made, so nothing published after is missed."""

    def __init__(self, session: Session, *, agent_events: bool = True) -> None:
        self._session = session
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._list = session._subscribers if agent_events else session._quiet
        self._list.append(self._queue)

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Event:
        item = await self._queue.get()
        if item is _CLOSED:
            self.close()
            raise StopAsyncIteration
        return item  # type: ignore[no-any-return]

    def drain(self) -> list[Event]:
        """What was published and not read yet, without waiting (then ``close()`` it)."""
        out = []
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if item is not _CLOSED:
                out.append(item)
        return out

    def close(self) -> None:
        if self._queue in self._list:
            self._list.remove(self._queue)


class Session:
    """One conversation; see the module docstring. ``agent_factory`` replaces how the agent is
    built (tests hand the TUI an agent on the scripted provider); by default it is
    ``Agent.create`` with this session's options and MCP servers."""

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
        self.options = options or SessionOptions()
        self.approver = approver  # the face's dialog; None: nobody to ask (denied, told why)
        self.factory: AgentFactory = agent_factory or self._create_agent
        self.mcp_login = mcp_login  # True: a notice; False: none (the server fails, saying
        # to run `larik mcp login NAME`); else how an OAuth login's address reaches the user
        self.agent: Any = None  # larik.agent.Agent (or a test's stand-in), once opened
        self.mcp: McpManager | None = None
        self.commands: CommandCatalog | None = None
        self.busy = False
        self._said: set[str] = set()  # command-file problems said already
        self._subscribers: list[asyncio.Queue[Any]] = []
        self._quiet: list[asyncio.Queue[Any]] = []  # events(agent_events=False): SessionEvents
        self._task: asyncio.Task[Any] | None = None
        self._cancel_requested = False
        self._plan_version: tuple[tuple[str, float], ...] = ()
        self.budget = Budget(lambda text: self._notice(text, "warning"))  # budget.py

    # -- what a status line shows -------------------------------------------------------------
    @property
    def session_id(self) -> str:
        return str(getattr(self.agent, "session_id", "") or "")

    @property
    def spec(self) -> str:
        """The model in use as ``provider/model`` ("" before the agent exists)."""
        return spec_of(self.agent) if self.agent is not None else ""

    @property
    def permission_mode(self) -> str:
        return str(getattr(self.agent, "permission_mode", "") or "")

    @property
    def messages(self) -> list[Any]:
        return list(getattr(self.agent, "messages", None) or [])

    @property
    def checkpoints(self) -> Any:
        """The session's checkpoints (None: it keeps none, e.g. bench)."""
        return getattr(self.agent, "checkpoints", None)

    @property
    def plan_usage(self) -> dict[str, Any]:
        """Provider -> usage windows (``Quota``) of the signed-in plans used (:mod:`.plans`)."""
        return plans.plan_usage(self.agent)

    @property
    def plan_status(self) -> str:
        """The model in use's plan windows for a status line (``plus 5h 37% · wk 12%``)."""
        return plans.plan_status(self.agent)

    def _plan_seen(self) -> None:
        version = plans.plan_version(self.agent)
        if version != self._plan_version:
            self._plan_version = version
            self._changed("plan")

    # -- starting -----------------------------------------------------------------------------
    async def start(self, *, wait_for_servers: bool = False) -> None:
        """The MCP servers (started; ``wait_for_servers``: each settled first, so a one-shot
        task has their tools from its first request; a failure is a notice, as always),
        the custom commands, then the agent on ``options.model`` / ``options.resume``."""
        self.prepare_mcp()
        if self.mcp is not None:
            self.mcp.start_all()
            if wait_for_servers:  # each failure is a notice already (its state changed)
                await self.mcp.wait_settled()
        if self.options.commands:
            await self.discover_commands()
        await self.open(self.options.model, self.options.resume)

    def prepare_mcp(self) -> McpManager | None:
        """The configured MCP servers' manager, not started (none configured: None). The agent
        gets it as its tool source. Idempotent."""
        settings = getattr(self.config, "mcp", None)  # (tests may hand a bare config)
        if self.mcp is not None or not self.options.mcp or not getattr(settings, "servers", None):
            return self.mcp
        from ..mcp.manager import McpManager

        manager = McpManager.from_config(self.config, self.cwd)
        manager.listeners.append(self._server_changed)
        login = self.mcp_login
        manager.set_login(self._login if login is True else login or None)
        self.mcp = manager
        return manager

    def start_servers(self) -> None:
        """Start the MCP servers in the background (the TUI: once the model's SDK is in)."""
        if self.mcp is not None:
            self.mcp.start_all()

    async def discover_commands(self) -> CommandCatalog:
        """Look for the custom commands (in a thread); each new problem is a notice, once."""
        from ..custom_commands import discover_commands

        catalog = await asyncio.to_thread(discover_commands, self.cwd, builtin_names())
        for problem in catalog.problems:
            if problem not in self._said:
                self._said.add(problem)
                self._notice(problem, "warning")
        self.commands = catalog
        return catalog

    async def open(self, model: str = "", resume: str | None = None) -> Any:
        """Build the agent on ``model`` ("" the configured one), on a new session or on
        ``resume``'s, and make it this session's. Raises what building raises (a missing key,
        an unknown model, a session that is not there or is in use)."""
        agent = await self._build(model, resume)
        self._adopt(agent)
        self._publish(
            SessionEvent(S.OPENED, data={"reason": "start", "messages": len(agent.messages)})
        )
        return agent

    async def _build(self, model: str, resume: str | None) -> Any:
        approver = self._approve if self.approver is not None else None
        return await self.factory(approver=approver, model=model, resume=resume)

    async def _create_agent(
        self, *, approver: Approver | None, model: str = "", resume: str | None = None
    ) -> Any:
        import importlib

        # the agent, its tools and routing: imported in a thread, so a face's screen stays live
        await asyncio.to_thread(importlib.import_module, "larik.agent.agent")
        from ..agent import Agent

        o = self.options
        return await Agent.create(
            cwd=self.cwd,
            config=self.config,
            model=model,
            effort=o.effort,  # type: ignore[arg-type]  # checked by Agent.create
            permission_mode=o.permission_mode,
            approver=approver,
            resume=resume,
            resolver=o.resolver,
            max_turns=o.max_turns,
            transcript_dir=o.transcript_dir,
            checkpoints=o.checkpoints,
            tool_source=self.mcp,
            skills=o.skills,
            hooks=o.hooks,
            editor=o.editor,
            session_id=o.session_id,
        )

    def _adopt(self, agent: Any) -> None:
        """``agent`` is the session's: the budget counts its spending from now on."""
        self.agent = agent
        self.budget.adopt(agent, limits_of(self.config, self.options.max_budget_usd), self.config)

    async def _approve(self, request: PermissionRequest) -> Approval:
        hook = self.approver
        if hook is None:
            return Approval(False, reason="nobody can be asked")
        return await hook(request)

    # -- turns --------------------------------------------------------------------------------
    def send(self, prompt: Any, typed: str = "") -> Turn:
        """A turn on ``prompt`` (text, or blocks: attachments); ``typed``: a command as typed."""
        agent = self._need_agent()
        return Turn(self, lambda: agent.run_turn(prompt, typed))

    def compact(self) -> Turn:
        """A turn that summarises the conversation to free context."""
        agent = self._need_agent()
        return Turn(self, agent.compact)

    def accept_plan(self, mode: str = AFTER_PLAN[0]) -> Turn:
        """Leave plan mode for ``mode`` (one of ``AFTER_PLAN``) and carry the plan out."""
        from ..agent import plan

        if mode not in AFTER_PLAN:
            raise LarikError(
                f"a plan is carried out in {' or '.join(AFTER_PLAN)} mode, not {mode!r}"
            )
        self.set_mode(mode)
        return self.send(plan.accepted(mode))

    async def run_command(self, name: str, args: str = "") -> Turn | None:
        """``/name args`` as a turn: a custom command (its expansion, then the turn) or an MCP
        server's prompt. None: no such command (a file added since is looked for first);
        :class:`AmbiguousCommand` for a short name two commands share. Built-in commands are
        the face's (they open its pickers): ``larik.session.commands.BUILTINS``."""
        agent = self._need_agent()
        if self.mcp is not None:
            from ..mcp.mentions import find_prompt, run_prompt
            from ..mcp.server import McpCallError

            info = find_prompt(self.mcp, name)
            if info is not None:
                try:
                    blocks = await run_prompt(self.mcp, info, args)
                except (ValueError, McpCallError) as e:
                    raise LarikError(f"/{name}: {e}") from None
                prompt = blocks if len(blocks) > 1 else blocks[0].text
                turn = self.send(prompt, f"/{name} {args.strip()}".rstrip())
                turn.shown = blocks[0].text
                return turn
        cmd = self.commands.find(name) if self.commands is not None else None
        if cmd is None:
            catalog = await self.discover_commands()  # a file added since, or a short name
            cmd = catalog.find(name)
        if cmd is None:
            clash = catalog.ambiguous(name)
            if clash:
                raise AmbiguousCommand(name, [c.name for c in clash])
            return None
        from ..custom_commands import command_turn

        found = cmd
        return Turn(
            self,
            lambda: command_turn(agent, found, args, self.config),
            f"/{found.name} {args}".rstrip(),
        )

    def command_rows(self) -> list[tuple[str, str, str]]:
        """``(name, usage, summary)`` of the commands that come and go with the session: each
        ready MCP server's prompts, then the custom commands found so far."""
        rows: list[tuple[str, str, str]] = []
        if self.mcp is not None:
            from ..mcp.mentions import prompt_commands

            rows += [(pc.name, pc.usage, pc.summary) for pc in prompt_commands(self.mcp)]
        if self.commands is not None:
            rows += [(c.name, c.usage(), c.summary()) for c in self.commands.commands]
        return rows

    def cancel(self) -> bool:
        """End the running turn (Esc): its calls answered as interrupted, its processes killed, the
        transcript valid; asked again while on its way, the same cancel. False if no turn runs."""
        task = self._task
        if task is None or task.done():
            return False
        if not (self._cancel_requested and task.cancelling()):
            self._cancel_requested = True
            task.cancel()
        return True

    def _begin(self) -> None:
        if self.busy:
            raise SessionBusy("a turn is running: wait for it to end, or cancel it")
        self.busy = True
        self._task = asyncio.current_task()
        self._cancel_requested = False
        self.budget.begin_turn()
        self._publish(SessionEvent(S.TURN_STARTED))

    def _end(self, result: TurnResult) -> None:
        self.busy = False
        self._task = None
        self._publish(SessionEvent(S.TURN_FINISHED, result=result))

    def _cancelled_by_request(self) -> bool:
        """A CancelledError that ``cancel()`` asked for is the turn's end, not the task's:
        taken back (``uncancel``) so the face goes on. Any other (a stop signal, the app
        leaving) goes on up."""
        if not self._cancel_requested:
            return False
        task = asyncio.current_task()
        if task is not None and task.uncancel() > 0:
            return False  # cancelled again from elsewhere meanwhile
        self._cancel_requested = False
        return True

    # -- settings -----------------------------------------------------------------------------
    async def switch_model(self, spec: str) -> str:
        """Go on with the conversation on ``spec`` (before an agent exists: open one on it).
        Returns the model now in use. Thinking is replayed only to the model that produced
        it (``larik/llm/replay.py``)."""
        agent = self.agent
        if agent is None:
            await self.open(spec)
            return self.spec
        if self.busy:
            resolved = agent.set_model(spec)
        else:  # building a provider may import its SDK: keep the face's loop live meanwhile
            resolved = await asyncio.to_thread(agent.set_model, spec)
        self._changed("model")
        return str(getattr(resolved, "spec", "") or self.spec)

    def set_mode(self, mode: str) -> Mode:
        """Set the permission mode (a ``Mode``); returns the one it was."""
        agent = self._need_agent()
        new = parse_mode(mode)
        was = Mode(agent.permission_mode)
        agent.permission_mode = new
        self._changed("mode")
        return was

    def set_effort(self, level: str) -> str:
        """Set the reasoning effort (an ``Effort``'s word: "default" is the provider's);
        returns the one it was, as a word."""
        agent = self._need_agent()
        effort = Effort.parse(level)
        was = Effort(agent.effort).word
        agent.effort = effort
        self._changed("effort")
        return was

    # -- other conversations in this one's place ----------------------------------------------
    async def clear(self) -> None:
        """A new conversation in this one's place (this one stays saved)."""
        await self._replace(None, "clear")

    async def resume(self, session_id: str) -> None:
        """An earlier session of this project in this one's place. If it cannot be opened,
        this one goes on (and the error is raised). This one's own id: nothing to do."""
        if session_id != self.session_id:
            await self._replace(session_id, "resume")

    async def fork(self, before_turn: int | None = None) -> str:
        """Go on in a copy of this session (all of it, or what came before turn
        ``before_turn``); this one is kept as it was. Returns the new session's id."""
        from ..agent.rewind import fork_session

        agent = self._need_agent()
        self._idle("fork")
        root = getattr(agent, "root", self.cwd)
        new_id = await asyncio.to_thread(
            fork_session, root, agent.transcript_path, before_turn=before_turn
        )
        await self._replace(new_id, "resume")
        return new_id

    async def _replace(self, resume: str | None, reason: str) -> None:
        old = self._need_agent()
        self._idle(reason)
        new = await self._build(self.spec, resume)
        new.effort = old.effort
        new.permission_mode = old.permission_mode
        try:
            await old.close(reason)
        except Exception:  # the old session is saved already
            pass
        self._adopt(new)
        self._publish(
            SessionEvent(S.OPENED, data={"reason": reason, "messages": len(new.messages)})
        )

    # -- undo and rewind (docs/undo.md) -------------------------------------------------------
    async def plan_undo(self) -> Any:
        """What ``undo`` would take back (None: no turn changed files); nothing is written."""
        return await asyncio.to_thread(self._need_checkpoints("undo").plan_undo)

    async def plan_rewind(self, n: int) -> Any:
        """What taking back turn ``n`` and every turn after it would do; nothing is written."""
        return await asyncio.to_thread(self._need_checkpoints("rewind").plan_rewind, n)

    async def restore(self, plan: Any, *, overwrite: bool = False) -> Any:
        """Carry a plan out (a file changed since is kept unless ``overwrite``)."""
        cp = self._need_checkpoints("restore")
        return await asyncio.to_thread(cp.carry_out, plan, overwrite=overwrite)

    async def undo(self, *, overwrite: bool = False) -> Any:
        """Take back the last turn's file changes; the outcome (``.summary()``), or None when
        no turn changed files."""
        plan = await self.plan_undo()
        return None if plan is None else await self.restore(plan, overwrite=overwrite)

    async def rewind(
        self, n: int, *, code: bool = True, conversation: bool = True, overwrite: bool = False
    ) -> tuple[Any, str]:
        """Back to before turn ``n``: its and later turns' file changes taken back (``code``)
        and/or the conversation forked from before its prompt (``conversation``). Returns
        (what was restored or None, the new session's id or "")."""
        cp = self._need_checkpoints("rewind")
        turn = cp.turns[n - 1] if 0 < n <= len(cp.turns) else None
        if turn is None:
            raise LarikError(f"no turn {n} in this session")
        done = None
        if code:
            plan = await self.plan_rewind(n)
            done = await self.restore(plan, overwrite=overwrite) if plan.turns else None
        new_id = await self.fork(before_turn=turn.n) if conversation else ""
        return done, new_id

    # -- a !command ---------------------------------------------------------------------------
    async def run_shell(
        self, command: str, on_output: Callable[[bytes], None] | None = None, timeout: float = 300.0
    ) -> tuple[Any, float]:
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
        log = getattr(self.agent, "log", None)
        if log is not None:
            try:
                code = result.data.get("exit_code", -1)
                log.record(shell_record(command, result.content, code, duration))
            except Exception as e:  # the output was shown; the transcript could not say so
                self._notice(f"the !command was not saved in the session: {e}", "warning")
        return result, duration

    # -- MCP resources in a prompt ------------------------------------------------------------
    def resource_names(self) -> set[str]:
        """Names of configured MCP servers: ``@NAME:…`` is their resource, not a path."""
        return set(self.mcp.servers) if self.mcp is not None else set()

    def mentions_resources(self, text: str) -> bool:
        if self.mcp is None:
            return False
        from ..mcp.mentions import resource_mentions

        return bool(resource_mentions(text, self.mcp.servers))

    async def attach_resources(self, text: str) -> Any:
        """Read each ``@server:URI`` of ``text`` (``.blocks``, ``.names``, ``.problems``)."""
        from ..mcp.mentions import ResourceAttachment, attach_resources

        if self.mcp is None:
            return ResourceAttachment()
        return await attach_resources(text, self.mcp)

    # -- events -------------------------------------------------------------------------------
    def events(self, *, agent_events: bool = True) -> Subscription:
        """Every event from now on, in order: the turns' AgentEvents and the session's own
        SessionEvents; it ends when the session is closed. ``agent_events=False``: only the
        SessionEvents (a face that iterates its turns itself, and pays nothing per delta)."""
        return Subscription(self, agent_events=agent_events)

    def _publish(self, ev: Event) -> None:
        for queue in self._subscribers:
            queue.put_nowait(ev)
        if self._quiet and isinstance(ev, SessionEvent):
            for queue in self._quiet:
                queue.put_nowait(ev)

    def _notice(self, text: str, level: str = "info") -> None:
        self._publish(SessionEvent(S.NOTICE, text=text, level=level))

    def _changed(self, what: str) -> None:
        self._publish(SessionEvent(S.CHANGED, text=what))

    def _login(self, server: McpServer, url: str) -> None:
        self._notice(
            f"MCP server {server.name!r} asks you to log in: open this address in your browser, "
            f"and Larik carries on when you have allowed it:\n{url}",
            "warning",
        )

    def _server_changed(self, server: McpServer) -> None:
        state = str(server.state)
        if state == "failed":
            self._notice(server.unavailable(), "warning")  # its reason, its stderr's end
        elif state == "ready" and server.tools:
            self._notice(f"MCP server {server.name!r} ready: {count(len(server.tools), 'tool')}")
        self._changed("mcp")

    # -- closing ------------------------------------------------------------------------------
    async def close(self, reason: str = "other") -> list[AgentEvent]:
        """Cancel the running turn, close the agent (SessionEnd hooks run; the transcript is
        saved and unlocked), stop every MCP server; every events() stream ends. Returns the
        notices SessionEnd's hooks gave."""
        said = await self.close_agent(reason)
        await self.close_servers()
        for queue in [*self._subscribers, *self._quiet]:
            queue.put_nowait(_CLOSED)
        return said

    async def close_agent(self, reason: str = "other") -> list[AgentEvent]:
        self.cancel()
        agent, said = self.agent, []
        if agent is not None:
            said = list(await agent.close(reason) or [])
        return said

    async def close_servers(self) -> None:
        if self.mcp is not None:
            await self.mcp.close()  # no server process is left behind

    # -- helpers ------------------------------------------------------------------------------
    def _need_agent(self) -> Any:
        if self.agent is None:
            raise LarikError("no model yet: pick one with /model")
        return self.agent

    def _idle(self, what: str) -> None:
        if self.busy:
            raise SessionBusy(f"/{what}: wait for the turn to end, or press Esc")

    def _need_checkpoints(self, what: str) -> Any:
        cp = getattr(self._need_agent(), "checkpoints", None)
        if cp is None:
            raise LarikError(f"/{what}: this session keeps no checkpoints")
        return cp
