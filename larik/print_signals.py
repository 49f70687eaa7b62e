"""The signals that stop a print-mode run: SIGINT, SIGTERM and SIGHUP stop it as Ctrl+C does
(running commands killed, the session saved and resumable, the result object still written);
the exit code is 128 + the signal's number, as a shell reports a program a signal ended.

:mod:`larik.print_outcome` writes what a stopped run says (``stopped``).
"""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .session import Session

__all__ = ["STOP_SIGNALS", "StopSignals", "Stopped"]

# The signals that stop a run like Ctrl+C does, and the stop reason each gives.
STOP_SIGNALS: dict[int, str] = {
    signal.SIGINT: "interrupted",
    signal.SIGTERM: "terminated",
    signal.SIGHUP: "terminated",
}


class Stopped(KeyboardInterrupt):
    """A stop signal came before the run's task existed (reading the prompt, starting up).
    A KeyboardInterrupt, so asyncio lets it through as it does Ctrl+C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class StopSignals:
    """SIGINT, SIGTERM and SIGHUP stop a run the same way. The first one cancels the run's task,
    whose cleanup kills running commands and closes the session (as asyncio.run does for
    Ctrl+C, which this replaces); before that task exists it raises :class:`Stopped`.
    Repeats are ignored — a quick double Ctrl+C is one — except a Ctrl+C ``FORCE_AFTER``
    seconds or more into a stop that has not finished: it raises KeyboardInterrupt at once.
    Installed only in the main thread (the only one that receives signals)."""

    FORCE_AFTER = 1.0

    def __init__(self) -> None:
        self.signum = 0
        self.task: asyncio.Task[Any] | None = None
        self.session: Session | None = None  # once it exists: what a forced stop reports
        self._since = 0.0
        self._old: dict[int, Any] = {}

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            for sig in STOP_SIGNALS:
                self._old[sig] = signal.signal(sig, self._on_signal)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)

    def _on_signal(self, signum: int, frame: object) -> None:
        if self.signum:
            if signum == signal.SIGINT and time.monotonic() - self._since >= self.FORCE_AFTER:
                raise KeyboardInterrupt
            return
        self.signum, self._since = signum, time.monotonic()
        task = self.task
        if task is None:
            raise Stopped(signum)
        if not task.done():
            task.cancel()
            task.get_loop().call_soon_threadsafe(lambda: None)  # wake the loop's select

    @property
    def stop_reason(self) -> str:
        return STOP_SIGNALS.get(self.signum, "interrupted")
