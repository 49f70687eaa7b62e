""" "Trust this folder?": asked once per project whose own config wants what needs trust.

Shows the project folder and, one per line, exactly what its ``.larik/config.toml`` asks for
(a looser permission mode, allow rules, hooks, MCP servers…). ``t`` trusts, ``n`` or Esc does
not; focus starts on "Don't trust", so a stray Enter never trusts. The answer is remembered by
the caller together with a digest of those settings (see :mod:`larik.trust`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ..render import hanging

if TYPE_CHECKING:
    from ...trust import ProjectTrust

__all__ = ["WARNING", "TrustScreen", "details"]

WARNING = Text(
    "These loosen safety or run programs. Trust it only if you trust the people who wrote "
    "this repository. Without trust Larik still works here, with your own settings only.",
    style="dim",
)
#: How each kind of change is drawn (larik.trust.changes: new ones first, then changed, removed).
_CHANGE_STYLE = {"new": "bold yellow", "changed": "yellow", "removed": "dim"}


def details(r: ProjectTrust) -> Text:
    """What changed since the last answer (when asked again), then each item the project asks
    for, each naming its file (larik.trust_words.describe)."""
    body = Text("")
    if r.changed:
        body.append(f"It changed since {r.changed_since}:\n", style="bold")
        for change in r.changed:
            kind, _, what = change.partition(": ")
            body.append("  • ")
            if kind in _CHANGE_STYLE:
                body.append(f"{kind}: ", style=_CHANGE_STYLE[kind])
                body.append(what)
            else:
                body.append(change, style="yellow")
            body.append("\n")
        body.append("\n")
    body.append("It asks for:\n")
    for i, ask in enumerate(r.asks):
        body.append("  • ")
        body.append(ask, style="yellow")
        if i < len(r.asks) - 1:
            body.append("\n")
    return body


class TrustScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("t", "trust", "trust"),
        Binding("n", "distrust", "don't trust"),
        Binding("escape", "distrust", "don't trust", show=False),
    ]

    def __init__(self, request: ProjectTrust) -> None:
        super().__init__(classes="modal")
        self.request = request

    def compose(self) -> ComposeResult:
        r = self.request
        with Vertical(id="trust", classes="dialog"):
            title = Text("Trust this folder?  ", style="bold")
            title.append(str(r.root), style="bold yellow")
            yield Static(title, id="trust-title")
            # docked below the scrolled list: in view at any size (80x24 too)
            with Vertical(id="trust-footer"):
                yield Static(WARNING, id="trust-warning")
                with Horizontal(classes="buttons"):
                    yield Button("Trust (t)", id="trust-yes", variant="warning")
                    yield Button("Don't trust (n)", id="trust-no", variant="primary")
            with VerticalScroll(id="trust-details"):
                yield Static(hanging(details(r)))

    def on_mount(self) -> None:
        for button in self.query("#trust-no").results(Button):  # none: answered already (a
            button.focus()  # key read before the mount ran), and its children are gone

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "trust-yes")

    def action_trust(self) -> None:
        self.dismiss(True)

    def action_distrust(self) -> None:
        self.dismiss(False)
