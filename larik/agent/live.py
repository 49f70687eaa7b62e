"""A running command's output as it comes: ``tool_output`` events, few and bounded.

The bash tool hands every chunk it reads to ``ToolContext.on_output``; the tool runner sets that
to a :class:`LiveOutput` for each call, which turns the chunks into
:attr:`~.events.AgentEventType.TOOL_OUTPUT` events for the front ends (the TUI's tool card,
print mode's ``stream-json``). What the model gets is not this: it is the tool's result at the
end, bounded the same way as always (``bash.MAX_OUTPUT``, the tail kept).

However fast a command prints, the events stay few and small: at most one per
:data:`INTERVAL` (the first chunk goes out at once, the rest are gathered until the interval
has passed), each carrying at most :data:`MAX_EVENT_BYTES` of the newest output. Output dropped
between two events is counted in the next one's ``data["skipped"]`` (bytes), so a reader knows
the text is not continuous. Secrets Larik knows (:mod:`larik.llm.secrets`) are masked in each
event; an event's end that could be the start of one waits for the next event, and the start
of an event after skipped output that could be the end of one is masked, so a key split
between two events never leaves whole in parts. Text is decoded as UTF-8 (bad bytes become U+FFFD; a character cut
between two chunks is kept whole), and is otherwise as the command wrote it: escape sequences
and control characters included — a front end that draws it cleans it (the TUI's card does).
"""

from __future__ import annotations

import asyncio
import codecs
import time
from collections.abc import Callable

from ..llm.secrets import mask, mask_head, split_tail
from .events import AgentEvent, AgentEventType

__all__ = ["INTERVAL", "MAX_EVENT_BYTES", "LiveOutput"]

INTERVAL = 0.1  # seconds: at most ~10 output events a second per running command
MAX_EVENT_BYTES = 16 * 1024  # the newest output an event carries; older is skipped (counted)


class LiveOutput:
    """Chunks of one call's output in, throttled ``tool_output`` events out through ``emit``.

    Call :meth:`add` from the event loop's thread (the bash tool's pipe reader does); call
    :meth:`close` when the command is done: what is still gathered goes out then, before the
    call's ``tool_end``."""

    def __init__(
        self,
        emit: Callable[[AgentEvent], None],
        tool_id: str,
        tool_name: str,
        interval: float = INTERVAL,
        max_bytes: int = MAX_EVENT_BYTES,
    ) -> None:
        self._emit = emit
        self.tool_id = tool_id
        self.tool_name = tool_name
        self.interval = interval
        self.max_bytes = max_bytes
        self._pending = bytearray()
        self._held = ""  # text that may be the start of a secret: sent with the next event
        self._skipped = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._last = float("-inf")  # when the last event went out
        self._timer: asyncio.TimerHandle | None = None
        self._closed = False
        self.events = 0  # how many went out (benchmarks and tests read it)

    def add(self, chunk: bytes) -> None:
        if self._closed or not chunk:
            return
        self._pending += chunk
        over = len(self._pending) - self.max_bytes
        if over > 0:
            del self._pending[:over]
            self._skipped += over + len(self._held.encode())
            self._held = ""  # what it was the start of is gone too
            self._decoder.reset()  # the bytes before are gone: no half character to finish
        if self._timer is not None:
            return
        wait = self._last + self.interval - time.monotonic()
        if wait <= 0:
            self.flush()
        else:
            self._timer = asyncio.get_running_loop().call_later(wait, self.flush)

    def flush(self) -> None:
        """Send what is gathered now (nothing when there is nothing)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        final = self._closed
        text = self._held + self._decoder.decode(bytes(self._pending), final=final)
        self._pending.clear()
        if self._skipped:
            text = mask_head(text)
        text, self._held = (text, "") if final else split_tail(text)
        text = mask(text)
        if not text and not self._skipped:
            return
        data = {"skipped": self._skipped} if self._skipped else {}
        self._skipped = 0
        self._last = time.monotonic()
        self.events += 1
        ev = AgentEvent(
            AgentEventType.TOOL_OUTPUT,
            tool_id=self.tool_id,
            tool_name=self.tool_name,
            text=text,
            data=data,
        )
        try:
            self._emit(ev)
        except Exception:  # a view's bug: it sees no more output; the command's result stands
            self._closed = True

    def close(self, *, flush: bool = True) -> None:
        """The command is done: send the rest (unless ``flush`` is False: it was interrupted,
        and nobody is listening any more); nothing is sent after this."""
        if self._closed:
            return
        self._closed = True
        if flush:
            self.flush()
        elif self._timer is not None:
            self._timer.cancel()
            self._timer = None
