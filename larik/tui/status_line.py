"""``[tui] status_line``: a command of yours whose first line of output is shown in the status
line, as Claude Code's ``statusLine`` is.

The command gets the session's state as JSON on stdin — Claude Code's fields (``session_id``,
``transcript_path``, ``cwd``, ``model``, ``workspace``, ``version``, ``cost``,
``context_window``) and Larik's (``permission_mode``, ``effort``, ``busy``) — and its first
line of stdout replaces Larik's own status line or goes after it
(``status_line_mode``). SGR colours in it are kept; every other escape sequence and control
character is removed, so it cannot move the cursor, retitle the terminal or set the clipboard.

It runs when the state changes — never on a timer while nothing does, so an idle Larik costs
nothing — at most once a second (a change within the second runs it once, when the second is
over), and not at all when the state is the same as last time. One that takes longer than
:data:`TIMEOUT` seconds is killed with its process group; one that fails or times out leaves
the part blank and says why once. It runs as your hooks from your own config do
(``bash -c`` in the project, credentials taken out of its environment). Only your own config
names it: a project's ``[tui]`` table is refused (larik/config/load.py), so a cloned
repository cannot make Larik run a command as its status line.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text

from .. import __version__
from ..llm import jsontext
from ..terminal_text import safe

if TYPE_CHECKING:
    from ..session.port import SessionStatus

__all__ = ["MIN_INTERVAL", "TIMEOUT", "StatusCommand", "line_text", "state"]

MIN_INTERVAL = 1.0  # seconds between two runs, at least
TIMEOUT = 2.0  # seconds a run may take before it is killed
MAX_LINE = 500  # characters of the line kept
_SGR = re.compile(r"(\x1b\[[0-9;:]*m)")
_ESCAPE = re.compile(
    r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[PX^_][^\x1b]*(\x1b\\)?|.)"
)


def state(status: SessionStatus, cwd: Path, busy: bool = False) -> dict[str, Any]:
    """What the command gets on stdin (Claude Code's shape, and Larik's own fields)."""
    usage = status.usage
    total = usage.total if usage is not None else None
    model = status.model
    spec = status.spec or model
    return {
        "hook_event_name": "Status",
        "session_id": status.session_id,
        "transcript_path": status.transcript_path,
        "cwd": str(cwd),
        "model": {"id": spec, "display_name": model},
        "workspace": {"current_dir": str(cwd), "project_dir": str(cwd)},
        "version": __version__,
        "output_style": {"name": "default"},
        "cost": {"total_cost_usd": float(status.cost or 0.0)},
        "context_window": {
            "total_input_tokens": (total.input + total.cache_read) if total else 0,
            "total_output_tokens": total.output if total else 0,
            "context_window_size": status.context_window,
            "current_tokens": status.context_tokens,
        },
        "permission_mode": status.mode,
        "effort": status.effort or "default",
        "busy": busy,
    }


def line_text(output: str) -> Text:
    """The first line of ``output`` as Rich text: its SGR colours kept, every other escape and
    control removed."""
    first = next(iter(output.splitlines()), "")[: MAX_LINE * 4]
    pieces = []
    for piece in _SGR.split(first):
        if _SGR.fullmatch(piece):
            pieces.append(piece)
        else:
            pieces.append(safe(_ESCAPE.sub("", piece)).replace("\t", " ").replace("\ufffd", ""))
    text = Text.from_ansi("".join(pieces), no_wrap=True, overflow="ellipsis")
    text.truncate(MAX_LINE)
    return text


class StatusCommand:
    """Runs ``command`` when :meth:`changed` says the state did, at most once a second;
    ``show(text)`` gets each new line (None: blank), ``say(text, level)`` what went wrong
    (each reason once). ``set_timer`` and ``run`` are the app's (a one-shot timer, a worker)."""

    def __init__(
        self,
        command: str,
        cwd: Path,
        show: Callable[[Text | None], None],
        say: Callable[[str, str], None],
        set_timer: Callable[[float, Callable[[], None]], Any],
        run: Callable[[Any], Any],
    ) -> None:
        self.command = command
        self.cwd = cwd
        self._show, self._say = show, say
        self._set_timer, self._run = set_timer, run
        self._last_payload = b""
        self._next: bytes | None = None  # a state waiting for its turn
        self._running = False
        self._last_run = float("-inf")
        self._timer: Any = None
        self._said: set[str] = set()
        self.runs = 0  # how many times it ran (for the tests and benchmarks)

    def changed(self, status: SessionStatus, busy: bool = False) -> None:
        """The state may have changed: run the command on it, now or when its second is up."""
        payload = jsontext.dumps(state(status, self.cwd, busy), sort_keys=True).encode()
        if payload == self._last_payload and self._next is None:
            return  # nothing the command sees has changed
        self._next = payload
        self._schedule()

    def _schedule(self) -> None:
        if self._running or self._timer is not None or self._next is None:
            return
        wait = self._last_run + MIN_INTERVAL - time.monotonic()
        if wait > 0:
            self._timer = self._set_timer(wait, self._due)
        else:
            self._start()

    def _due(self) -> None:
        self._timer = None
        self._schedule()

    def _start(self) -> None:
        payload, self._next = self._next, None
        if payload is None or payload == self._last_payload:
            return
        self._last_payload, self._running = payload, True
        self._last_run = time.monotonic()
        self._run(self._once(payload))

    async def _once(self, payload: bytes) -> None:
        from ..hooks.process import run_hook

        try:
            done = await run_hook(self.command, payload, cwd=self.cwd, timeout=TIMEOUT)
            self.runs += 1
            if done.error:
                self._fail(f"status line command could not start: {done.error}")
            elif done.timed_out:
                self._fail(f"status line command took longer than {TIMEOUT:g} s: killed")
            elif done.code != 0:
                why = next(iter(done.stderr.text().strip().splitlines()), "")
                self._fail(
                    f"status line command failed (exit {done.code})" + (f": {why}" if why else "")
                )
            else:
                out = line_text(done.stdout.text())
                self._show(out if out.plain.strip() else None)
        finally:
            self._running = False
            self._schedule()  # a change that came while it ran

    def _fail(self, why: str) -> None:
        self._show(None)
        if why not in self._said:
            self._said.add(why)
            self._say(why, "warning")

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._next = None
