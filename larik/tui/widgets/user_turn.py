"""A user's prompt in the conversation.

A prompt longer than ``LONG`` lines (a big paste) is shown folded: its first ``SHOWN`` lines and
how many more there are; Enter or a click on it shows it all (and folds it again). The same in a
resumed session and in the conversation's archive (folded there).
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual.events import Click
from textual.widgets import Static

from ...words import count
from ..bindings import for_scope

__all__ = ["UserTurn"]

LONG = 12
SHOWN = 4


class UserTurn(Static):
    DEFAULT_CSS = "UserTurn { height: auto; } UserTurn:focus { text-style: none; }"
    BINDINGS = for_scope("card")  # Enter, Space: open or fold (larik/tui/bindings.py)

    def __init__(self, text: str, files: list[str] | None = None) -> None:
        self.prompt = text
        self.files = files
        self.full = False
        body = self.body_text(text, files)
        super().__init__(body)
        self.body = body
        self.can_focus = self.long(text)

    @property
    def search_text(self) -> str:
        """What a search of the conversation looks in (larik/tui/find.py)."""
        return "\n".join([self.prompt, *(f"@{name}" for name in self.files or [])])

    @staticmethod
    def long(text: str) -> bool:
        return text.count("\n") >= LONG

    @staticmethod
    def body_text(text: str, files: list[str] | None = None, *, full: bool = False) -> Text:
        body = Text("› ", style="bold")
        if full or not UserTurn.long(text):
            body.append(text)
        else:
            lines = text.split("\n")
            body.append("\n".join(lines[:SHOWN]))
            body.append(
                f"\n  … +{count(len(lines) - SHOWN, 'line')} (Enter or click to show them)",
                style="dim",
            )
        for name in files or []:
            body.append(f"\n  + @{name}", style="dim")
        return body

    def action_toggle(self) -> None:  # type: ignore[override]  # Textual's takes an attribute
        if not self.long(self.prompt):
            return
        self.full = not self.full
        self.body = self.body_text(self.prompt, self.files, full=self.full)
        self.update(self.body)

    def on_click(self, event: Click) -> None:
        if self.long(self.prompt):
            event.stop()
            self.action_toggle()

    @staticmethod
    def archive_form(body: RenderableType, style: Style) -> RenderableType:
        """A turn in the conversation's archive, without a widget (``style``: a UserTurn's)."""
        return Padding(body, (0, 1), style=style, expand=True)

    def archived(self) -> RenderableType:
        """What this turn looks like once folded into the conversation's archive."""
        return self.archive_form(self.body_text(self.prompt, self.files), self.rich_style)
