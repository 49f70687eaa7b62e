"""Vim-style editing of the prompt (``/vim``, ``[tui] vim = true``): normal and insert modes.

Normal mode: ``h j k l`` move (``k`` on the first line and ``j`` on the last walk the prompt
history, as Up and Down do), ``w b e`` by words, ``0 $`` to the line's ends; ``x`` deletes
characters, ``dd`` lines, ``dw`` to the next word, ``cw`` to the word's end and then inserts;
``u`` undoes; ``i a o A I`` go to insert mode (before, after, on a new line below, at the line's
end, at its first non-blank). A count before any of them repeats it (``3w``, ``2dd``, ``d3w``).
``:`` does nothing (there is no command line), nor does any other letter: nothing typed in
normal mode lands in the prompt. Enter still sends, Tab, arrows and Ctrl keys do what they
always do. Insert mode is the prompt as it always is, but Esc goes to normal mode (in normal
mode Esc interrupts a running turn, as without vim).

:class:`Vim` acts on a ``TextArea`` through its public editing API (``cursor_location``,
``move_cursor``, ``delete``, ``insert``, ``undo``) so its edits are the widget's own (undo,
``Changed``, completion); imported only when vim mode is first turned on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual import events
    from textual.widgets import TextArea

__all__ = ["INSERT", "NORMAL", "Vim"]

NORMAL, INSERT = "normal", "insert"
Location = tuple[int, int]


def _kind(ch: str) -> int:
    """0: blank (newline too), 1: a word character, 2: any other (punctuation): vim's words."""
    if ch.isspace():
        return 0
    return 1 if ch.isalnum() or ch == "_" else 2


#: The largest count a key takes (``99999999u`` was a hundred million undos: the TUI froze).
MAX_COUNT = 9999


