"""The list of completions shown above the prompt (slash commands, ``@`` paths)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

__all__ = ["Completion", "CompletionMenu"]


@dataclass(frozen=True, slots=True)
class Completion:
    value: str  # what replaces the token being completed
    label: str  # what the menu shows
    hint: str = ""


class CompletionMenu(OptionList, can_focus=False):
    DEFAULT_CSS = """
    CompletionMenu { display: none; height: auto; max-height: 10; }
    CompletionMenu.-open { display: block; }
    """

    def __init__(self) -> None:
        super().__init__(id="completion-menu")
        self.items: list[Completion] = []
        self.start = 0  # where in the line the completed token starts
        self.end = 0

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open(self, items: list[Completion], start: int, end: int) -> None:
        self.items, self.start, self.end = items, start, end
        self.clear_options()
        width = max((len(c.label) for c in items), default=0)
        for c in items:
            label = Text(c.label.ljust(width), style="bold")
            if c.hint:
                label.append(f"  {c.hint}", style="dim")
            self.add_option(Option(label))
        self.highlighted = 0 if items else None
        self.set_class(bool(items), "-open")

    def close(self) -> None:
        self.items = []
        self.remove_class("-open")

    def move(self, delta: int) -> None:
        if not self.items:
            return
        cur = self.highlighted or 0
        self.highlighted = (cur + delta) % len(self.items)

    def current(self) -> Completion | None:
        if not self.is_open or self.highlighted is None or not self.items:
            return None
        return self.items[self.highlighted]
