"""The agent loop: one user turn = stream a reply, run its tool calls, repeat until the model is done.

::

    agent = await Agent.create(cwd=Path.cwd(), config=load_config())
    async for ev in agent.run_turn("fix the failing test"):
        ...                                # AgentEvents: deltas, tools, notices, usage, turn end

Every final message is appended to the session transcript as it happens. How a turn ends is an
exception inside the loop (``TurnOver``); a provider failure ends it with an ERROR event.
Cancelling the task that iterates ``run_turn`` is an interrupt: ``_settle`` then leaves the
conversation valid for every provider — the partial reply kept (marked interrupted), every tool
call given a result (synthesised "interrupted" errors for those that did not finish), running
commands killed. A reply cut at the output limit ends the turn with ``max_tokens`` and a warning;
if it has tool calls, none of them runs (their arguments are incomplete by definition): each
gets an error result saying so and how to split the change, and the turn goes on. Hitting ``max_turns`` ends the turn with stop reason
``max_turns`` and ``data["max_turns"]``. A model going round in circles (:mod:`.stuck`) is told
so once in a tool result, then its turn ends with stop reason ``stuck`` and ``data["stuck"]``.
A reply that runs away (:mod:`.runaway`: the same piece over and over; small models, or
``[models] cancel_runaway``) is cancelled as it streams and discarded; the model is told what it repeated and asked once more, cooler; a second
runaway in the turn ends it ``stuck`` with ``data["stuck"] == "runaway"``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import sandbox
from ..llm.errors import APIError, ContextOverflow, LarikError, LoginExpired
from ..llm.replay import merge_adjacent
from ..llm.types import Block, Effort, EventType, Message, Request, StopReason, Usage
from ..modes import Mode, parse_mode
from ..words import count
from . import compaction, images, plan, prompt
from .create import create as _create
from .edit_turn import SYSTEM as EDIT_SYSTEM
from .edit_turn import EditHost, run_edit_turn
from .events import AgentEvent, AgentEventType, NoticeLevel
from .probe import Capabilities, ModelLook, capabilities, probe
from .profile import Profile, profile_for
from .rewind import Checkpointer
from .runaway import RunawayReply, RunawayWatch, cooler
from .runner import ToolRunner, answer_all, cut_off_result
from .session_hooks import SessionHooks
from .session_log import SessionLog
from .sessions import Rebuilt
from .settings import AgentSettings, BudgetCheck, check_effort
from .shown import error_record
from .stuck import StuckDetector, have_it
from .subagent import run_task, tools_for
from .tools import ToolContext, tool_specs
from .tools._seen import SeenFiles
from .tools.answer import as_answer
from .transcript import Transcript, new_session_id
from .turn import Partial, Reply, Running, TurnOver
from .usage import Accounting
from .verify import TurnCheck

if TYPE_CHECKING:
    from ..llm.types import ToolSpec
    from ..routing import Resolved

__all__ = ["Agent", "AgentSettings"]

E = AgentEventType
Events = AsyncIterator[AgentEvent]

# how long a local server may take at create to say what it loaded (a slower one: asked again)
CREATE_PROBE_TIMEOUT = 2.0


class Agent:
    """Use :meth:`create`. Attributes in AGENT_API.md; ``messages`` is the conversation as it is
    sent (after compaction, the compacted form), before replay filtering and merging."""

    restored: Rebuilt | None = None  # a resumed session's transcript, as rebuilt (shown.py)

    def __init__(
        self, settings: AgentSettings, resolved: Resolved, transcript: Transcript | None = None
    ) -> None:
        """``transcript``: the session's, reopened to resume it (else made when first needed)."""
        s = self._settings = settings
        self.root = s.root
        self.config = s.config
        self._effort: Effort = check_effort(s.effort)
        self.max_turns = s.max_turns
        self.messages: list[Message] = []
        self.session_id = s.session_id or new_session_id()
        self.log = self._log = SessionLog(  # log: a front end's display records (shown.py)
            s.transcript_path,
            root=s.root,
            session_id=self.session_id,
            model=lambda: self.spec,
            transcript=transcript,
        )
        self.transcript_path = self._log.path
        self._resolved = resolved
        self.usage = Accounting()  # tokens and cost so far: per model, per role, in total
        self._tools = tuple(t for t in s.tools if t != "skill" or s.skills)  # no skills: no tool
        context = s.context
        skipped: tuple[str, ...] = ()  # instruction files not read, and why
        if context is None:  # the project's instruction file, with the session's deny rules
            found = prompt.project_instructions(s.root, s.policy.denies_path)
            context = prompt.session_context(s.root, instructions=found)
            context += prompt.skills_section(s.skills)
            skipped = found.skipped
        self._system = ["", context]  # the prefix follows the model's profile (_use_profile)
        self._profile = Profile(tools=self._tools)  # with _specs, set by _use_profile
        self._ctx = ToolContext(
            root=s.root, processes=s.processes, seen=SeenFiles(), skills=s.skills, editor=s.editor
        )
        self._ctx.sandbox, self._ctx.web = s.policy.sandbox, s.config.web_fetch  # bash, web_fetch
        self.jobs = s.jobs  # background commands (jobs.py): the main agent ends them on close
        self.path_denied = self._ctx.path_denied = s.policy.denies_path  # grep, glob, @path
        self.tool_runner = ToolRunner(
            self._tools, s.policy, self._ctx, s.tool_source, s.hooks, self._record
        )
        # the session's own events (a subagent's stop)
        self._hooks = SessionHooks(s.hooks, self, self._notice, s.role_label) if s.hooks else None
        on = s.checkpoints and s.transcript_path is not None and s.role_label is None
        self.checkpoints = Checkpointer(s.root, self._record, enabled=on)  # /undo, /rewind
        self._ctx.before_change = lambda: self.checkpoints.before_change(self._ctx.emit)
        if s.role_label is None:  # language servers (larik.lsp): none starts before an edit
            from ..lsp.session import for_session  # a command's changes: the checkpoints'

            self._ctx.lsp = for_session(s.config, s.root, s.policy.sandbox, self.checkpoints)
        self._subagents = 0  # started so far (their transcripts are numbered)
        self._stuck = StuckDetector(s.config.stuck, self.tool_runner.call_key)
        self._notices = [  # shown before the first request, which carries the prompt
            AgentEvent(E.NOTICE, text=t, level=NoticeLevel.WARNING) for t in skipped
        ]
        self._partial: Partial | None = None
        self._runaways = 0
        self._running: Running | None = None
        self._turn: AsyncGenerator[AgentEvent, None] | None = None
        self._look = ModelLook()  # what the model's server says it loaded (once per model)
        self.warmer: float | None = None  # a later try's least temperature (session/attempts.py)
        self.context_tokens = 0  # tokens in use after the last reply (or an estimate)
        self.context_window = 0
        self._counted = 0  # messages[:_counted] are included in context_tokens
        self.budget_check: BudgetCheck | None = None  # the session's budget (session/budget.py)
        self._use_model(resolved)

    create = classmethod(_create)  # construction: Agent.create(cwd=…, config=…, …), create.py

    # -- public state -------------------------------------------------------------------------
    @property
    def model(self) -> str:
        return self._resolved.model

    @property
    def role(self) -> str | None:
        return self._resolved.role

    @property
    def provider_name(self) -> str:
        return self._resolved.provider_name

    @property
    def spec(self) -> str:
        return self._resolved.spec

    @property
    def lsp(self) -> Any:  # the session's language servers (larik.lsp.session), or None
        return self._ctx.lsp

    @property
    def effort(self) -> Effort:
        return self._effort

    @effort.setter
    def effort(self, value: Effort) -> None:
        self._effort = check_effort(value)

    @property
    def permission_mode(self) -> Mode:
        return self._settings.policy.mode

    @permission_mode.setter
    def permission_mode(self, mode: str) -> None:
        self._settings.policy.mode = parse_mode(mode)

    permissions = property(lambda self: self._settings.policy)  # the rules (/permissions)

    @property
    def _plan_mode(self) -> bool:
        """Plan mode, in the main agent (a subagent's answer is not the plan)."""
        return self.permission_mode is Mode.PLAN and self._settings.role_label is None

    @property
    def system(self) -> list[str]:
        return list(self._system)

    def set_model(self, spec: str) -> Resolved:
        """The next request goes to ``spec``; recorded as a model_switch."""
        resolved = self._settings.resolver(spec)
        old = self._resolved.spec
        self._resolved = resolved
        self._use_model(resolved)
        if resolved.spec != old:
            self._record_switch(old)
        return resolved

    def _use_model(self, resolved: Resolved) -> None:
        self._caps = capabilities(resolved, self.config)
        self.context_window = self._caps.window
        self._look = ModelLook()
        for text in self._caps.warnings:
            self._notices.append(AgentEvent(E.NOTICE, text=text, level=NoticeLevel.WARNING))
        self._caps.warnings = []
        self._use_profile()

    def _use_profile(self) -> None:
        s = self._settings  # the tools, prompt and turn limit fit the model (profile.py)
        prof = profile_for(self._resolved, self.config, self._tools, self._caps.params_b)
        changed, self._profile = prof != self._profile, prof
        self._system[0] = prompt.prefix(
            s.role_label, list(prof.tools), prof.small, s.root, prof.line_numbers
        )
        self._specs = tool_specs(prof.tools, prof.line_numbers)
        self._ctx.line_numbers = prof.line_numbers
        self._stuck.have_it = have_it(prof.tools) if prof.repeat_nudge else ""
        self.tool_runner.tools = prof.tools
        self._ctx.spawn = partial(run_task, self) if "task" in prof.tools else None
        self._ctx.jobs = s.jobs if "job_output" in prof.tools else None  # else none can start
        self.max_turns = prof.turn_limit(s.max_turns)
        if changed and (note := prof.describe(self.spec)):
            self._notices.append(AgentEvent(E.NOTICE, text=note))

    def _record_switch(self, old: str) -> None:
        r = self._resolved
        self._record({"kind": "model_switch", "from": old, "to": r.spec, "role": r.role})

    # -- the loop -----------------------------------------------------------------------------
    def run_turn(self, prompt_: str | list[Block], typed: str = "") -> AsyncIterator[AgentEvent]:
        """One user turn. Iterate it to the end; cancel the iterating task to interrupt.
        ``typed``: what the user typed when it is not the prompt (``/review x``, expanded)."""
        self._turn = gen = self._run_turn(prompt_, self._turn, typed)
        return gen

    async def _run_turn(
        self,
        prompt_: str | list[Block],
        prev: AsyncGenerator[AgentEvent, None] | None,
        as_typed: str,
    ) -> AsyncGenerator[AgentEvent, None]:
        if prev is not None and getattr(prev, "ag_running", False):
            raise RuntimeError("a turn is already running")
        if prev is not None:
            await prev.aclose()  # abandoned mid-way: its cleanup settles the conversation
        try:
            self._settle()
            self._stuck.start_turn()
            self._runaways = 0  # runaway replies cancelled in this turn (one is retried)
            self._check = TurnCheck()
            async for ev in self._probe():
                yield ev
            for ev in self._take_notices():
                yield ev
            blocks = [Block.text_block(prompt_)] if isinstance(prompt_, str) else list(prompt_)
            typed = Message(role="user", blocks=blocks).text()
            if self._hooks is not None:  # context goes into blocks, a block ends the turn
                async for ev in self._hooks.submit(typed, blocks):
                    yield ev
                    if ev.type is E.ERROR:
                        return
            if self._plan_mode:
                blocks.append(Block.text_block(plan.NOTE))
            user = Message(role="user", blocks=blocks)
            self.checkpoints.begin_turn(user.text(), as_typed or typed)
            self._append(user)
            yield AgentEvent(E.MESSAGE, message=user)
            try:
                async for ev in self._drive(typed):
                    yield ev
            except TurnOver as over:
                if "budget" in over.data:  # the next request would have crossed it
                    yield self._notice(over.data["budget"], warn=True)
                if self._plan_mode and over.stop is StopReason.END_TURN and over.text.strip():
                    over.data["plan"] = over.text  # the front end offers to accept it
                for ev in self.checkpoints.end_turn():
                    yield ev
                for ev in self._check.finish(over, self._notice):
                    yield ev
                yield AgentEvent(E.TURN_END, text=over.text, stop_reason=over.stop, data=over.data)
            except LarikError as e:
                self._settle()
                for ev in self.checkpoints.end_turn():
                    yield ev
                self._record(error_record(str(e)))  # shown again on resume
                again = {"sign_in": e.command} if isinstance(e, LoginExpired) else {}  # exit 2
                yield AgentEvent(E.ERROR, text=str(e), data=again)
        except BaseException:
            self._settle()
            self.checkpoints.end_turn()
            raise

    async def _drive(self, typed: str) -> AsyncIterator[AgentEvent]:
        """The turn after the prompt: the tool loop, or the edit workflow (:mod:`.edit_turn`)
        for a model whose profile says so. Raises TurnOver when the turn is over."""
        if self._edit_workflow:
            async for ev in run_edit_turn(EditHost.of(self), typed):
                yield ev
            return
        calls = 0
        while True:
            calls += 1
            async for ev in self._step(last=calls >= self.max_turns):
                yield ev

    @property
    def _edit_workflow(self) -> bool:  # in the main agent, outside plan mode (a plan is read)
        main = self._settings.role_label is None
        return self._profile.workflow == "edit" and main and self.permission_mode is not Mode.PLAN

    async def _step(self, last: bool) -> AsyncIterator[AgentEvent]:
        """One model call and its tool calls. Raises TurnOver when the turn is over."""
        async for ev in self._maybe_compact():
            yield ev
        reply = Reply()
        async for ev in self._call_model(reply):
            yield ev
        msg, stop = reply.message, reply.stop
        answer = as_answer(msg, self._profile.tools) if stop is not StopReason.MAX_TOKENS else None
        if answer is not None:  # the model called answer: its text ends the turn
            msg, stop = answer, StopReason.END_TURN
            yield AgentEvent(E.TEXT_DELTA, text=answer.blocks[-1].text)
        if msg.blocks:
            self._append(msg)
            yield AgentEvent(E.MESSAGE, message=msg)
        self._counted = len(self.messages)
        uses = msg.tool_uses()
        cut = stop is StopReason.MAX_TOKENS
        if cut:
            yield self._notice(
                "the reply was cut off at the model's output limit"
                + ("; its tool calls were not run" if uses else "; ask it to continue"),
                warn=True,
            )
        if uses:  # a cut reply's calls are incomplete by definition: none of them runs
            refuse = (
                cut_off_result(self._profile.request_options().get("max_tokens")) if cut else ""
            )
            async for ev in self._run_tools(msg, uses, refuse):
                yield ev
            if last:
                what = f"stopped after {count(self.max_turns, 'model call')} (the max-turns limit)"
                yield self._notice(what, warn=True)
                raise TurnOver(StopReason.MAX_TURNS, msg.text(), {"max_turns": self.max_turns})
            return
        if stop is StopReason.PAUSE_TURN and not last:
            return
        if stop is StopReason.TOOL_USE:
            stop = StopReason.END_TURN  # "tool_use" with no tool calls: nothing left to do
        if stop is StopReason.END_TURN and not last and self._hooks is not None:
            async for ev in self._hooks.stop(msg.text(), self._append):
                yield ev
                if ev.type is E.MESSAGE:
                    return  # a Stop hook sent the model back to work
        raise TurnOver(stop, msg.text())

    # -- model calls ------------------------------------------------------------------------
    accepts_images = property(lambda self: self._caps.images)  # None: not known (images.py)
    effort_applies = property(lambda self: self._caps.effort)  # False: /effort does nothing

    def _request(self) -> Request:
        source = self._settings.tool_source  # its block (MCP servers' instructions) comes last
        system = [*self._system, source.system_text()] if source else self._system
        edits = self._edit_workflow  # no tools: the harness runs them (edit_turn.py)
        return Request(
            model=self.model,
            system=[EDIT_SYSTEM, self._system[1]] if edits else system,
            messages=merge_adjacent(self.messages),  # the adapter filters what it may replay
            tools=self._tool_specs() if self._caps.tools and not edits else [],
            effort=self.effort,
            initiator="agent" if self._settings.role_label else "",  # a subagent's call
            **self._profile.request_options(self.warmer),
        )

    def _tool_specs(self) -> list[ToolSpec]:
        source = self._settings.tool_source
        return [*self._specs, *source.specs(self.context_window)] if source else self._specs

    async def _call_model(self, reply: Reply, temp: float | None = None) -> Events:
        """Stream one reply into ``reply`` (``temp``: this request's temperature). A runaway
        reply (:mod:`.runaway`) is cancelled as it streams and discarded; the first of a turn is
        asked again, cooler, after a nudge saying what it repeated; the second ends it ``stuck``."""
        while True:
            try:
                async for ev in self._call_fitted(reply, temp):
                    yield ev
                return
            except RunawayReply as stop:
                self._partial = None  # discarded: what it repeats must not be sent back
                again, self._runaways = self._runaways > 0, self._runaways + 1
                yield self._notice(stop.runaway.notice(again), warn=True)
                if again:
                    raise TurnOver(StopReason.STUCK, "", stop.runaway.data) from None
                loop = bool(self._profile.tools) and self._profile.workflow == "loop"
                self._append(Message.user(stop.runaway.nudge(loop)))  # no tools in the edit one
                temp = cooler(self._profile.sampling.temperature)

    async def _call_fitted(self, reply: Reply, temp: float | None = None) -> Events:
        """Stream one reply; on ContextOverflow compact and retry once. ``temp``: this request's
        temperature (the cooler retry after a runaway, the edit workflow's hotter one)."""
        try:
            async for ev in self._stream(reply, temp):
                yield ev
            return
        except ContextOverflow:
            self._partial = None
        compacted = False
        async for ev in self._compact("overflow"):
            compacted = compacted or bool(ev.data.get("compacted"))
            yield ev
        if not compacted:
            raise ContextOverflow(f"the conversation does not fit {self.model}'s context window")
        try:
            async for ev in self._stream(reply, temp):
                yield ev
        except ContextOverflow:
            raise ContextOverflow(
                f"the conversation does not fit {self.model}'s context window even after "
                "compacting; start a new session or switch to a model with a larger window"
            ) from None

    def _mind_budget(self, request: Request, resolved: Resolved) -> None:
        """TurnOver ``budget`` when the session's budget says ``request`` must not be sent."""
        why = self.budget_check(request, resolved) if self.budget_check else None
        if why is not None:
            raise TurnOver(StopReason.BUDGET, "", {"budget": why})

    async def _stream(self, reply: Reply, temp: float | None = None) -> Events:
        self._mind_budget(request := self._request(), self._resolved)
        if temp is not None:
            request = request.model_copy(update={"temperature": temp})
        self._partial = partial = Partial(self.model)
        done = None
        watch = RunawayWatch() if self._profile.cancel_runaway else None
        async with aclosing(images.stream(self._resolved, request, self._caps)) as events:
            async for sev in events:
                if watch is not None:  # RunawayReply: leaving the block closes the stream
                    watch.see(sev)
                if sev.type is EventType.TEXT_DELTA:
                    partial.pieces.append(sev.text)
                    yield AgentEvent(E.TEXT_DELTA, text=sev.text)
                elif sev.type is EventType.THINKING_DELTA:
                    yield AgentEvent(E.THINKING_DELTA, text=sev.text)
                elif sev.type is EventType.NOTICE:
                    yield self._notice(sev.text, warn=True)
                elif sev.type is EventType.DONE:
                    done = sev
        if done is None or done.message is None:
            raise APIError(
                0, "the reply ended without a final message", provider=self.provider_name
            )
        self._partial = None
        reply.message = done.message
        reply.stop = done.stop_reason or StopReason.END_TURN
        usage = done.usage or Usage()
        answered = done.message.model or self.model
        provider = self.provider_name if answered == self.model else None
        self.context_tokens = usage.context + usage.output
        yield self._account(usage, answered, provider, self.role or "main")

    def _account(
        self, usage: Usage, model: str, provider: str | None, role: str, subagent: str = ""
    ) -> AgentEvent:
        cost, rec = self.usage.charge(usage, model, provider, role, self.config)
        self._record({**rec, "subagent": subagent} if subagent else rec)
        return AgentEvent(
            E.USAGE, usage=usage, model=model, role=role, cost=cost, subagent=subagent
        )

    async def _probe(self) -> AsyncIterator[AgentEvent]:
        """At a turn's start, unless create's look settled it (:class:`.probe.ModelLook`)."""
        for text in self._probed(await self._look.at_turn(self._resolved, self._caps)):
            yield self._notice(text, warn=True)

    async def _probe_early(self) -> None:
        """At create/resume, so ``context_window`` is the loaded one before the first reply
        (a front end shows ``ctx N%`` at once). Cloud providers answer from the catalog without
        a request; a local server gets ``CREATE_PROBE_TIMEOUT``, else the first turn asks it
        again. Its warnings are shown when the first turn starts."""
        caps = await self._look.at_create(self._resolved, self._caps, CREATE_PROBE_TIMEOUT)
        for text in self._probed(caps):
            self._notices.append(AgentEvent(E.NOTICE, text=text, level=NoticeLevel.WARNING))

    def _probed(self, caps: Capabilities | None) -> list[str]:
        """Use what the server said it loaded (None: it said nothing new); its warnings."""
        if caps is None:
            return []
        self._caps = caps
        self.context_window = caps.window
        self._use_profile()
        return caps.warnings

    # -- tools --------------------------------------------------------------------------------
    async def _run_tools(
        self, reply: Message, calls: list[Block], refuse: str = ""
    ) -> AsyncIterator[AgentEvent]:
        """Run ``calls`` (``refuse``: none of them runs, each is answered with this error)."""
        results: dict[int, Block] = {}
        async for ev in self._run_calls(calls, results, refuse):
            yield ev
        blocks, verdicts = self._stuck.review(reply, calls, answer_all(calls, results))
        self._append(msg := Message(role="user", blocks=blocks))
        yield AgentEvent(E.MESSAGE, message=msg)
        if (why := self.tool_runner.take_stop()) is not None:
            yield self._notice("a hook stopped the agent" + (f": {why}" if why else ""), warn=True)
            raise TurnOver(StopReason.END_TURN, reply.text(), {"hook_stop": why})
        for v in verdicts:
            yield self._notice(v.notice, warn=True)
            if v.stop:
                raise TurnOver(StopReason.STUCK, reply.text(), v.data)

    async def _run_calls(
        self,
        calls: list[Block],
        results: dict[int, Block],
        refuse: str = "",
        ends: dict[str, AgentEvent] | None = None,
    ) -> AsyncIterator[AgentEvent]:
        """Run ``calls``, their events out as they come. ``ends``: the edit workflow's own
        calls, not in the conversation (each ``tool_end`` goes there by call id)."""
        queue: asyncio.Queue[AgentEvent | None] = asyncio.Queue()

        def put(ev: AgentEvent) -> None:
            if ends is not None and ev.type is E.TOOL_END:
                ends[ev.tool_id] = ev
            queue.put_nowait(ev)

        self._ctx.emit = emit = self._check.tap(put)  # verify.py sees tool ends
        task = asyncio.create_task(self.tool_runner.run_all(calls, emit, results, refuse))
        task.add_done_callback(lambda _: queue.put_nowait(None))
        self._running = Running(calls, results, task, harness=ends is not None)
        while (ev := await queue.get()) is not None:
            yield ev
        self._running = None
        task.result()

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

    async def _session_start(self, source: str) -> None:
        if self._hooks is not None:  # SessionStart hooks: notices shown at the next turn
            self._notices += await self._hooks.start(source, self.spec)

    # -- compaction ---------------------------------------------------------------------------
    async def _maybe_compact(self) -> AsyncIterator[AgentEvent]:
        threshold = self.config.compact_threshold
        used = self.context_tokens + compaction.estimate_tokens(self.messages[self._counted :])
        if self.context_window and used > threshold * self.context_window:
            try:
                async for ev in self._compact("threshold"):
                    yield ev
            except LarikError as e:
                yield self._notice(f"compaction failed ({e}); carrying on uncompacted", warn=True)

    async def compact(self) -> AsyncIterator[AgentEvent]:
        """Compact now (``/compact``)."""
        self._settle()
        try:
            async for ev in self._compact("manual"):
                yield ev
        except TurnOver as over:  # the summary would cross the budget
            yield self._notice(over.data["budget"], warn=True)
            yield AgentEvent(E.TURN_END, stop_reason=over.stop, data=over.data)
        except LarikError as e:
            yield AgentEvent(E.ERROR, text=f"compaction failed: {e}")

    async def _compact(self, reason: str) -> AsyncIterator[AgentEvent]:
        if reason == "manual":  # /compact: everything so far becomes the summary
            cut = len(self.messages)
        else:
            cut = compaction.choose_cut(self.messages, self.context_window)
        if cut == 0:
            yield self._notice("nothing to compact yet")
            return
        old, kept = self.messages[:cut], self.messages[cut:]
        before = self.context_tokens + compaction.estimate_tokens(self.messages[self._counted :])
        resolved = self._settings.resolver("compact")
        # the window the compact model's server loaded, when it can say (a local model)
        window = (await probe(resolved, capabilities(resolved, self.config))).window
        if self._hooks is not None:  # PreCompact: notices only, it cannot stop a compaction
            for hev in await self._hooks.pre_compact("manual" if reason == "manual" else "auto"):
                yield hev
        self._mind_budget(compaction.summary_request(resolved.model, old, window), resolved)
        what = f"compacting {count(len(old), 'earlier message')} with {resolved.spec} ({reason})"
        yield replace(self._notice(what), data={"compacting": True})  # a front end's progress
        done = None
        async for sev in compaction.summarise(resolved, old, window):
            if sev.type is EventType.DONE:
                done = sev
            else:
                yield self._notice(sev.text, warn=True)
        assert done is not None and done.message is not None  # summarise says so
        answered = done.message.model or resolved.model
        provider = resolved.provider_name if answered == resolved.model else None
        yield self._account(done.usage or Usage(), answered, provider, "compact")
        summary = compaction.summary_message(done.message.text())
        self.messages = [summary, *kept]
        self._record(compaction.record(summary, len(kept), len(old), reason, resolved.spec))
        system = sum(len(s) for s in self._system) // compaction.CHARS_PER_TOKEN
        self.context_tokens = compaction.estimate_tokens(self.messages) + system
        self._counted = len(self.messages)
        ev = self._notice(compaction.done_text(len(old), before, self.context_tokens))
        ev.data.update(compacted=True, before=before, after=self.context_tokens)
        yield ev
        await self._session_start("compact")

    # -- keeping the conversation valid -----------------------------------------------------
    def _settle(self) -> None:
        """After an interrupt or failure: keep partial text, answer every tool call, kill
        running commands. Idempotent; synchronous so it can run while a generator closes."""
        partial, self._partial = self._partial, None
        if partial is not None and partial.text:
            msg = Message(
                role="assistant",
                blocks=[Block.text_block(partial.text)],
                model=partial.model,
                interrupted=True,
            )
            self._append(msg)
        running, self._running = self._running, None
        if running is not None:
            self.kill_processes()
            running.task.cancel()
            if not running.harness:  # the harness's calls are not in the conversation
                blocks = answer_all(running.calls, running.results)
                self._append(Message(role="user", blocks=blocks, interrupted=True))

    def kill_processes(self) -> None:
        """Kill every command still running (and its children)."""
        from ..processes import kill_group

        for pgid, token in list(self._ctx.processes.items()):
            kill_group(pgid, token)
            self._ctx.processes.pop(pgid, None)

    # -- transcript -----------------------------------------------------------------------
    def _append(self, msg: Message, harness: bool = False) -> None:
        """``harness``: a message the edit workflow wrote, not the user's prompt."""
        self.messages.append(msg)
        self._log.message(msg, harness)

    def _record(self, record: dict[str, Any]) -> None:
        self._log.record(record)

    def _notice(self, text: str, warn: bool = False) -> AgentEvent:
        level = NoticeLevel.WARNING if warn else NoticeLevel.INFO
        self._record({"kind": "notice", "text": text, "level": level.value})
        return AgentEvent(E.NOTICE, text=text, level=level)

    def _take_notices(self) -> list[AgentEvent]:
        """Notices raised outside a turn (model switches): recorded when they are shown."""
        out, self._notices = self._notices, []
        for ev in out:
            self._record({"kind": "notice", "text": ev.text, "level": ev.level.value})
        return out

    async def close(self, reason: str = "other") -> list[AgentEvent]:
        """End the session (SessionEnd hooks told ``reason``), whatever fails or is cancelled."""
        main = self._settings.role_label is None  # a subagent's end is not the session's
        try:
            if self._turn is not None and not getattr(self._turn, "ag_running", False):
                await self._turn.aclose()
            self._settle()
            if main:
                await self.jobs.close()
            return await self._hooks.end(reason) if self._hooks is not None else []
        finally:
            if main:  # after SessionEnd's hooks, which run in it
                if self._ctx.lsp is not None:
                    await self._ctx.lsp.close()
                sandbox.close_space(self._settings.policy.sandbox)
            self._log.close()
