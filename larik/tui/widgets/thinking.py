"""Thinking: dim, streamed like text, and folded away once the model starts answering.

A click (or Enter when focused) opens or folds it again.
"""

from __future__ import annotations

import time

from rich.console import RenderableType
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual.events import Click

from ...words import count
from ..bindings import for_scope
from .streaming_markdown import StreamingMarkdown

__all__ = ["ThinkingBlock"]


class ThinkingBlock(StreamingMarkdown, can_focus=True):
    BINDINGS = for_scope("card")  # Enter, Space: open or fold (larik/tui/bindings.py)

    def __init__(self, text: str = "", *, done: bool = False) -> None:
        self.title = "Thinking…"
        super().__init__(text, classes="thinking", header=self._title_text(), collapsed=done)
        self._started = time.monotonic()
        self.done = False
        if done:
            self.finish(elapsed=None)

    def _title_text(self) -> Text:
        return self.title_text(self.title, collapsed=getattr(self, "_collapsed", False))

    @staticmethod
    def title_text(title: str, *, collapsed: bool = True) -> Text:
        return Text(f"{'▶' if collapsed else '▼'} {title}", style="dim")

    def finish(self, elapsed: float | None = -1.0) -> None:
        if self.done:
            return
        self.done = True
        if elapsed is not None and elapsed < 0:
            elapsed = time.monotonic() - self._started
        self.title = self.done_title(self.text, elapsed)
        self.collapsed = True
        self.set_header(self._title_text())

    @staticmethod
    def done_title(text: str, elapsed: float | None = None) -> str:
        words = len(text.split())
        return (
            f"Thought for {elapsed:.1f}s ({count(words, 'word')})"
            if elapsed
            else f"Thought ({count(words, 'word')})"
        )

    @staticmethod
    def archive_form(title: Text | str, style: Style) -> RenderableType:
        """Thinking in the conversation's archive, without a widget (``style``: a block's)."""
        return Padding(title, (0, 1), style=style, expand=True)

    def archived(self) -> RenderableType:
        return self.archive_form(self._title_text(), self.rich_style)

    def action_toggle(self) -> None:  # type: ignore[override]  # Textual's takes an attribute
        self.collapsed = not self.collapsed
        self.set_header(self._title_text())

    def on_click(self, event: Click) -> None:
        event.stop()
        self.action_toggle()
