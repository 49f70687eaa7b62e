"""The conversation part of a session: its turns, cancelling one, and its event streams.

One turn at a time (:class:`SessionBusy` otherwise). A :class:`Turn` runs an agent's event
source: each event goes to whoever iterates the turn and to every ``events()`` stream
(:class:`Subscription`), with the session's own :class:`SessionEvent`\\ s between them in the
order they happened. ``cancel()`` ends the running turn as Esc does: the turn ends with
``stop == "cancelled"`` and no exception for the face that iterates it. The parts around it
(budget, plan usage) hear of a turn's start and of each reply through two callbacks.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from typing import Any

from ..agent.events import AgentEvent, AgentEventType
from ..llm.errors import LarikError
from .events import SessionEvent, SessionEventType, TurnResult

__all__ = ["Conversation", "Event", "SessionBusy", "Subscription", "Turn"]

E = AgentEventType
S = SessionEventType
Event = AgentEvent | SessionEvent
_CLOSED = object()  # the end of every events() stream


class SessionBusy(LarikError):
    """A turn was started while another one runs."""


class Turn:
    """One turn: iterate it once for its events (each also goes to ``Session.events()``), or
    ``await turn.run(on_event)``; ``result`` says how it ended. ``shown``: the user's message as
    a face shows it (a command's expansion is not what was typed)."""

    def __init__(
        self,
        conversation: Conversation,
        source: Callable[[], AsyncIterator[AgentEvent]],
        shown: str = "",
    ) -> None:
        self.conversation = conversation
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
            if not self.conversation.cancelled_by_request():
                raise
            self.result.stop = "cancelled"
        return self.result

    async def _events(self) -> AsyncGenerator[AgentEvent, None]:
        c = self.conversation
        if self._started:
            raise LarikError("a turn runs once")
        self._started = True
        c.begin()
        finished = False
        try:
            async with aclosing(self._source()) as source:  # type: ignore[type-var]
                async for ev in source:
                    self._note(ev)
                    c.publish(ev)
                    if ev.type is E.USAGE:  # a reply may bring a plan's new usage figures
                        c.on_reply()
                    yield ev
            finished = True
        except asyncio.CancelledError:
            self.result.stop = "cancelled"
            if not c.cancelled_by_request():
                raise
            finished = True
        except LarikError as e:
            self.result.stop, self.result.error = "error", str(e)
            raise
        finally:
            if not finished and not self.result.stop:
                self.result.stop = "cancelled"  # closed early by the face (or a stop signal)
            c.end(self.result)

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

    def __init__(self, conversation: Conversation, *, agent_events: bool = True) -> None:
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._list = conversation.subscribers if agent_events else conversation.quiet
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


class Conversation:
    """Turns one at a time, cancel, and the event streams. ``on_turn_start`` runs as a turn
    begins (the budget's turn spending starts), ``on_reply`` after each reply's usage (new plan
    figures)."""

    def __init__(
        self,
        on_turn_start: Callable[[], None] = lambda: None,
        on_reply: Callable[[], None] = lambda: None,
    ) -> None:
        self.on_turn_start = on_turn_start
        self.on_reply = on_reply
        self.busy = False
        self.subscribers: list[asyncio.Queue[Any]] = []
        self.quiet: list[asyncio.Queue[Any]] = []  # events(agent_events=False): SessionEvents
        self._task: asyncio.Task[Any] | None = None
        self._cancel_requested = False

    def turn(self, source: Callable[[], AsyncIterator[AgentEvent]], shown: str = "") -> Turn:
        return Turn(self, source, shown)

    # -- events -------------------------------------------------------------------------------
    def events(self, *, agent_events: bool = True) -> Subscription:
        """Every event from now on, in order; ``agent_events=False``: only SessionEvents."""
        return Subscription(self, agent_events=agent_events)

    def publish(self, ev: Event) -> None:
        for queue in self.subscribers:
            queue.put_nowait(ev)
        if self.quiet and isinstance(ev, SessionEvent):
            for queue in self.quiet:
                queue.put_nowait(ev)

    def notice(self, text: str, level: str = "info") -> None:
        self.publish(SessionEvent(S.NOTICE, text=text, level=level))

    def changed(self, what: str) -> None:
        self.publish(SessionEvent(S.CHANGED, text=what))

    def end_streams(self) -> None:
        """Every events() stream ends (the session closed)."""
        for queue in [*self.subscribers, *self.quiet]:
            queue.put_nowait(_CLOSED)

    # -- a turn's life ------------------------------------------------------------------------
    def idle(self, what: str) -> None:
        """Raise :class:`SessionBusy` while a turn runs (``what``: the command that waits)."""
        if self.busy:
            raise SessionBusy(f"/{what}: wait for the turn to end, or press Esc")

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

    def begin(self) -> None:
        if self.busy:
            raise SessionBusy("a turn is running: wait for it to end, or cancel it")
        self.busy = True
        self._task = asyncio.current_task()
        self._cancel_requested = False
        self.on_turn_start()
        self.publish(SessionEvent(S.TURN_STARTED))

    def end(self, result: TurnResult) -> None:
        self.busy = False
        self._task = None
        self.publish(SessionEvent(S.TURN_FINISHED, result=result))

    def cancelled_by_request(self) -> bool:
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
