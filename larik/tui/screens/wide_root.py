""" "Work in this folder?": asked before anything else when Larik starts in ``/``, the home
folder or a folder holding it (:func:`larik.trust.wide_root`) — far wider than a project.

``w`` works there all the same; ``q``, ``n`` or Esc quits. Focus starts on "Quit", so a stray
Enter never says yes. Nothing is remembered: the next start in such a folder asks again.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

__all__ = ["WideRootScreen"]


class WideRootScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("w", "work", "work here"),
        Binding("q", "quit_here", "quit"),
        Binding("n", "quit_here", "quit", show=False),
        Binding("escape", "quit_here", "quit", show=False),
    ]

    def __init__(self, line: str) -> None:
        super().__init__(classes="modal")
        self.line = line

    def compose(self) -> ComposeResult:
        with Vertical(id="wide-root", classes="dialog"):
            yield Static(Text("Work in this folder?", style="bold"), id="wide-root-title")
            body = Text(self.line + ".", style="yellow")
            body.append(
                "\n\nWork here only if you mean the model to see and change all of it.",
                style="dim",
            )
            yield Static(body)
            with Horizontal(classes="buttons"):
                yield Button("Work here (w)", id="wide-root-yes", variant="warning")
                yield Button("Quit (q)", id="wide-root-no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#wide-root-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "wide-root-yes")

    def action_work(self) -> None:
        self.dismiss(True)

    def action_quit_here(self) -> None:
        self.dismiss(False)
