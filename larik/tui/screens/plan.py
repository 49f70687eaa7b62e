"""The question at the end of a plan-mode turn: carry the plan out (in ``edits`` or ``ask``
mode), or keep planning. Esc keeps planning: nothing is changed by dismissing it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ...modes import Mode

__all__ = ["CHOICES", "PlanScreen"]

#: answer -> button label; the answer is the mode to carry on in, or "refine"
CHOICES = {
    Mode.EDITS: "Yes, edit freely (e)",
    Mode.ASK: "Yes, ask before each edit (a)",
    "refine": "No, keep planning (r / Esc)",
}


class PlanScreen(ModalScreen[str]):
    BINDINGS = [
        Binding("e", "choose('edits')", "edit freely"),
        Binding("a", "choose('ask')", "ask before edits"),
        Binding("r", "choose('refine')", "keep planning"),
        Binding("escape", "choose('refine')", "keep planning", show=False),
    ]

    def __init__(self) -> None:
        super().__init__(classes="modal", id="plan-screen")  # at the bottom: the plan stays in view

    def compose(self) -> ComposeResult:
        with Vertical(id="plan-choice", classes="dialog"):
            yield Static("[b]Carry out this plan?[/b]")
            yield Static(
                "Yes leaves plan mode and tells the model to go ahead; no keeps planning — "
                "say what to change.",
                classes="dim",
            )
            with Vertical(classes="buttons", id="plan-buttons"):  # one a line: fit at 80 columns
                for answer, label in CHOICES.items():
                    yield Button(label, id=f"plan-{answer}", compact=True)

    def on_mount(self) -> None:
        self.query_one("#plan-edits", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_choose((event.button.id or "plan-refine").removeprefix("plan-"))

    def action_choose(self, answer: str) -> None:
        self.dismiss(answer)