class Vim:
    def __init__(
        self,
        area: TextArea,
        on_mode: Callable[[str], None],
        history: Callable[[int], None],
    ) -> None:
        self.area = area
        self.mode = INSERT
        self._on_mode = on_mode  # the status line shows the mode
        self._history = history  # k on the first line, j on the last: the prompt history
        self._count = ""
        self._operator = ""  # "d" or "c" waiting for its motion
        self._op_count = 1

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        self._count, self._operator = "", ""
        self._on_mode(mode)

    # -- keys ---------------------------------------------------------------------------------
    def key(self, event: events.Key) -> bool:
        """Handle ``event`` if it is vim's; False leaves it to the prompt (insert mode's
        typing, Enter, Tab, arrows, Ctrl keys)."""
        if self.mode == INSERT:
            if event.key == "escape":
                self.set_mode(NORMAL)
                self._move(self._clamp(self._at(), normal=True))
                return True
            return False
        ch = event.character if event.is_printable else None
        if ch is None:
            if event.key == "escape" and (self._count or self._operator):
                self._count, self._operator = "", ""
                return True
            return False  # Enter, Tab, arrows, Esc, Ctrl keys: the prompt's own
        self._normal(ch)
        return True

    def _normal(self, ch: str) -> None:
        if ch.isdigit() and (ch != "0" or self._count):
            self._count += ch
            return
        count = min(int(self._count or "1"), MAX_COUNT)
        self._count = ""
        if self._operator:
            op, self._operator = self._operator, ""
            self._apply(op, ch, min(count * self._op_count, MAX_COUNT))
            return
        if ch in "dc":
            self._operator, self._op_count = ch, count
            return
        motion = self._motion(ch, count)
        if motion is not None:
            self._move(self._clamp(motion, normal=True))
            return
        action = self._ACTIONS.get(ch)
        if action is not None:
            action(self, count)

    def _apply(self, op: str, ch: str, count: int) -> None:
        """``d``/``c`` with its motion: ``dd`` (lines), ``dw``, ``cw`` (to the word's end,
        as vim does), ``d$``, ``d0``, ``dl``, …; an unknown motion cancels the operator."""
        if ch == op:
            self._delete_lines(count, change=op == "c")
            return
        start = self._at()
        end: Location | None
        if op == "c" and ch == "w":
            end = self._after(self._word_end(start, count, inclusive_start=True))
        elif ch == "w":
            end = self._word_start(start, count, stop_at_line=True)
        elif ch == "e":
            end = self._after(self._word_end(start, count))
        else:
            end = self._motion(ch, count)
            if end is None:
                return
            if ch == "$":
                end = (end[0], len(self._line(end[0])))
        lo, hi = sorted((start, end))
        if lo != hi:
            self.area.delete(lo, hi)
        self._move(lo)
        if op == "c":
            self.set_mode(INSERT)
        else:
            self._move(self._clamp(lo, normal=True))

    # -- motions ------------------------------------------------------------------------------
    def _motion(self, ch: str, count: int) -> Location | None:
        row, col = self._at()
        if ch == "h":
            return row, max(0, col - count)
        if ch == "l":
            return row, col + count
        if ch in "jk":
            step = count if ch == "j" else -count
            target = row + step
            if not 0 <= target < self.area.document.line_count:
                self._history(1 if ch == "j" else -1)
                return None
            return target, col
        if ch == "0":
            return row, 0
        if ch == "$":
            return row, max(0, len(self._line(row)) - 1)
        if ch == "w":
            return self._word_start((row, col), count)
        if ch == "b":
            return self._word_back((row, col), count)
        if ch == "e":
            return self._word_end((row, col), count)
        return None

    def _word_start(self, at: Location, count: int, stop_at_line: bool = False) -> Location:
        text, i = self.area.text, self._offset(at)
        line_end = text.find("\n", i)
        for _ in range(count):
            if i >= len(text):
                break
            k = _kind(text[i])
            while i < len(text) and k and _kind(text[i]) == k:
                i += 1
            while i < len(text) and _kind(text[i]) == 0:
                if stop_at_line and text[i] == "\n" and line_end != -1 and i >= line_end:
                    return self._location(line_end)  # dw never joins lines
                i += 1
        return self._location(i)

    def _word_end(self, at: Location, count: int, inclusive_start: bool = False) -> Location:
        text, i = self.area.text, self._offset(at)
        for n in range(count):
            start_on_word = inclusive_start and n == 0 and i < len(text) and _kind(text[i])
            if not start_on_word:
                i += 1
            while i < len(text) and _kind(text[i]) == 0:
                i += 1
            if i >= len(text):
                return self._location(max(0, len(text) - 1))
            k = _kind(text[i])
            while i + 1 < len(text) and _kind(text[i + 1]) == k:
                i += 1
        return self._location(i)

    def _word_back(self, at: Location, count: int) -> Location:
        text, i = self.area.text, self._offset(at)
        for _ in range(count):
            i -= 1
            while i > 0 and _kind(text[i]) == 0:
                i -= 1
            if i <= 0:
                return (0, 0)
            k = _kind(text[i])
            while i > 0 and _kind(text[i - 1]) == k:
                i -= 1
        return self._location(i)

    # -- actions ------------------------------------------------------------------------------
    def _x(self, count: int) -> None:
        row, col = self._at()
        end = min(len(self._line(row)), col + count)
        if end > col:
            self.area.delete((row, col), (row, end))
        self._move(self._clamp((row, col), normal=True))

    def _delete_lines(self, count: int, change: bool = False) -> None:
        row = self._at()[0]
        lines = self.area.document.line_count
        last = min(lines - 1, row + count - 1)
        if change:  # cc: the lines emptied, one left to type on
            self.area.delete((row, 0), (last, len(self._line(last))))
            self._move((row, 0))
            self.set_mode(INSERT)
            return
        if last < lines - 1:
            self.area.delete((row, 0), (last + 1, 0))
        elif row > 0:
            self.area.delete((row - 1, len(self._line(row - 1))), (last, len(self._line(last))))
            row -= 1
        else:
            self.area.delete((0, 0), (last, len(self._line(last))))
        self._move((row, self._first_non_blank(row)))

    def _insert_before(self, count: int) -> None:
        self.set_mode(INSERT)

    def _append(self, count: int) -> None:
        row, col = self._at()
        self.set_mode(INSERT)
        self._move((row, min(len(self._line(row)), col + 1)))

    def _append_end(self, count: int) -> None:
        row = self._at()[0]
        self.set_mode(INSERT)
        self._move((row, len(self._line(row))))

    def _insert_start(self, count: int) -> None:
        row = self._at()[0]
        self.set_mode(INSERT)
        self._move((row, self._first_non_blank(row)))

    def _open_below(self, count: int) -> None:
        row = self._at()[0]
        end = (row, len(self._line(row)))
        self.area.insert("\n", end)
        self.set_mode(INSERT)
        self._move((row + 1, 0))

    def _undo(self, count: int) -> None:
        for _ in range(count):
            self.area.undo()
        self._move(self._clamp(self._at(), normal=True))

    def _nothing(self, count: int) -> None:
        """``:`` — no command line."""

    _ACTIONS: dict[str, Callable[[Vim, int], None]] = {
        "x": _x,
        "i": _insert_before,
        "a": _append,
        "A": _append_end,
        "I": _insert_start,
        "o": _open_below,
        "u": _undo,
        ":": _nothing,
    }

    # -- positions ----------------------------------------------------------------------------
    def _at(self) -> Location:
        return self.area.cursor_location

    def _move(self, where: Location) -> None:
        self.area.move_cursor(where)

    def _line(self, row: int) -> str:
        return self.area.document.get_line(row)

    def _first_non_blank(self, row: int) -> int:
        line = self._line(row)
        return len(line) - len(line.lstrip())

    def _clamp(self, where: Location, normal: bool) -> Location:
        """``where`` inside the text; in normal mode the cursor sits on a character (not past
        the line's last one) as vim's does."""
        row = max(0, min(where[0], self.area.document.line_count - 1))
        width = len(self._line(row))
        return row, max(0, min(where[1], width - 1 if normal and width else width))

    def _after(self, where: Location) -> Location:
        return self._location(self._offset(where) + 1)

    def _offset(self, where: Location) -> int:
        row, col = where
        lines = self.area.text.split("\n")
        return sum(len(line) + 1 for line in lines[:row]) + col

    def _location(self, offset: int) -> Location:
        text = self.area.text
        offset = max(0, min(offset, len(text)))
        row = text.count("\n", 0, offset)
        start = text.rfind("\n", 0, offset) + 1
        return row, offset - start
