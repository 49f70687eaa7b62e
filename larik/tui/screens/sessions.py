"""The ``/resume`` picker: earlier sessions of this project, newest first — in the TUI, and
as a small app of its own for ``larik --resume`` without an ID in a terminal
(:func:`pick_session`; piped, the command prints a table instead: ``larik.cli``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

__all__ = ["SessionPickApp", "SessionPickerScreen", "pick_session"]


class SessionPickerScreen(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "cancel", show=False)]

    def __init__(self, sessions: list[Any], current: str = "") -> None:
        super().__init__(classes="modal")
        self.sessions = [s for s in sessions if s.id != current]

    def compose(self) -> ComposeResult:
        with Vertical(id="session-picker", classes="dialog"):
            yield Static(Text("Resume a session", style="bold"))
            if not self.sessions:
                yield Static("No earlier sessions in this project. Esc to close.")
            yield OptionList(*self._options(), id="session-list")

    def _options(self, width: int = 0) -> list[Option]:
        """One line per session, the prompt cut to ``width`` (0: not yet laid out)."""
        out = []
        for s in self.sessions:
            label = Text(str(s.id), style="bold")  # the id starts with the start time
            label.append(f"  {getattr(s, 'messages', 0)} msgs  ", style="dim")
            label.append(" ".join(str(getattr(s, "first_prompt", "") or "").split()))
            if width:
                label.truncate(width, overflow="ellipsis")
            out.append(Option(label))
        return out

    def on_mount(self) -> None:
        ol = self.query_one("#session-list", OptionList)
        ol.highlighted = 0 if self.sessions else None
        ol.focus()
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        ol = self.query_one("#session-list", OptionList)
        width = ol.scrollable_content_region.width - 1  # an option's padding
        if width > 0:
            kept = ol.highlighted
            ol.clear_options()
            ol.add_options(self._options(width))
            ol.highlighted = kept

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(str(self.sessions[event.option_index].id))

    def action_cancel(self) -> None:
        self.dismiss(None)


class SessionPickApp(App[str | None]):
    """The picker alone, in Larik's looks: the id picked, or None (Esc, Ctrl+C)."""

    CSS_PATH = Path(__file__).parent.parent / "app.tcss"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [Binding("ctrl+c", "cancel", "cancel", show=False, priority=True)]

    def __init__(self, sessions: list[Any]) -> None:
        from .. import themes

        super().__init__()
        for theme in themes.BUILTIN:
            self.register_theme(theme)
        self.theme = themes.DARK
        self.sessions = sessions

    def get_css_variables(self) -> dict[str, str]:
        from .. import themes

        return themes.with_defaults(super().get_css_variables(), self.current_theme.dark)

    def on_mount(self) -> None:
        self.push_screen(SessionPickerScreen(self.sessions), callback=self.exit)

    def action_cancel(self) -> None:
        self.exit(None)


def pick_session(sessions: list[Any]) -> str | None:
    """Run :class:`SessionPickApp` on the terminal: the session picked, or None."""
    return SessionPickApp(sessions).run()
