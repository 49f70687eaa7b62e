"""A user's prompt in the conversation."""

from __future__ import annotations

from rich.console import RenderableType
from rich.padding import Padding
from rich.text import Text
from textual.widgets import Static

__all__ = ["UserTurn"]


class UserTurn(Static):
    DEFAULT_CSS = "UserTurn { height: auto; }"

    def __init__(self, text: str, files: list[str] | None = None) -> None:
        body = Text("› ", style="bold")
        body.append(text)
        for name in files or []:
            body.append(f"\n  + @{name}", style="dim")
        super().__init__(body)
        self.prompt = text
        self.body = body

    def archived(self) -> RenderableType:
        """What this turn looks like once folded into the conversation's archive."""
        return Padding(self.body, (0, 1), style=self.rich_style, expand=True)
