"""A user's prompt in the conversation."""

from __future__ import annotations

from rich.console import RenderableType
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual.widgets import Static

__all__ = ["UserTurn"]


class UserTurn(Static):
    DEFAULT_CSS = "UserTurn { height: auto; }"

    def __init__(self, text: str, files: list[str] | None = None) -> None:
        body = self.body_text(text, files)
        super().__init__(body)
        self.prompt = text
        self.body = body

    @staticmethod
    def body_text(text: str, files: list[str] | None = None) -> Text:
        body = Text("› ", style="bold")
        body.append(text)
        for name in files or []:
            body.append(f"\n  + @{name}", style="dim")
        return body

    @staticmethod
    def archive_form(body: RenderableType, style: Style) -> RenderableType:
        """A turn in the conversation's archive, without a widget (``style``: a UserTurn's)."""
        return Padding(body, (0, 1), style=style, expand=True)

    def archived(self) -> RenderableType:
        """What this turn looks like once folded into the conversation's archive."""
        return self.archive_form(self.body, self.rich_style)
