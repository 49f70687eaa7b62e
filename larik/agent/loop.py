"""``TurnLoop``: one user turn = stream a reply, run its tool calls, repeat until the model is
done — the :class:`~.driver.TurnDriver` the tool loop and the edit workflow run on.

How a turn ends is an exception inside the loop (``TurnOver``); a provider failure ends it with
an ERROR event. Cancelling the task that iterates a turn is an interrupt: :meth:`settle` then
leaves the conversation valid for every provider — the partial reply kept (marked
interrupted), every tool call given a result (synthesised "interrupted" errors for those that
did not finish), running commands killed. A reply cut at the output limit ends the turn with
``max_tokens`` and a warning; if it has tool calls, none of them runs (their arguments are
incomplete by definition): each gets an error result saying so and how to split the change,
and the turn goes on. Hitting ``max_turns`` ends the turn with stop reason ``max_turns`` and
``data["max_turns"]``. A model going round in circles (:mod:`.stuck`) is told so once in a tool
result, then its turn ends with stop reason ``stuck`` and ``data["stuck"]``. A reply that runs
away (:mod:`.runaway`: the same piece over and over; small models, or ``[models]
cancel_runaway``) is cancelled as it streams and discarded; the model is told what it repeated
and asked once more, cooler; a second runaway in the turn ends it ``stuck`` with
``data["stuck"] == "runaway"``.

The loop holds a turn's run state (the reply streaming, the calls running, the runaways so
far); the model is the :class:`~.model_slot.ModelSlot`'s, the conversation the
:class:`~.history.History`'s, the configuration the :class:`~.settings.AgentSettings`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING

from ..llm.errors import APIError, ContextOverflow, LarikError, LoginExpired
from ..llm.replay import merge_adjacent
from ..llm.types import Block, Effort, EventType, Message, Request, StopReason, Usage
from ..modes import Mode
from ..words import count
from . import images, plan
from .driver import Ask
from .edit_turn import EDIT_ROUNDS, EditHost, run_edit_turn
from .edit_turn import SYSTEM as EDIT_SYSTEM
from .events import AgentEvent, AgentEventType
from .history import Summariser
from .runaway import RunawayReply, RunawayWatch, cooler
from .runner import answer_all, cut_off_result
from .shown import error_record
from .stuck import StuckDetector, have_it
from .tools.answer import as_answer
from .turn import Partial, Reply, Running, TurnOver
from .verify import TurnCheck

if TYPE_CHECKING:
    from ..routing import Resolved
    from .history import History
    from .model_slot import ModelSlot
    from .profile import Profile
    from .rewind import Checkpointer
    from .runner import ToolRunner
    from .session_hooks import SessionHooks
    from .settings import AgentSettings, BudgetCheck
    from .tools import ToolContext

__all__ = ["TurnLoop"]

E = AgentEventType
Events = AsyncIterator[AgentEvent]


class TurnLoop:
    def __init__(
        self,
        settings: AgentSettings,
        slot: ModelSlot,
        history: History,
        runner: ToolRunner,
        ctx: ToolContext,
        *,
        checkpoints: Checkpointer,
        hooks: SessionHooks | None,
        system: list[str],
        session_start: Callable[[str], Awaitable[None]],
        effort: Effort,
    ) -> None:
        """``system``: the prompt's parts (prefix, context), kept up to date by the owner;
        ``session_start``: SessionStart hooks (after a compaction)."""
        self._settings, self._slot, self._history = settings, slot, history
        self._runner, self._ctx, self._system = runner, ctx, system
        self._checkpoints, self._hooks, self._session_start = checkpoints, hooks, session_start
        self.effort = effort  # checked by the owner
        self.max_turns = settings.max_turns  # the profile's limit, once fitted
        self.warmer: float | None = None  # a later try's least temperature (session/attempts.py)
        self.budget_check: BudgetCheck | None = None  # the session's budget (session/budget.py)
        self._stuck = StuckDetector(settings.config.stuck, runner.call_key)
        self._check = TurnCheck()
        self._partial: Partial | None = None
        self._running: Running | None = None
        self._runaways = 0
        self._turn: AsyncGenerator[AgentEvent, None] | None = None

    def fit(self, profile: Profile) -> None:
        """The model's profile (re)worked out: its turn limit and its repeat nudge."""
        self.max_turns = profile.turn_limit(self._settings.max_turns)
        self._stuck.have_it = have_it(profile.tools) if profile.repeat_nudge else ""

    @property
    def plan_mode(self) -> bool:
        """Plan mode, in the main agent (a subagent's answer is not the plan)."""
        return self._settings.policy.mode is Mode.PLAN and self._settings.role_label is None

    @property
    def edit_workflow(self) -> bool:  # in the main agent, outside plan mode (a plan is read)
        main = self._settings.role_label is None
        return self._slot.profile.workflow == "edit" and main and not self.plan_mode

    # -- a turn -------------------------------------------------------------------------------
    def start(self, prompt: str | list[Block], typed: str = "") -> AsyncIterator[AgentEvent]:
        """One user turn. Iterate it to the end; cancel the iterating task to interrupt.
        ``typed``: what the user typed when it is not the prompt (``/review x``, expanded)."""
        self._turn = gen = self._run(prompt, self._turn, typed)
        return gen

    async def close_turn(self) -> None:
        """The session ends: a turn abandoned mid-way is closed, the conversation settled."""
        if self._turn is not None and not getattr(self._turn, "ag_running", False):
            await self._turn.aclose()
        self.settle()

    async def _run(
        self,
        prompt: str | list[Block],
        prev: AsyncGenerator[AgentEvent, None] | None,
        as_typed: str,
    ) -> AsyncGenerator[AgentEvent, None]:
        if prev is not None and getattr(prev, "ag_running", False):
            raise RuntimeError("a turn is already running")
        if prev is not None:
            await prev.aclose()  # abandoned mid-way: its cleanup settles the conversation
        try:
            self.settle()
            self._stuck.start_turn()
            self._runaways = 0  # runaway replies cancelled in this turn (one is retried)
            self._check = TurnCheck()
            for text in await self._slot.at_turn():
                yield self.notice(text, warn=True)
            for ev in self._history.take_notices():
                yield ev
            blocks = [Block.text_block(prompt)] if isinstance(prompt, str) else list(prompt)
            typed = Message(role="user", blocks=blocks).text()
            if self._hooks is not None:  # context goes into blocks, a block ends the turn
                async for ev in self._hooks.submit(typed, blocks):
                    yield ev
                    if ev.type is E.ERROR:
                        return
            if self.plan_mode:
                blocks.append(Block.text_block(plan.NOTE))
            user = Message(role="user", blocks=blocks)
            self._checkpoints.begin_turn(user.text(), as_typed or typed)
            self.append(user)
            yield AgentEvent(E.MESSAGE, message=user)
            try:
                async for ev in self._drive(typed):
                    yield ev
            except TurnOver as over:
                if "budget" in over.data:  # the next request would have crossed it
                    yield self.notice(over.data["budget"], warn=True)
                if self.plan_mode and over.stop is StopReason.END_TURN and over.text.strip():
                    over.data["plan"] = over.text  # the front end offers to accept it
                for ev in self._checkpoints.end_turn():
                    yield ev
                for ev in self._check.finish(over, self.notice):
                    yield ev
                yield AgentEvent(E.TURN_END, text=over.text, stop_reason=over.stop, data=over.data)
            except LarikError as e:
                self.settle()
                for ev in self._checkpoints.end_turn():
                    yield ev
                self._history.record(error_record(str(e)))  # shown again on resume
                again = {"sign_in": e.command} if isinstance(e, LoginExpired) else {}  # exit 2
                yield AgentEvent(E.ERROR, text=str(e), data=again)
        except BaseException:
            self.settle()
            self._checkpoints.end_turn()
            raise

    async def _drive(self, typed: str) -> Events:
        """The turn after the prompt: the tool loop, or the edit workflow (:mod:`.edit_turn`)
        for a model whose profile says so. Raises TurnOver when the turn is over."""
        if self.edit_workflow:
            async for ev in run_edit_turn(self._edit_host(), typed):
                yield ev
            return
        calls = 0
        while True:
            calls += 1
            async for ev in self._step(last=calls >= self.max_turns):
                yield ev

    def _edit_host(self) -> EditHost:
        """What the edit workflow runs on: this loop, and what it may know of the session."""
        mode, seen = self._settings.policy.mode, self._ctx.seen
        return EditHost(
            driver=self,
            root=self._settings.root,
            window=self._slot.window,
            profile=self._slot.profile,
            rounds=min(EDIT_ROUNDS, self.max_turns),
            denies_read=lambda path: self._settings.policy.denies_path("read_file", path),
            mark_read=seen.record,
            writes_unasked=mode.writes_unasked,
            unusable=self._slot.caps.unusable,
        )

    async def _step(self, last: bool) -> Events:
        """One model call and its tool calls. Raises TurnOver when the turn is over."""
        history, window = self._history, self._slot.window
        if window and history.in_use() > self._settings.config.compact_threshold * window:
            try:
                async for ev in self._compact("threshold"):
                    yield ev
            except LarikError as e:
                yield self.notice(f"compaction failed ({e}); carrying on uncompacted", warn=True)
        reply = Reply()
        async for ev in self.call_model(reply):
            yield ev
        profile = self._slot.profile
        msg, stop = reply.message, reply.stop
        answer = as_answer(msg, profile.tools) if stop is not StopReason.MAX_TOKENS else None
        if answer is not None:  # the model called answer: its text ends the turn
            msg, stop = answer, StopReason.END_TURN
            yield AgentEvent(E.TEXT_DELTA, text=answer.blocks[-1].text)
        if msg.blocks:
            self.append(msg)
            yield AgentEvent(E.MESSAGE, message=msg)
        history.counted = len(history.messages)
        uses = msg.tool_uses()
        cut = stop is StopReason.MAX_TOKENS
        if cut:
            yield self.notice(
                "the reply was cut off at the model's output limit"
                + ("; its tool calls were not run" if uses else "; ask it to continue"),
                warn=True,
            )
        if uses:  # a cut reply's calls are incomplete by definition: none of them runs
            refuse = cut_off_result(profile.request_options().get("max_tokens")) if cut else ""
            async for ev in self._run_tools(msg, uses, refuse):
                yield ev
            if last:
                what = f"stopped after {count(self.max_turns, 'model call')} (the max-turns limit)"
                yield self.notice(what, warn=True)
                raise TurnOver(StopReason.MAX_TURNS, msg.text(), {"max_turns": self.max_turns})
            return
        if stop is StopReason.PAUSE_TURN and not last:
            return
        if stop is StopReason.TOOL_USE:
            stop = StopReason.END_TURN  # "tool_use" with no tool calls: nothing left to do
        if stop is StopReason.END_TURN and not last and self._hooks is not None:
            async for ev in self._hooks.stop(msg.text(), self.append):
                yield ev
                if ev.type is E.MESSAGE:
                    return  # a Stop hook sent the model back to work
        raise TurnOver(stop, msg.text())

    # -- model calls ----------------------------------------------------------------------------
    def _request(self, ask: Ask = Ask()) -> Request:
        s, slot = self._settings, self._slot
        source = s.tool_source  # its block (MCP servers' instructions) comes last
        system = [*self._system, source.system_text()] if source else self._system
        edits = self.edit_workflow  # no tools: the harness runs them (edit_turn.py)
        tools = [*slot.specs, *source.specs(slot.window)] if source else slot.specs
        said = self._history.messages
        if ask.prefill:  # the reply begun for the model: this request's, not the conversation's
            said = [*said, Message(role="assistant", blocks=[Block.text_block(ask.prefill)])]
        request = Request(
            model=slot.model,
            system=[EDIT_SYSTEM, self._system[1]] if edits else system,
            messages=merge_adjacent(said),  # the adapter filters what it may replay
            tools=tools if slot.caps.tools and not edits else [],
            effort=self.effort,
            initiator="agent" if s.role_label else "",  # a subagent's call
            **slot.profile.request_options(self.warmer),
        )
        if ask.temperature is not None:
            request = request.model_copy(update={"temperature": ask.temperature})
        return request

    async def call_model(self, reply: Reply, ask: Ask = Ask()) -> Events:
        """Stream one reply into ``reply``. A runaway reply (:mod:`.runaway`) is cancelled as
        it streams and discarded; the first of a turn is asked again, cooler, after a nudge
        saying what it repeated; the second ends it ``stuck``. On ContextOverflow the
        conversation is compacted and the reply asked again, once."""
        while True:
            try:
                async for ev in self._call_fitted(reply, ask):
                    yield ev
                break
            except RunawayReply as stop:
                self._partial = None  # discarded: what it repeats must not be sent back
                again, self._runaways = self._runaways > 0, self._runaways + 1
                yield self.notice(stop.runaway.notice(again), warn=True)
                if again:
                    raise TurnOver(StopReason.STUCK, "", stop.runaway.data) from None
                profile = self._slot.profile
                loop = bool(profile.tools) and profile.workflow == "loop"
                self.append(Message.user(stop.runaway.nudge(loop)))  # no tools in the edit one
                ask = Ask(cooler(profile.sampling.temperature), ask.prefill)
        text = reply.message.text()
        if ask.prefill and not text.lstrip().startswith(ask.prefill.strip()):
            rest = [b for b in reply.message.blocks if b.type != "text"]  # the server gave
            blocks = [Block.text_block(ask.prefill + text), *rest]  # only what came after it
            reply.message = reply.message.model_copy(update={"blocks": blocks})

    async def _call_fitted(self, reply: Reply, ask: Ask) -> Events:
        """Stream one reply; on ContextOverflow compact and retry once."""
        model = self._slot.model
        try:
            async for ev in self._stream(reply, ask):
                yield ev
            return
        except ContextOverflow:
            self._partial = None
        compacted = False
        async for ev in self._compact("overflow"):
            compacted = compacted or bool(ev.data.get("compacted"))
            yield ev
        if not compacted:
            raise ContextOverflow(f"the conversation does not fit {model}'s context window")
        try:
            async for ev in self._stream(reply, ask):
                yield ev
        except ContextOverflow:
            raise ContextOverflow(
                f"the conversation does not fit {model}'s context window even after "
                "compacting; start a new session or switch to a model with a larger window"
            ) from None

    def mind_budget(self, request: Request, resolved: Resolved) -> None:
        """TurnOver ``budget`` when the session's budget says ``request`` must not be sent."""
        why = self.budget_check(request, resolved) if self.budget_check else None
        if why is not None:
            raise TurnOver(StopReason.BUDGET, "", {"budget": why})

    async def _stream(self, reply: Reply, ask: Ask) -> Events:
        slot = self._slot
        self.mind_budget(request := self._request(ask), slot.resolved)
        self._partial = partial = Partial(slot.model)
        done = None
        watch = RunawayWatch() if slot.profile.cancel_runaway else None
        async with aclosing(images.stream(slot.resolved, request, slot.caps)) as events:
            async for sev in events:
                if watch is not None:  # RunawayReply: leaving the block closes the stream
                    watch.see(sev)
                if sev.type is EventType.TEXT_DELTA:
                    partial.pieces.append(sev.text)
                    yield AgentEvent(E.TEXT_DELTA, text=sev.text)
                elif sev.type is EventType.THINKING_DELTA:
                    yield AgentEvent(E.THINKING_DELTA, text=sev.text)
                elif sev.type is EventType.NOTICE:
                    yield self.notice(sev.text, warn=True)
                elif sev.type is EventType.DONE:
                    done = sev
        if done is None or done.message is None:
            raise APIError(
                0, "the reply ended without a final message", provider=slot.provider_name
            )
        self._partial = None
        reply.message = done.message
        reply.stop = done.stop_reason or StopReason.END_TURN
        usage = done.usage or Usage()
        answered = done.message.model or slot.model
        provider = slot.provider_name if answered == slot.model else None
        self._history.context_tokens = usage.context + usage.output
        yield self._history.account(usage, answered, provider, slot.role or "main")

    # -- the conversation ---------------------------------------------------------------------
    @property
    def messages(self) -> Sequence[Message]:
        return self._history.messages

    def append(self, message: Message, harness: bool = False) -> None:
        self._history.append(message, harness)

    def leave_out(self, message: Message) -> None:
        self._history.leave_out(message)

    def notice(self, text: str, warn: bool = False) -> AgentEvent:
        return self._history.notice(text, warn)

    # -- tools --------------------------------------------------------------------------------
    async def _run_tools(self, reply: Message, calls: list[Block], refuse: str = "") -> Events:
        """Run ``calls`` (``refuse``: none of them runs, each is answered with this error)."""
        results: dict[int, Block] = {}
        async for ev in self.run_calls(calls, results, refuse=refuse):
            yield ev
        blocks, verdicts = self._stuck.review(reply, calls, answer_all(calls, results))
        self.append(msg := Message(role="user", blocks=blocks))
        yield AgentEvent(E.MESSAGE, message=msg)
        if (why := self._runner.take_stop()) is not None:
            yield self.notice("a hook stopped the agent" + (f": {why}" if why else ""), warn=True)
            raise TurnOver(StopReason.END_TURN, reply.text(), {"hook_stop": why})
        for v in verdicts:
            yield self.notice(v.notice, warn=True)
            if v.stop:
                raise TurnOver(StopReason.STUCK, reply.text(), v.data)

    async def run_calls(
        self,
        calls: list[Block],
        results: dict[int, Block],
        *,
        refuse: str = "",
        ends: dict[str, AgentEvent] | None = None,
    ) -> Events:
        """Run ``calls``, their events out as they come. ``ends``: the edit workflow's own
        calls, not in the conversation (each ``tool_end`` goes there by call id)."""
        queue: asyncio.Queue[AgentEvent | None] = asyncio.Queue()

        def put(ev: AgentEvent) -> None:
            if ends is not None and ev.type is E.TOOL_END:
                ends[ev.tool_id] = ev
            queue.put_nowait(ev)

        self._ctx.emit = emit = self._check.tap(put)  # verify.py sees tool ends
        task = asyncio.create_task(self._runner.run_all(calls, emit, results, refuse))
        task.add_done_callback(lambda _: queue.put_nowait(None))
        self._running = Running(calls, results, task, harness=ends is not None)
        while (ev := await queue.get()) is not None:
            yield ev
        self._running = None
        task.result()

    # -- compaction -----------------------------------------------------------------------------
    async def compact(self) -> Events:
        """Compact now (``/compact``)."""
        self.settle()
        try:
            async for ev in self._compact("manual"):
                yield ev
        except TurnOver as over:  # the summary would cross the budget
            yield self.notice(over.data["budget"], warn=True)
            yield AgentEvent(E.TURN_END, stop_reason=over.stop, data=over.data)
        except LarikError as e:
            yield AgentEvent(E.ERROR, text=f"compaction failed: {e}")

    async def _compact(self, reason: str) -> Events:
        how = Summariser(
            model=self._slot.compact_model,
            before=self._hooks.pre_compact if self._hooks is not None else _no_hooks,
            mind_budget=self.mind_budget,
            system_chars=sum(len(s) for s in self._system),
        )
        compacted = False
        async for ev in self._history.compact(reason, self._slot.window, how):
            compacted = compacted or bool(ev.data.get("compacted"))
            yield ev
        if compacted:
            await self._session_start("compact")

    # -- keeping the conversation valid -------------------------------------------------------
    def settle(self) -> None:
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
            self.append(msg)
        running, self._running = self._running, None
        if running is not None:
            kill_all(self._settings.processes)
            running.task.cancel()
            if not running.harness:  # the harness's calls are not in the conversation
                blocks = answer_all(running.calls, running.results)
                self.append(Message(role="user", blocks=blocks, interrupted=True))


async def _no_hooks(trigger: str) -> list[AgentEvent]:
    return []


def kill_all(processes: dict[int, str]) -> None:
    """Kill every command still running (and its children)."""
    from ..processes import kill_group

    for pgid, token in list(processes.items()):
        kill_group(pgid, token)
        processes.pop(pgid, None)
