"""SIGTERM and SIGHUP end the TUI as ``/exit`` does.

The running turn and any ``!command`` are cancelled (their commands killed with their process
groups), the session is closed (its transcript whole, its lock released), Textual restores the
terminal, and ``larik`` exits with 128 + the signal's number, as a shell reports a program a
signal ended. (Ctrl+C in the TUI is a key, handled by the app, not a signal.) A second signal
while quitting is ignored; SIGKILL ends Larik without any of this.

The handlers go on the app's event loop (``loop.add_signal_handler``), so they run as ordinary
loop callbacks, never in the middle of Textual's own code; outside the main thread (an app run
by a test pilot elsewhere) there is nothing to install.

A closed terminal window is a hang-up: the kernel sends SIGHUP *and SIGCONT* to the terminal's
foreground processes. Textual takes any SIGCONT for "resumed after Ctrl+Z" and starts its
terminal mode again — on a terminal that is gone, behind the back of the shutdown under way,
which then waited for ever on the output thread it had replaced (an orphaned ``larik`` per
closed window). So SIGCONT reaches Textual only after a SIGTSTP (a real suspend), and once the
session is closed on a stop signal, a shutdown that still has not ended after
:data:`EXIT_GRACE` seconds ends with ``os._exit`` — nothing is left to save by then.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from typing import Any

__all__ = ["EXIT_GRACE", "QUIT_SIGNALS", "QuitOnSignals"]

QUIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
EXIT_GRACE = 5.0  # seconds Textual's shutdown may take after the session is closed


class QuitOnSignals:
    def __init__(self) -> None:
        self.signum = 0  # the signal that ended the app, if one did
        self.suspended = False  # a SIGTSTP came: the next SIGCONT is a resume
        self._timer: threading.Timer | None = None

    def install(self, app: Any) -> QuitOnSignals:
        """Quit ``app`` (its ``quit_app``) on SIGTERM or SIGHUP; call from the app's loop."""
        loop = asyncio.get_running_loop()
        for sig in QUIT_SIGNALS:
            try:
                loop.add_signal_handler(sig, self._quit, app, sig)
            except (NotImplementedError, RuntimeError, ValueError):  # no signals here
                return self
        self._guard_resume()
        return self

    def _guard_resume(self) -> None:
        """Let SIGCONT through to Textual's handler only after a SIGTSTP."""
        on_tstp, on_cont = signal.getsignal(signal.SIGTSTP), signal.getsignal(signal.SIGCONT)
        if not callable(on_tstp) or not callable(on_cont):
            return  # no driver of Textual's handles them: nothing to guard

        def tstp(signum: int, frame: Any) -> None:
            self.suspended = True
            on_tstp(signum, frame)

        def cont(signum: int, frame: Any) -> None:
            if self.suspended and not self.signum:
                self.suspended = False
                on_cont(signum, frame)

        signal.signal(signal.SIGTSTP, tstp)
        signal.signal(signal.SIGCONT, cont)

    def _quit(self, app: Any, sig: int) -> None:
        if self.signum:
            return
        self.signum = sig
        app.call_next(self._quit_app, app)

    async def _quit_app(self, app: Any) -> None:
        await app.quit_app("other", wait=True)  # SessionEnd's reason: not the user's /exit
        if getattr(app, "is_headless", False):
            return  # a test's app: no terminal to get stuck on, and not our process to end
        # the session is closed: a shutdown stuck on the terminal ends (disarm() when it does not)
        self._timer = threading.Timer(EXIT_GRACE, os._exit, (128 + self.signum,))
        self._timer.daemon = True
        self._timer.start()

    def disarm(self) -> None:
        """The app's run is over: the shutdown did end."""
        if self._timer is not None:
            self._timer.cancel()

    @property
    def exit_code(self) -> int | None:
        """128 + the signal that ended the app; None when none did."""
        return 128 + self.signum if self.signum else None
