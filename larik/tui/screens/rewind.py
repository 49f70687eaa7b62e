"""The screens of ``/rewind`` and ``/undo`` (docs/undo.md).

* :class:`TurnPickerScreen`: the session's user turns, newest first (number, time, prompt,
  files changed); Enter picks one, Esc closes.
* :class:`RewindChoiceScreen`: what to restore to before that turn — code and conversation,
  the conversation only, the code only (Claude Code's three choices) — or nothing.
* :class:`ConflictScreen`: files changed since the turn that last changed them: keep them as
  they are (focused first, so a stray Enter never overwrites), overwrite them, or cancel.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from ...words import count

__all__ = ["CHOICES", "ConflictScreen", "RewindChoiceScreen", "TurnPickerScreen"]

# what RewindChoiceScreen answers -> its button's label
CHOICES = {
    "both": "Restore code and conversation (b)",
    "conversation": "Restore conversation (c)",
    "code": "Restore code (o)",
}


def _time(at: str) -> str:
    try:
        return datetime.fromisoformat(at).astimezone().strftime("%m-%d %H:%M")
    except ValueError:
        return "--"


def _files(files: list[str], most: int = 3) -> str:
    if not files:
        return "no files"
    more = f" +{len(files) - most}" if len(files) > most else ""
    return ", ".join(files[:most]) + more


class TurnPickerScreen(ModalScreen[int | None]):
    BINDINGS = [Binding("escape", "cancel", "cancel", show=False)]

    def __init__(self, turns: list[Any]) -> None:
        super().__init__(classes="modal")
        self.turns = list(reversed(turns))  # newest first

    def compose(self) -> ComposeResult:
        with Vertical(id="turn-picker", classes="dialog"):
            yield Static(Text("Rewind to before a turn", style="bold"))
            ol = OptionList(id="turn-list")
            for t in self.turns:
                label = Text(f"{t.n:>3}  ", style="bold")
                label.append(f"{_time(t.at)}  ", style="dim")
                label.append(" ".join(t.prompt.split())[:60] or "(no text)")
                files = _files(t.files) if t.before else "no files"
                label.append(f"  {files}" + ("  (undone)" if t.undone else ""), style="dim")
                ol.add_option(Option(label))
            yield ol
            yield Static("Enter picks a turn · Esc closes", classes="dim")

    def on_mount(self) -> None:
        ol = self.query_one("#turn-list", OptionList)
        ol.highlighted = 0 if self.turns else None
        ol.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.turns[event.option_index].n)

    def action_cancel(self) -> None:
        self.dismiss(None)


class RewindChoiceScreen(ModalScreen[str | None]):
    BINDINGS = [
        Binding("b", "choose('both')", "code and conversation"),
        Binding("c", "choose('conversation')", "conversation"),
        Binding("o", "choose('code')", "code"),
        Binding("escape", "choose('')", "never mind", show=False),
    ]

    def __init__(self, turn: Any, code_files: list[str]) -> None:
        super().__init__(classes="modal")
        self.turn = turn
        self.code_files = code_files

    def compose(self) -> ComposeResult:
        t = self.turn
        with Vertical(id="rewind-choice", classes="dialog"):
            title = Text(f"Rewind to before turn {t.n}: ", style="bold")
            title.append(" ".join(t.prompt.split())[:80], style="bold yellow")
            yield Static(title)
            body = Text()
            if self.code_files:
                body.append("Restoring the code puts back: ")
                body.append(_files(self.code_files, 8), style="yellow")
            else:
                body.append("No file changes since this turn to take back.", style="dim")
            body.append(
                "\nRestoring the conversation starts a new session from before this turn; "
                "this one is kept as it is.",
                style="dim",
            )
            yield Static(body, id="rewind-what")
            with Vertical(classes="buttons", id="rewind-buttons"):  # one a line: 80 columns fit
                for what, label in CHOICES.items():
                    yield Button(label, id=f"rewind-{what}", compact=True)
                yield Button("Never mind (Esc)", id="rewind-", compact=True)

    def on_mount(self) -> None:
        self.query_one("#rewind-both", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_choose((event.button.id or "rewind-").removeprefix("rewind-"))

    def action_choose(self, what: str) -> None:
        self.dismiss(what or None)


class ConflictScreen(ModalScreen[str | None]):
    BINDINGS = [
        Binding("k", "answer('keep')", "keep mine"),
        Binding("o", "answer('overwrite')", "overwrite"),
        Binding("escape", "answer('')", "cancel", show=False),
    ]

    def __init__(self, conflicts: list[str], files: list[str], what: str) -> None:
        super().__init__(classes="modal")
        self.conflicts = conflicts
        self.files = files
        self.what = what

    def compose(self) -> ComposeResult:
        with Vertical(id="conflict", classes="dialog"):
            yield Static(Text(f"Changed since {self.what}", style="bold"))
            body = Text(
                "These files were changed after Larik's turn (by you, or by something else). "
                "Taking the turn back would overwrite them:\n"
            )
            for name in self.conflicts:
                body.append("  • ")
                body.append(name, style="yellow")
                body.append("\n")
            others = len(self.files) - len(self.conflicts)
            if others:
                body.append(
                    (
                        f"\nThe other {count(others, 'file')} "
                        f"{'is' if others == 1 else 'are'} restored either way."
                    ),
                    style="dim",
                )
            with VerticalScroll(id="conflict-details"):
                yield Static(body)
            with Horizontal(classes="buttons"):
                yield Button("Keep my changes (k)", id="conflict-keep", variant="primary")
                yield Button("Overwrite them (o)", id="conflict-overwrite", variant="warning")
                yield Button("Cancel (Esc)", id="conflict-")

    def on_mount(self) -> None:
        self.query_one("#conflict-keep", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer((event.button.id or "conflict-").removeprefix("conflict-"))

    def action_answer(self, answer: str) -> None:
        self.dismiss(answer or None)
