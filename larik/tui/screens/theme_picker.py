"""The ``/theme`` picker: the themes in a small list at the top of the screen; moving to one
shows it at once (the conversation below is drawn in it), Enter keeps it, Esc goes back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from ..prefs import Prefs

__all__ = ["ThemeScreen"]


class ThemeScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "cancel", show=False)]

    def __init__(self, prefs: Prefs, names: list[str], current: str) -> None:
        super().__init__(id="theme-screen")
        self.prefs = prefs
        self.names = names
        self.current = current
        self.problem = ""  # the last theme that could not be shown, and why

    def compose(self) -> ComposeResult:
        with Vertical(id="theme-picker", classes="dialog"):
            yield Static(Text("Theme · ↑↓ try · Enter keep · Esc back", style="bold"))
            yield OptionList(*(Option(n, id=n) for n in self.names), id="theme-list")

    def on_mount(self) -> None:
        ol = self.query_one("#theme-list", OptionList)
        ol.highlighted = self.names.index(self.current) if self.current in self.names else 0
        ol.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.problem = self.prefs.try_theme(self.names[event.option_index])  # live preview

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.names[event.option_index])

    def action_cancel(self) -> None:
        self.dismiss(None)
