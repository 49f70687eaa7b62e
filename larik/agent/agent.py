"""The agent: a turn loop, a model slot and a history, wired together.

::

    agent = await Agent.create(cwd=Path.cwd(), config=load_config())
    async for ev in agent.run_turn("fix the failing test"):
        ...                                # AgentEvents: deltas, tools, notices, usage, turn end

The parts, each a class of its own (and testable alone):

* :class:`~.loop.TurnLoop` (``agent.loop``): a turn — stream a reply, run its tool calls,
  repeat until the model is done; the interrupt, the runaway reply, the turn limit (its
  module says how each turn ends). It is the :class:`~.driver.TurnDriver` the edit workflow
  (:mod:`.edit_turn`) runs on.
* :class:`~.model_slot.ModelSlot` (``agent.slot``): the model in use, what it can do, the
  profile that fits it, switching it.
* :class:`~.history.History` (``agent.history``): the conversation as it is sent, the session's
  transcript, what it cost, compaction.

The configuration is the frozen :class:`~.settings.AgentSettings` (worked out by :mod:`.create`
from the config and the front end's :class:`~.options.AgentOptions`); the run state is the
parts'. The agent's public attributes (what ``session.port.AgentPort`` names) read the
parts: ``messages`` is the conversation as it is sent (after compaction, the compacted form),
before replay filtering and merging.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from .. import sandbox
from ..llm.types import Block, Effort, Message
from ..modes import Mode, parse_mode
from . import prompt
from .create import Opening, prepare
from .events import AgentEvent
from .history import History
from .loop import TurnLoop, kill_all
from .model_slot import ModelSlot
from .options import AgentOptions
from .profile import Profile
from .rewind import Checkpointer
from .runner import ToolRunner
from .session_hooks import SessionHooks
from .session_log import SessionLog
from .sessions import Rebuilt
from .settings import AgentSettings, BudgetCheck, check_effort
from .subagent import run_task, subagent_path, tools_for
from .tools import ToolContext
from .tools._seen import SeenFiles
from .transcript import Transcript, new_session_id

if TYPE_CHECKING:
    from ..config import Config
    from ..routing import Resolved
    from .events import Approver
    from .permissions import PermissionPolicy
    from .tools import ToolSource

__all__ = ["Agent", "AgentOptions", "AgentSettings"]

T = TypeVar("T")

# how long a local server may take at create to say what it loaded (a slower one: asked again)
CREATE_PROBE_TIMEOUT = 2.0


class Part(Generic[T]):
    """A public attribute of the agent that is one of its parts': ``Part("slot")`` on
    ``model`` reads ``agent.slot.model`` (``name``: the part's own name for it)."""

    def __init__(self, part: str, name: str = "") -> None:
        self.part, self.name = part, name

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = self.name or name

    @overload
    def __get__(self, obj: None, owner: type) -> Part[T]: ...
    @overload
    def __get__(self, obj: object, owner: type) -> T: ...
    def __get__(self, obj: object, owner: type) -> T | Part[T]:
        return self if obj is None else getattr(getattr(obj, self.part), self.name)  # type: ignore[no-any-return]

    def __set__(self, obj: object, value: T) -> None:
        raise AttributeError(f"{self.name} is read only (the {self.part}'s)")


class Setting(Part[T]):
    """A :class:`Part` a front end may also set (``agent.warmer = 0.4``)."""

    def __set__(self, obj: object, value: T) -> None:
        setattr(getattr(obj, self.part), self.name, value)


class Agent:
    """Use :meth:`create`. Its public attributes: ``session.port.AgentPort``."""

    restored: Rebuilt | None = None  # a resumed session's transcript, as rebuilt (shown.py)

    # the model in use (the slot's)
    model = Part[str]("slot")
    role = Part[str | None]("slot")
    provider_name = Part[str]("slot")
    spec = Part[str]("slot")  # provider/model
    context_window = Part[int]("slot", "window")
    accepts_images = Part[bool | None]("slot")  # None: not known (images.py)
    effort_applies = Part[bool | None]("slot")  # False: /effort does nothing
    # the conversation (the history's)
    messages = Setting[list[Message]]("history")
    context_tokens = Setting[int]("history")  # tokens in use after the last reply (or an estimate)
    # a turn's bounds (the loop's)
    max_turns = Setting[int]("loop")
    warmer = Setting[float | None]("loop")  # a later try's least temperature (attempts.py)
    budget_check = Setting[BudgetCheck | None]("loop")  # the session's budget (budget.py)
    emit = Part[Callable[[AgentEvent], None] | None]("_ctx")  # a running tool's events

    def __init__(
        self, settings: AgentSettings, resolved: Resolved, transcript: Transcript | None = None
    ) -> None:
        """``transcript``: the session's, reopened to resume it (else made when first needed)."""
        s = self._settings = settings
        self.root, self.config = s.root, s.config
        self.session_id = s.session_id or new_session_id()
        self.log = SessionLog(  # also a front end's display records (shown.py)
            s.transcript_path,
            root=s.root,
            session_id=self.session_id,
            model=lambda: self.spec,
            transcript=transcript,
        )
        self.transcript_path = self.log.path
        self.history = History(self.log, s.config)
        self.usage = self.history.usage  # tokens and cost so far: per model, per role, in total
        tools = tuple(t for t in s.tools if t != "skill" or s.skills)  # no skills: no tool
        context = s.context
        if context is None:  # the project's instruction file, with the session's deny rules
            found = prompt.project_instructions(s.root, s.policy.denies_path)
            context = prompt.session_context(s.root, instructions=found)
            context += prompt.skills_section(s.skills)
            for why in found.skipped:  # instruction files not read: said at the first turn
                self.history.pend(why)
        self._system = ["", context]  # the prefix follows the model's profile (_fit)
        ctx = self._ctx = ToolContext(
            root=s.root, processes=s.processes, seen=SeenFiles(), skills=s.skills, editor=s.editor
        )
        ctx.sandbox, ctx.web = s.policy.sandbox, s.config.web_fetch  # bash, web_fetch
        self.jobs = s.jobs  # background commands (jobs.py): the main agent ends them on close
        self.path_denied = ctx.path_denied = s.policy.denies_path  # grep, glob, @path
        record = self.history.record
        self.tool_runner = ToolRunner(tools, s.policy, ctx, s.tool_source, s.hooks, record)
        # the session's own events (a subagent's stop)
        notice = self.history.notice
        self._hooks = SessionHooks(s.hooks, self, notice, s.role_label) if s.hooks else None
        on = s.checkpoints and s.transcript_path is not None and s.role_label is None
        self.checkpoints = Checkpointer(s.root, record, enabled=on)  # /undo, /rewind
        ctx.before_change = lambda: self.checkpoints.before_change(ctx.emit)
        if s.role_label is None:  # language servers (larik.lsp): none starts before an edit
            from ..lsp.session import for_session  # a command's changes: the checkpoints'

            ctx.lsp = for_session(s.config, s.root, s.policy.sandbox, self.checkpoints)
        self._subagents = 0  # started so far (their transcripts are numbered)
        self.slot = ModelSlot(
            resolved,
            resolver=s.resolver,
            config=s.config,
            tools=tools,
            pend=self.history.pend,
            fit=self._fit,
        )
        self.loop = TurnLoop(
            s,
            self.slot,
            self.history,
            self.tool_runner,
            ctx,
            checkpoints=self.checkpoints,
            hooks=self._hooks,
            system=self._system,
            session_start=self.session_start,
            effort=check_effort(s.effort),
        )
        self.slot.use(resolved)

    @classmethod
    async def create(
        cls,
        *,
        cwd: Path,
        config: Config,
        options: AgentOptions | None = None,
        approver: Approver | None = None,
        tool_source: ToolSource | None = None,
        **changes: Any,
    ) -> Agent:
        """A new session's agent (or ``options.resume``'s, reopened): :func:`.create.prepare`
        works its settings out, then :meth:`open` restores, probes and starts it.
        ``approver``: asked when the permission policy asks; ``tool_source``: tools beyond the
        built-in ones (the MCP servers'); ``changes``: fields of ``options`` set here (a
        test's shorthand: ``Agent.create(cwd=…, config=…, permission_mode="yolo")``)."""
        opening = prepare(
            cwd, config, replace(options or AgentOptions(), **changes), approver, tool_source
        )
        agent = cls(opening.settings, opening.resolved, opening.transcript)
        opening.main.append(lambda: agent.spec)
        await agent.open(opening)
        return agent

    async def open(self, opening: Opening) -> None:
        """The rest of :meth:`create` once the agent exists: the start-up warnings, the
        resumed conversation and checkpoints, the local server's window (within
        ``CREATE_PROBE_TIMEOUT``, so a front end shows ``ctx N%`` at once), SessionStart."""
        for problem in opening.notes:
            self.history.pend(problem)
        rebuilt = self.restored = opening.rebuilt
        if rebuilt is not None:
            if rebuilt.model and rebuilt.model != self.spec:
                self._record_switch(rebuilt.model)
            self.history.restore(rebuilt)
            self.checkpoints.load(opening.records)
        await self.slot.at_create(CREATE_PROBE_TIMEOUT)
        await self.session_start("resume" if rebuilt is not None else "startup")

    # -- the model ----------------------------------------------------------------------------
    def set_model(self, spec: str) -> Resolved:
        """The next request goes to ``spec``; recorded as a model_switch."""
        old = self.slot.switch(spec)
        if self.slot.spec != old:
            self._record_switch(old)
        return self.slot.resolved

    def _record_switch(self, old: str) -> None:
        r = self.slot.resolved
        self.history.record({"kind": "model_switch", "from": old, "to": r.spec, "role": r.role})

    def _fit(self, prof: Profile, changed: bool) -> None:
        """The tools, prompt and turn limit fit the model (profile.py)."""
        s, ctx = self._settings, self._ctx
        self._system[0] = prompt.prefix(
            s.role_label, list(prof.tools), prof.small, s.root, prof.line_numbers
        )
        ctx.line_numbers = prof.line_numbers
        self.tool_runner.tools = prof.tools
        ctx.spawn = partial(run_task, self) if "task" in prof.tools else None
        ctx.jobs = s.jobs if "job_output" in prof.tools else None  # else none can start
        self.loop.fit(prof)
        if changed and (note := prof.describe(self.slot.spec)):
            self.history.pend(note, warn=False)

    # -- the session's state --------------------------------------------------------------------
    @property
    def settings(self) -> AgentSettings:
        """What the agent was built from (a subagent's: derived from its parent's)."""
        return self._settings

    @property
    def system(self) -> list[str]:
        return list(self._system)

    @property
    def lsp(self) -> Any:  # the session's language servers (larik.lsp.session), or None
        return self._ctx.lsp

    @property
    def effort(self) -> Effort:
        return self.loop.effort

    @effort.setter
    def effort(self, value: Effort) -> None:
        self.loop.effort = check_effort(value)

    @property
    def permission_mode(self) -> Mode:
        return self._settings.policy.mode

    @permission_mode.setter
    def permission_mode(self, mode: str) -> None:
        self._settings.policy.mode = parse_mode(mode)

    @property
    def permissions(self) -> PermissionPolicy:
        """The rules (/permissions), shared with subagents."""
        return self._settings.policy

    # -- turns ----------------------------------------------------------------------------------
    def run_turn(self, prompt_: str | list[Block], typed: str = "") -> AsyncIterator[AgentEvent]:
        """One user turn. Iterate it to the end; cancel the iterating task to interrupt.
        ``typed``: what the user typed when it is not the prompt (``/review x``, expanded)."""
        return self.loop.start(prompt_, typed)

    def compact(self) -> AsyncIterator[AgentEvent]:
        """Compact now (``/compact``)."""
        return self.loop.compact()

    async def session_start(self, source: str) -> None:
        """SessionStart hooks (``startup``, ``resume``, ``compact``): their notices are shown
        at the next turn."""
        if self._hooks is not None:
            self.history.pend_events(await self._hooks.start(source, self.spec))

    def spawn(self, role: str, transcript_path: Path | None = None) -> Agent:
        """A subagent on ``role``'s model and tools (what ``task`` runs): this agent's settings,
        policy, effort, context and process table, a transcript only at ``transcript_path``
        (docs/agent.md, Subagents). Raises LarikError when the role does not resolve."""
        settings = replace(
            self._settings,
            effort=self.effort,
            tools=tools_for(role),
            max_turns=min(self.max_turns, self.config.subagent_max_turns),
            role_label=role,
            context=self._system[1],
            session_id="",
            transcript_path=transcript_path,
            tool_source=None,
        )
        sub = Agent(settings, self._settings.resolver(role))
        sub.budget_check = self.budget_check  # its requests are the session's spending too
        return sub

    def next_subagent(self, role: str) -> Path | None:
        """Where the next subagent on ``role`` keeps its transcript (None: nowhere)."""
        self._subagents += 1
        return subagent_path(self._settings.transcript_path, self._subagents, role)

    def kill_processes(self) -> None:
        """Kill every command still running (and its children)."""
        kill_all(self._settings.processes)

    async def close(self, reason: str = "other") -> list[AgentEvent]:
        """End the session (SessionEnd hooks told ``reason``), whatever fails or is cancelled."""
        main = self._settings.role_label is None  # a subagent's end is not the session's
        try:
            await self.loop.close_turn()
            if main:
                await self.jobs.close()
            return await self._hooks.end(reason) if self._hooks is not None else []
        finally:
            if main:  # after SessionEnd's hooks, which run in it
                if self._ctx.lsp is not None:
                    await self._ctx.lsp.close()
                sandbox.close_space(self._settings.policy.sandbox)
            self.log.close()
