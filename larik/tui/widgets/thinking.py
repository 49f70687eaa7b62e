"""Thinking: dim, streamed like text, and folded away once the model starts answering."""

from __future__ import annotations

import time

from textual.widgets import Collapsible

from .streaming_markdown import StreamingMarkdown

__all__ = ["ThinkingBlock"]


class ThinkingBlock(Collapsible):
    def __init__(self, text: str = "", *, done: bool = False) -> None:
        self.body = StreamingMarkdown(text, classes="thinking-text")
        super().__init__(self.body, title="Thinking…", collapsed=done, classes="thinking")
        self._started = time.monotonic()
        self.done = False
        if done:
            self.finish(elapsed=None)

    def write(self, fragment: str) -> None:
        self.body.write(fragment)

    def finish(self, elapsed: float | None = -1.0) -> None:
        if self.done:
            return
        self.done = True
        if elapsed is not None and elapsed < 0:
            elapsed = time.monotonic() - self._started
        words = len(self.body.text.split())
        self.title = (
            f"Thought for {elapsed:.1f}s ({words} words)" if elapsed else f"Thought ({words} words)"
        )
        self.collapsed = True
