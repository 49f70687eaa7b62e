"""Running the session's turns in the chat screen, and drawing what the session sends.

:class:`Turns` is the chat screen's work that runs: one turn at a time in the turn worker (a
prompt's ``@path`` files and ``@server:URI`` resources attached first, the SDK warm-up waited
for), the prompts typed meanwhile queued and sent when it ends (an interrupt puts them back in
the prompt), a ``!command`` in its own worker, and the one worker that draws
``session.events()`` — every turn's events and the session's notices, in order. It gets the
session, the widgets it draws on (:class:`TurnView`) and the screen's ``run_worker``, never
the screen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.worker import Worker, get_current_worker

from ..agent.events import AgentEventType
from ..session import SessionEvent, SessionEventType
from ..session.attachments import attach, no_images_for

if TYPE_CHECKING:
    from ..session import Session, Subscription, Turn
    from .gcpolicy import IdleCollector
    from .warmup import WarmUp
    from .widgets.activity import Activity
    from .widgets.conversation import ConversationView
    from .widgets.prompt_input import PromptInput
    from .widgets.queued import QueuedPrompts

__all__ = ["TurnView", "Turns"]

E, S = AgentEventType, SessionEventType
_STATUS_EVENTS = frozenset({E.USAGE, E.MESSAGE, E.TURN_END, E.NOTICE, E.ERROR})


@dataclass(frozen=True)
class TurnView:
    """What a turn draws on, and what the screen does for it."""

    conv: ConversationView
    activity: Activity
    queue: QueuedPrompts  # prompts typed during a turn, sent when it ends
    prompt: PromptInput
    say: Callable[[str, str], None]  # (text, level): a notice
    refresh_status: Callable[[], None]
    model_changed: Callable[[], None]  # the SDK warm-up of the new model
    offer_plan: Callable[[], None]  # a turn ended with a plan: accept it, or plan on
    run_worker: Callable[..., Worker[Any]]  # the screen's
    call_later: Callable[..., Any]  # the screen's: after the message it handles


class Turns:
    def __init__(
        self, session: Session, cwd: Path, view: TurnView, warmup: WarmUp, gc: IdleCollector
    ) -> None:
        self.session, self.cwd, self.view = session, cwd, view
        self.warmup, self.gc = warmup, gc
        self.busy = False
        self.worker: Worker[None] | None = None  # the turn's
        self.shell: Worker[None] | None = None  # the !command's
        self._saw_error = False  # the running turn's error was drawn already

    def start(self, turn: Turn | str) -> None:
        """Run ``turn`` in the turn worker (:meth:`draw` draws it); a prompt, with its
        ``@path`` files and ``@server:URI`` resources attached (or why not, one line each)."""
        self.busy = True
        self.view.refresh_status()
        self.view.activity.start(self.session.spec)
        self.worker = self.view.run_worker(
            self._run(turn), group="turn", exclusive=True, exit_on_error=False
        )

    async def _run(self, turn: Turn | str) -> None:
        try:
            if isinstance(turn, str):
                turn = await self._send(turn)
            await self.warmup.done()
        except (asyncio.CancelledError, Exception):  # stopped before its turn started (Esc
            mine = get_current_worker() is self.worker  # during the SDK warm-up)
            if mine and self.busy and not self.session.busy:
                self.view.conv.interrupted()
                self._unqueue()
                self._stopped()
            raise
        try:
            await turn.run()
        except Exception:  # in the turn's result: drawn when it finishes
            pass

    async def _send(self, text: str) -> Turn:
        view = self.view
        attached = await attach(self.session, text, self.cwd)
        if view.prompt.images is not None:  # its image chips (larik/tui/images.py)
            view.prompt.images.attach(text, attached, no_images_for(self.session))
        for problem in attached.problems:
            view.conv.add_notice(problem, "warning")
        view.conv.add_user(text, attached.files)
        return self.session.send(attached.prompt(), text)  # /rewind gives it back

    def draw_events(self, stream: Subscription) -> None:
        self.view.run_worker(self._draw_events(stream), group="events", exit_on_error=False)

    async def _draw_events(self, stream: Subscription) -> None:
        async for ev in stream:
            try:
                self.draw(ev)
            except Exception as e:  # one line, never a traceback
                self.view.conv.add_notice(f"internal error: {type(e).__name__}: {e}", "error")

    def draw(self, ev: Any) -> None:
        view = self.view
        if isinstance(ev, SessionEvent):
            if ev.type is S.NOTICE:
                view.say(ev.text, ev.level)
            elif ev.type is S.CHANGED:
                view.refresh_status()
                if ev.text == "model":
                    view.model_changed()
            elif ev.type is S.TURN_STARTED:
                self._saw_error = False
            elif ev.type is S.TURN_FINISHED and ev.result is not None:
                self._finished(ev.result)
            return
        view.activity.saw(ev)
        view.conv.handle(ev)
        self._saw_error = self._saw_error or ev.type is E.ERROR
        if ev.type in _STATUS_EVENTS:
            view.refresh_status()
        if ev.type is E.TURN_END and ev.data.get("plan"):
            view.call_later(view.offer_plan)  # accept, or plan on

    def _finished(self, result: Any) -> None:
        if result.cancelled:
            self.view.conv.interrupted()
            self._unqueue()
        elif result.error and not self._saw_error:  # raised, not an error event
            self.view.conv.add_notice(result.error, "error")
        self._stopped()
        self.gc.schedule()
        if self.view.queue.prompts:
            self.view.call_later(self._send_queued)

    def _stopped(self) -> None:
        self.busy = False
        self.view.activity.stop()
        self.view.refresh_status()

    def _send_queued(self) -> None:
        if self.view.queue.prompts and not self.busy and self.session.ready:
            self.start(self.view.queue.next() or "")

    def _unqueue(self) -> None:
        """An interrupt: the prompts typed ahead go back into the prompt, to edit or send."""
        queue, prompt = self.view.queue, self.view.prompt
        if queue.prompts:
            prompt.load_text(queue.take_all(prompt.text))
            prompt.move_cursor(prompt.document.end)

    def queue_or_start(self, text: str) -> None:
        """A prompt sent: type-ahead while a turn runs (sent when it ends; Esc puts it back),
        else a turn now."""
        if self.busy:
            self.view.queue.add(text)
        else:
            self.start(text)

    def interrupt(self) -> bool:
        """Esc: the running turn ends (its commands are killed), a ``!command`` stops; False
        when nothing ran."""
        stopped = self.session.cancel()
        for worker in (self.worker, self.shell):
            if worker is not None and worker.is_running and not (stopped and worker is self.worker):
                worker.cancel()
                stopped = True
        return stopped

    def cancel_input(self) -> None:
        """Ctrl+C once: interrupt a running turn and clear the prompt (and what was queued)."""
        self.view.queue.clear()
        if self.busy:
            self.interrupt()
        self.view.prompt.clear()

    def running(self) -> list[Worker[None]]:
        """What leaving stops first: the turn and the ``!command``, if they run."""
        return [w for w in (self.worker, self.shell) if w is not None and w.is_running]

    def run_shell(self, command: str) -> None:
        if not command:
            self.view.say("usage: !COMMAND (runs it here and shows the output)", "info")
            return
        from .shell_command import run_shell_command

        self.shell = self.view.run_worker(
            run_shell_command(self.session, self.view.conv, command),
            group="shell",
            exit_on_error=False,
        )
