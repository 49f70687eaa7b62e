"""Markdown that streams in: finished blocks are frozen, only the growing block is re-rendered.

``write(fragment)`` only appends to a list; painting happens at most ``FPS`` times a second, on
a timer, so a fast stream costs one render per frame whatever its delta rate. Each frame:

1. the pending fragments are joined onto the unfinished *tail*;
2. ``finished_prefix`` finds the blocks of the tail that can no longer change; they are mounted
   appended to a ``RenderedLines`` widget, rendered once into lines and never touched again;
3. the live ``Static`` is updated with what is left of the tail.

Two widgets per reply whatever its length. (Textual's ``Markdown`` widget mounts a widget per
block and re-measures them on every layout, which costs seconds for a long reply.)

So the cost of a frame depends on the size of the growing block, not on the reply's length.
"""

from __future__ import annotations

import asyncio
import time

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ..gcpolicy import freeze_young
from ..mdsplit import finished_prefix
from ..render import markdown
from .rendered_lines import RenderedLines

__all__ = ["StreamingMarkdown", "FPS"]

FPS = 30


class StreamingMarkdown(Vertical):
    DEFAULT_CSS = """
    StreamingMarkdown { height: auto; }
    StreamingMarkdown > Static { height: auto; }
    StreamingMarkdown > .live.-after-frozen { margin-top: 1; }
    """

    def __init__(self, text: str = "", *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._pending: list[str] = [text] if text else []
        self._tail = ""
        self._frozen_text: list[str] = []
        self._frozen = RenderedLines(classes="frozen")
        self._live = Static(classes="live")
        self._scheduled = False
        self._lock = asyncio.Lock()
        self._last_paint = 0.0
        self.frames = 0  # paints so far (for the benchmark and tests)

    def compose(self) -> ComposeResult:
        yield self._frozen
        yield self._live

    def on_mount(self) -> None:
        if self._pending:
            self.call_after_refresh(self._paint)

    @property
    def text(self) -> str:
        """Everything written so far, painted or not."""
        return "".join(self._frozen_text) + self._tail + "".join(self._pending)

    def write(self, fragment: str) -> None:
        """Append a fragment; it is painted on the next frame. Never blocks."""
        if not fragment:
            return
        self._pending.append(fragment)
        self._schedule()

    def _schedule(self) -> None:
        if self._scheduled or not self.is_mounted:
            return
        self._scheduled = True
        delay = max(0.001, self._last_paint + 1 / FPS - time.monotonic())
        self.set_timer(delay, self._paint, name="markdown-frame")

    async def _paint(self) -> None:
        self._scheduled = False
        await self.flush()
        if self._pending:
            self._schedule()

    async def flush(self) -> None:
        """Paint everything written so far (also called when the stream ends)."""
        async with self._lock:
            if not self._pending or not self.is_mounted:
                return
            self._tail += "".join(self._pending)
            self._pending.clear()
            cut = finished_prefix(self._tail)
            if cut:
                done, self._tail = self._tail[:cut], self._tail[cut:]
                self._frozen_text.append(done)
                self._frozen.append(markdown(done))
                self._live.add_class("-after-frozen")
                freeze_young()
            live = bool(self._tail.strip())
            self._live.update(markdown(self._tail) if live else "")
            self._live.display = live
            self._last_paint = time.monotonic()
            self.frames += 1
