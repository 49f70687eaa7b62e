"""An inline notice: fallback switched model, compaction, warnings, errors, command output."""

from __future__ import annotations

from rich.console import RenderableType
from rich.padding import Padding
from rich.text import Text
from textual.widgets import Static

from ..render import markdown

__all__ = ["Notice"]

_ICONS = {"info": "·", "warning": "!", "error": "✗"}


class Notice(Static):
    DEFAULT_CSS = "Notice { height: auto; }"

    def __init__(self, text: str, level: str = "info", *, as_markdown: bool = False) -> None:
        self.text = text
        self.level = level
        body: RenderableType
        if as_markdown:
            body = markdown(text)
        else:
            body = Text(f"{_ICONS.get(level, '·')} {text}")
        super().__init__(body, classes=f"notice -{level}")
        self.body = body

    def archived(self) -> RenderableType:
        return Padding(self.body, (0, 1), style=self.rich_style, expand=True)
