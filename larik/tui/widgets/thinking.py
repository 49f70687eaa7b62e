"""Thinking: dim, streamed like text, and folded away once the model starts answering.

A click (or Enter when focused) opens or folds it again.
"""

from __future__ import annotations

import time

from rich.console import RenderableType
from rich.padding import Padding
from rich.text import Text
from textual.binding import Binding
from textual.events import Click

from .streaming_markdown import StreamingMarkdown

__all__ = ["ThinkingBlock"]


class ThinkingBlock(StreamingMarkdown, can_focus=True):
    BINDINGS = [Binding("enter,space", "toggle", "open/fold", show=False)]

    def __init__(self, text: str = "", *, done: bool = False) -> None:
        self.title = "Thinking…"
        super().__init__(text, classes="thinking", header=self._title_text(), collapsed=done)
        self._started = time.monotonic()
        self.done = False
        if done:
            self.finish(elapsed=None)

    def _title_text(self) -> Text:
        arrow = "▶" if getattr(self, "_collapsed", False) else "▼"
        return Text(f"{arrow} {self.title}", style="dim")

    def finish(self, elapsed: float | None = -1.0) -> None:
        if self.done:
            return
        self.done = True
        if elapsed is not None and elapsed < 0:
            elapsed = time.monotonic() - self._started
        words = len(self.text.split())
        self.title = (
            f"Thought for {elapsed:.1f}s ({words} words)" if elapsed else f"Thought ({words} words)"
        )
        self.collapsed = True
        self.set_header(self._title_text())

    def archived(self) -> RenderableType:
        return Padding(self._title_text(), (0, 1), style=self.rich_style, expand=True)

    def action_toggle(self) -> None:
        self.collapsed = not self.collapsed
        self.set_header(self._title_text())

    def on_click(self, event: Click) -> None:
        event.stop()
        self.action_toggle()
