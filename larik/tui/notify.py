"""Notifications: a turn that ended, a permission asked or a background job that finished
reaches you when you are not looking at Larik.

*Not looking* is Textual's focus reporting (the terminal's FocusIn/FocusOut, which the app
turns into ``AppFocus``/``AppBlur`` and ``App.app_focus``: nothing polls), or — in a terminal
that does not report focus, or when you are in another pane — ``[tui] notify_after`` seconds
with no key pressed since (a one-shot timer, cancelled by the next key). How it reaches you is
``[tui] notify``: ``auto`` sends a desktop notification where the terminal shows one (OSC 9:
iTerm2, kitty; OSC 777: WezTerm, Ghostty, foot, rxvt, VTE terminals; inside tmux wrapped for
tmux to pass on, which needs ``allow-passthrough on``) and the bell elsewhere; ``osc`` always
OSC (9, or the 777 of a terminal known to want it), ``bell`` always the bell, ``off`` nothing.
Each notification also runs the session's ``Notification`` hooks (``larik/session/notify.py``).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..terminal_text import safe

__all__ = ["MODES", "Notifier", "protocol", "sequence"]

MODES = ("auto", "off", "bell", "osc")
BEL = "\a"
MAX_TEXT = 200  # characters of a notification's text (a terminal shows one line)

_OSC9 = {"iTerm.app", "vscode"}  # $TERM_PROGRAM values
_OSC777 = {"WezTerm", "ghostty", "foot", "rxvt", "urxvt"}


def protocol(mode: str, env: Mapping[str, str] | None = None) -> str:
    """How to notify: ``osc9``, ``osc777``, ``bell`` or "" (off), for ``mode`` in this
    terminal (``env``: its environment)."""
    env = os.environ if env is None else env
    if mode == "off":
        return ""
    if mode == "bell":
        return "bell"
    program = env.get("TERM_PROGRAM", "")
    lc_terminal = env.get("LC_TERMINAL", "")  # iTerm2 sets it, and ssh passes it on
    term = env.get("TERM", "")
    if program in _OSC777 or "WEZTERM_PANE" in env or "GHOSTTY_RESOURCES_DIR" in env:
        return "osc777"
    if term.startswith(("foot", "rxvt")) or "VTE_VERSION" in env:
        return "osc777"
    if program in _OSC9 or lc_terminal == "iTerm2" or "KITTY_WINDOW_ID" in env:
        return "osc9"
    if "WT_SESSION" in env:  # Windows Terminal shows OSC 9 notifications
        return "osc9"
    return "osc9" if mode == "osc" else "bell"


def sequence(proto: str, title: str, text: str, env: Mapping[str, str] | None = None) -> str:
    """The bytes to write for a notification (tmux's passthrough around an OSC when inside
    tmux). Title and text are made one safe line: no escape of theirs reaches the terminal."""
    env = os.environ if env is None else env
    title, text = _clean(title), _clean(text)
    if proto == "bell":
        return BEL
    if proto == "osc777":
        seq = f"\x1b]777;notify;{title.replace(';', ',')};{text}\x1b\\"
    elif proto == "osc9":
        seq = f"\x1b]9;{title}: {text}\x1b\\"
    else:
        return ""
    if env.get("TMUX"):
        seq = "\x1bPtmux;" + seq.replace("\x1b", "\x1b\x1b") + "\x1b\\"
    return seq


def _clean(text: str) -> str:
    from ..llm.secrets import mask

    line = " ".join(safe(mask(text)).split())
    return line if len(line) <= MAX_TEXT else line[: MAX_TEXT - 1] + "…"


class Notifier:
    """When to notify, and doing it, for the chat screen: ``app()`` gives the terminal (its
    driver), the timers and ``app_focus``; ``say`` shows what a hook said; ``queued`` whether
    prompts wait to be sent after the turn (then its end is no news). :meth:`follow` a session
    for its turns' ends and its jobs; :meth:`asking` wraps the permission dialog."""

    def __init__(
        self,
        app: Callable[[], Any],
        say: Callable[[str, str], None],
        queued: Callable[[], Any] = lambda: False,
    ) -> None:
        self.app = app
        self.say = say
        self.queued = queued
        self.session: Any = None
        self.title = "Larik"
        self._pending: Any = None  # the timer of a notification waiting for notify_after
        self._waiting = ("", "")  # (kind, message) of that notification
        self.sent: list[tuple[str, str]] = []  # (kind, message), as delivered

    def write(self, data: str) -> None:
        """To the terminal, as Textual writes its own sequences (``App.bell``, OSC 52)."""
        app = self.app()
        driver = getattr(app, "_driver", None)
        if driver is not None and not app.is_headless:
            driver.write(data)

    def settings(self) -> tuple[str, float]:
        tui = getattr(getattr(self.session, "config", None), "tui", None)
        return (tui.notify, tui.notify_after) if tui is not None else ("auto", 30.0)

    # -- what happened ----------------------------------------------------------------------
    def follow(self, session: Any, title: str = "Larik") -> None:
        """Notify of ``session``'s turns' ends and its agents' finished jobs."""
        self.session, self.title = session, title
        stream = session.events(agent_events=False)  # its own events only: nothing per delta
        self.app().run_worker(self._follow(stream), group="notify", exit_on_error=False)

    async def _follow(self, stream: Any) -> None:
        from ..session import SessionEventType as S

        async for ev in stream:
            if ev.type is S.TURN_FINISHED and ev.result is not None:
                if not ev.result.cancelled and not self.queued():  # Esc was you: you are here
                    self.event("idle_prompt", _ended(ev.result))
            elif ev.type is S.OPENED:
                jobs = self.session.servers.jobs
                if jobs is not None and self.job_done not in jobs.listeners:
                    jobs.listeners.append(self.job_done)

    def asking(self, approve: Callable[[Any], Awaitable[Any]]) -> Callable[[Any], Awaitable[Any]]:
        """The approval hook ``approve``, notifying while its question waits for you."""

        async def ask(request: Any) -> Any:
            self.event("permission_prompt", f"needs your permission to use {request.tool_name}")
            try:
                return await approve(request)
            finally:
                self.cancel()

        return ask

    def job_done(self, job: Any) -> None:
        """A JobTable listener (called on the job's watcher task)."""
        what = f"background job {job.id} finished (exit code {job.exit_code}): {job.command}"
        self.app().call_later(self.event, "job_finished", what)

    def event(self, kind: str, message: str) -> None:
        """Something worth your attention: now when the terminal is not focused, else after
        ``notify_after`` seconds unless a key is pressed first."""
        self.cancel()
        _, after = self.settings()
        app = self.app()
        if not app.app_focus:
            self.deliver(kind, message)
            return
        self._waiting = (kind, message)
        if after > 0:
            self._pending = app.set_timer(after, self._due)
        else:  # notify_after 0: only a blur sends it
            self._pending = _Held()

    # -- you ----------------------------------------------------------------------------------
    def blurred(self) -> None:
        """The terminal lost focus: what was waiting for ``notify_after`` goes now."""
        if self._pending is not None:
            self.cancel()
            self.deliver(*self._waiting)

    def activity(self) -> None:
        """A key: you are here, what waits for ``notify_after`` is not needed."""
        if self._pending is not None:
            self.cancel()

    def cancel(self) -> None:
        timer, self._pending = self._pending, None
        if timer is not None:
            timer.stop()

    def _due(self) -> None:
        self._pending = None
        self.deliver(*self._waiting)

    # -- telling you ----------------------------------------------------------------------------
    def deliver(self, kind: str, message: str) -> None:
        mode, _ = self.settings()
        seq = sequence(protocol(mode), self.title, message)
        if seq:
            self.write(seq)
        self.sent.append((kind, message))
        from ..session.notify import has_hooks

        if has_hooks(self.session):
            self.app().run_worker(self._hooks(kind, message), exit_on_error=False)

    async def _hooks(self, kind: str, message: str) -> None:
        from ..session.notify import notification_hooks

        for line in await notification_hooks(self.session, message, self.title, kind):
            self.say(line, "warning")


def _ended(result: Any) -> str:
    """A turn's end in a notification's few words."""
    if result.error:
        return f"the turn ended with an error: {result.error}"
    if result.stop in ("end_turn", "stop_sequence", ""):
        first = next((line for line in result.text.splitlines() if line.strip()), "")
        return f"finished: {first}" if first else "finished, waiting for your input"
    return f"the turn stopped ({result.stop}), waiting for your input"


class _Held:
    """A notification that waits for a blur only (``notify_after = 0``): no timer runs."""

    def stop(self) -> None:
        pass
