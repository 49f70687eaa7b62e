"""SIGTERM and SIGHUP end the TUI as ``/exit`` does.

The running turn and any ``!command`` are cancelled (their commands killed with their process
groups), the session is closed (its transcript whole, its lock released), Textual restores the
terminal, and ``larik`` exits with 128 + the signal's number, as a shell reports a program a
signal ended. (Ctrl+C in the TUI is a key, handled by the app, not a signal.) A second signal
while quitting is ignored; SIGKILL ends Larik without any of this.

The handlers go on the app's event loop (``loop.add_signal_handler``), so they run as ordinary
loop callbacks, never in the middle of Textual's own code; outside the main thread (an app run
by a test pilot elsewhere) there is nothing to install.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Any

__all__ = ["QUIT_SIGNALS", "QuitOnSignals"]

QUIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class QuitOnSignals:
    def __init__(self) -> None:
        self.signum = 0  # the signal that ended the app, if one did

    def install(self, app: Any) -> QuitOnSignals:
        """Quit ``app`` (its ``quit_app``) on SIGTERM or SIGHUP; call from the app's loop."""
        loop = asyncio.get_running_loop()
        for sig in QUIT_SIGNALS:
            try:
                loop.add_signal_handler(sig, self._quit, app, sig)
            except (NotImplementedError, RuntimeError, ValueError):  # no signals here
                return self
        return self

    def _quit(self, app: Any, sig: int) -> None:
        if self.signum:
            return
        self.signum = sig
        app.call_next(app.quit_app, "other")  # SessionEnd's reason: not the user's /exit

    @property
    def exit_code(self) -> int | None:
        """128 + the signal that ended the app; None when none did."""
        return 128 + self.signum if self.signum else None
