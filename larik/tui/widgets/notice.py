"""An inline notice: fallback switched model, compaction, warnings, errors, command output."""

from __future__ import annotations

from rich.console import RenderableType
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from ..render import hanging, markdown

__all__ = ["Notice"]

_ICONS = {"info": "·", "warning": "!", "error": "✗"}


class Notice(Static):
    DEFAULT_CSS = "Notice { height: auto; }"

    def __init__(self, text: str, level: str = "info", *, as_markdown: bool = False) -> None:
        self.text = text
        self.level = level
        body = self.body_of(text, level, as_markdown=as_markdown)
        super().__init__(body, classes=self.classes_of(level))
        self.body = body

    @property
    def search_text(self) -> str:
        """What a search of the conversation looks in (larik/tui/find.py)."""
        return self.text

    @staticmethod
    def classes_of(level: str) -> str:
        return f"notice -{level}"

    @staticmethod
    def body_of(text: str, level: str = "info", *, as_markdown: bool = False) -> RenderableType:
        if as_markdown:
            return markdown(text)
        return hanging(Text(f"{_ICONS.get(level, '·')} {text}"))

    @staticmethod
    def archive_form(body: RenderableType, style: Style) -> RenderableType:
        """A notice in the conversation's archive, without a widget (``style``: its level's)."""
        return Padding(body, (0, 1), style=style, expand=True)

    def set_text(self, text: str, level: str | None = None) -> None:
        """Say something else in the same place (a retry that is tried again, then fails)."""
        if level is not None and level != self.level:
            self.set_classes(self.classes_of(level))
            self.level = level
        self.text = text
        self.body = self.body_of(text, self.level)
        self.update(self.body)

    def archived(self) -> RenderableType:
        return self.archive_form(self.body, self.rich_style)
