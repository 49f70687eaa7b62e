"""Markdown that streams in: finished blocks are frozen, only the growing block is re-rendered.

``write(fragment)`` only appends to a list; painting happens at most ``FPS`` times a second, on
a timer, so a fast stream costs one render per frame whatever its delta rate. Each frame:

1. the pending fragments are joined onto the unfinished *tail*;
2. ``finished_prefix`` finds the blocks of the tail that can no longer change; they are
   appended as an item, rendered once into lines and never touched again;
3. the tail (what is left) is rendered again.

So the cost of a frame depends on the size of the growing block, not on the reply's length,
and the reply is a single widget. (Textual's ``Markdown`` widget mounts a widget per block and
re-measures them on every layout, which costs seconds for a long reply.)
"""

from __future__ import annotations

import asyncio
import time

from rich.console import RenderableType
from rich.padding import Padding
from rich.style import Style

from ..gcpolicy import freeze_young
from ..mdsplit import finished_prefix
from ..render import markdown
from .rendered_lines import RenderedLines

__all__ = ["FPS", "StreamingMarkdown"]

FPS = 30


class StreamingMarkdown(RenderedLines):
    def __init__(
        self,
        text: str = "",
        *,
        classes: str | None = None,
        header: RenderableType | None = None,
        collapsed: bool = False,
    ) -> None:
        super().__init__(classes=classes, header=header, collapsed=collapsed)
        self._pending: list[str] = [text] if text else []
        self._tail_text = ""
        self._frozen_text: list[str] = []
        self._scheduled = False
        self._lock = asyncio.Lock()
        self._last_paint = 0.0
        self.frames = 0  # paints so far (for the benchmark and tests)

    def on_mount(self) -> None:
        if self._pending:
            self.call_after_refresh(self._paint)

    @property
    def text(self) -> str:
        """Everything written so far, painted or not."""
        return "".join(self._frozen_text) + self._tail_text + "".join(self._pending)

    @property
    def search_text(self) -> str:
        """What a search of the conversation looks in (larik/tui/find.py): the reply, or the
        thinking, written so far."""
        return self.text

    @property
    def tail_text(self) -> str:
        """The part still being re-rendered each frame (the growing block)."""
        return self._tail_text

    @staticmethod
    def archive_form(text: str, style: Style) -> RenderableType:
        """A reply in the conversation's archive, without a widget (``style``: a reply's)."""
        return Padding(markdown(text), (0, 1), style=style, expand=True)

    def archived(self) -> RenderableType:
        """The whole reply, for the conversation's archive (rendered once more, then kept)."""
        return self.archive_form(self.text, self.rich_style)

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
            self._tail_text += "".join(self._pending)
            self._pending.clear()
            cut = finished_prefix(self._tail_text)
            if cut:
                done, self._tail_text = self._tail_text[:cut], self._tail_text[cut:]
                self._frozen_text.append(done)
                self.append(markdown(done), update=False)
                freeze_young()
            tail = self._tail_text
            self.set_tail(markdown(tail) if tail.strip() else None)
            self._last_paint = time.monotonic()
            self.frames += 1
