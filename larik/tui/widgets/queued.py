"""The prompts typed during a turn (type-ahead): shown above the prompt, sent when it ends.

The widget holds them (``prompts``); the chat screen adds to it, takes the next one when a turn
ends, and takes them all back into the prompt on an interrupt (Esc).
"""

from __future__ import annotations

from textual.widgets import Static

__all__ = ["QueuedPrompts"]


class QueuedPrompts(Static):
    def __init__(self) -> None:
        super().__init__("", id="queued")
        self.prompts: list[str] = []

    def add(self, text: str) -> None:
        self.prompts.append(text)
        self._show()

    def next(self) -> str | None:
        """The next prompt to send, if any."""
        text = self.prompts.pop(0) if self.prompts else None
        self._show()
        return text

    def take_all(self, typed: str = "") -> str:
        """Every prompt queued (and ``typed``, what the prompt holds), as one text to edit."""
        text = "\n".join([*self.prompts, typed] if typed.strip() else self.prompts)
        self.clear()
        return text

    def clear(self) -> None:
        self.prompts.clear()
        self._show()

    def _show(self) -> None:
        lines = [f"⏵ queued: {' '.join(t.split())}" for t in self.prompts]
        if lines:
            lines[-1] += "  (sent when the turn ends; Esc interrupts and puts it back here)"
        self.update("\n".join(lines))
        self.set_class(bool(lines), "-on")
