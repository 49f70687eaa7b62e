"""Searching the conversation: Ctrl+F or ``/find [TEXT]`` (the bar: ``widgets/find_bar.py``).

What is searched is what the conversation holds, not only what is on screen: each prompt,
reply, thinking block, notice and tool call — its tool, arguments and whole output, a folded
card's and a cut one's too — whether it is still a widget or folded into the archive (an item
of a resumed session's history, or a widget folded away: ``ConversationView.archived``).

The text is matched literally (no pattern: ``.*`` and ``[bold]`` are just characters), and
case-insensitively unless it has a capital letter (smart case, as in vim and ripgrep). A hit is
an item holding the text; hits are counted from the end of the conversation (1 is the newest,
where you are), and moving to one scrolls it into view with every occurrence on its lines
marked: a folded tool card or thinking block whose body holds it is opened (and folded again
when you move on), a cut output is shown whole, an archived item is drawn first if it was not
yet. A hit that cannot be marked where it is (an archived card shows its one line) is quoted in
the bar.

Imported on the first Ctrl+F or ``/find``: nothing of it before the first frame.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Static

from .widgets.rendered_lines import RenderedLines
from .widgets.thinking import ThinkingBlock
from .widgets.tool_card import ToolCard, call_summary, tool_text
from .widgets.user_turn import UserTurn

if TYPE_CHECKING:
    from .widgets.conversation import ConversationView, HistoryItem

__all__ = ["Finder", "Hit", "item_text", "matcher", "snippet"]

SNIPPET = 60  # characters of a hit quoted in the bar
SLICE = 0.02  # seconds of drawing older history between frames, to reach an archived hit


def matcher(query: str) -> tuple[str, bool]:
    """The text to look for and whether case matters (smart case: a capital letter)."""
    return query, any(c.isupper() for c in query)


def _find(text: str, needle: str, case: bool, start: int = 0) -> int:
    return (text if case else text.lower()).find(needle if case else needle.lower(), start)


def item_text(it: HistoryItem) -> str:
    """What an item of history holds, as the widget it would be (``search_text``) does."""
    if it.kind == "tool":
        summary = call_summary(it.name, it.args or {})
        return tool_text(it.name, summary, it.args, it.result or "", it.data)
    return it.text


def snippet(text: str, at: int, width: int = SNIPPET) -> str:
    """The line of ``text`` around offset ``at``, cut to about ``width`` characters."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = text[start : end if end >= 0 else len(text)]
    at -= start
    lo = max(0, min(at - width // 3, len(line) - width))
    out = " ".join(line[lo : lo + width].split())
    return ("…" if lo else "") + out + ("…" if lo + width < len(line) else "")


@dataclass(slots=True)
class Hit:
    """An item holding the text: a widget of the conversation, or the archive's item ``i``."""

    where: Widget | int
    text: str
    at: int  # where the first occurrence starts in ``text``


class Finder:
    """The hits of one query in ``conv``, the one shown, and what showing it changed."""

    def __init__(self, conv: ConversationView) -> None:
        self.conv = conv
        self.query = ""
        self.case = False
        self.hits: list[Hit] = []
        self.index = -1  # into hits (oldest first); -1: none shown
        self.took = 0.0  # seconds the last search took
        self._opened: Widget | None = None  # a card or block the search opened
        self._marked: list[Widget] = []
        self._shown = 0  # a count of moves: a slow one (drawing history) stops when outrun

    # -- searching ------------------------------------------------------------------------------
    def search(self, query: str) -> int:
        """Find ``query``'s hits (none for an empty one); how many there are."""
        started = time.perf_counter()
        self.query, self.case = matcher(query)
        self.hits, self.index = [], -1
        if query:
            for where, text in self._sources():
                at = _find(text, self.query, self.case)
                if at >= 0:
                    self.hits.append(Hit(where, text, at))
        self.took = time.perf_counter() - started
        return len(self.hits)

    def _sources(self) -> list[tuple[Widget | int, str]]:
        conv = self.conv
        count = min(len(conv.archived), conv.archive.item_count)
        out: list[tuple[Widget | int, str]] = [
            (i, s if isinstance(s, str) else item_text(s))
            for i, s in enumerate(conv.archived[:count])
        ]
        out += [(w, str(getattr(w, "search_text", ""))) for w in conv.items]
        return out

    @property
    def number(self) -> int:
        """The shown hit's number, counted from the newest (1)."""
        return len(self.hits) - self.index if self.index >= 0 else 0

    def step(self, older: bool) -> Hit | None:
        """The next hit up the conversation (``older``) or down it, wrapping at the ends; the
        first move goes to the newest."""
        if not self.hits:
            return None
        if self.index < 0:
            self.index = len(self.hits) - 1
        else:
            self.index = (self.index + (-1 if older else 1)) % len(self.hits)
        return self.hits[self.index]

    # -- showing a hit ----------------------------------------------------------------------------
    async def show(self, hit: Hit) -> bool:
        """Scroll ``hit`` into view and mark it; False when what it holds is not on its lines
        (the bar quotes it then)."""
        self._shown += 1
        move = self._shown
        self.unmark(keep=hit.where)
        if isinstance(hit.where, int):
            archive = self.conv.archive
            while not archive.render_down_to(hit.where, time.perf_counter() + SLICE):
                await asyncio.sleep(0)  # a frame, a key: drawing older history is no freeze
                if move != self._shown:
                    return True
            span = archive.reveal(hit.where)
            if span is None:
                return False
            found = self._mark(archive, span)
            self._scroll(archive, found if found is not None else span[0])
            return found is not None
        widget = hit.where
        self._open(widget, hit)
        if not isinstance(widget, RenderedLines):
            found = self._mark_text(widget)
            self.conv.scroll_to_widget(widget, animate=False, center=True)
            return found
        line = self._mark(widget, (0, widget.line_count))
        if line is None and isinstance(widget, ToolCard) and widget.expanded and widget.cut:
            widget.action_toggle()  # not in what the card shows of its output: all of it
            line = self._mark(widget, (0, widget.line_count))
        self._scroll(widget, line or 0)
        return line is not None

    def _open(self, widget: Widget, hit: Hit) -> None:
        """Open what folds ``hit``'s text away: a card, a thinking block, a long prompt."""
        if isinstance(widget, ToolCard):
            line = f"{widget.tool_name}  {widget.summary}"
            if hit.at < len(line) or not widget.collapsed:
                return  # on the card's own line, or open already
            widget.action_toggle()
        elif isinstance(widget, ThinkingBlock) and widget.collapsed:
            widget.action_toggle()
        elif isinstance(widget, UserTurn) and UserTurn.long(widget.prompt) and not widget.full:
            widget.action_toggle()
        else:
            return
        self._opened = widget

    def _mark(self, widget: RenderedLines, span: tuple[int, int]) -> int | None:
        """Mark each occurrence on ``widget``'s lines ``span``; the first line holding one."""
        needle = self.query if self.case else self.query.lower()
        first = None
        for y in range(*span):
            text = widget.line_text(y)
            hay = text if self.case else text.lower()
            spans, at = [], hay.find(needle)
            while at >= 0:
                start = cell_len(text[:at])
                spans.append((start, start + cell_len(text[at : at + len(needle)])))
                at = hay.find(needle, at + len(needle))
            if spans:
                widget.marks[y] = spans
                first = y if first is None else first
        if first is not None:
            self._marked.append(widget)
            widget.refresh()
        return first

    def _mark_text(self, widget: Widget) -> bool:
        """A prompt or a notice: its text with each occurrence marked, when it is plain text."""
        body = getattr(widget, "body", None)
        if not isinstance(body, Text) or not isinstance(widget, Static):
            widget.add_class("-found")
        else:
            marked = body.copy()
            flags = 0 if self.case else re.IGNORECASE
            marked.highlight_regex(re.compile(re.escape(self.query), flags), "reverse")
            widget.update(marked)
        self._marked.append(widget)
        return isinstance(body, Text)

    def _scroll(self, widget: Widget, y: int) -> None:
        """Line ``y`` of ``widget`` to the middle of the view, once it is laid out again."""

        def scroll() -> None:
            if widget.is_mounted:
                region = widget.virtual_region
                row = region.y + widget.styles.gutter.top + y
                where = Region(region.x, row, region.width, 1)
                self.conv.scroll_to_region(where, animate=False, center=True)

        self.conv.call_after_refresh(scroll)

    def unmark(self, keep: Widget | int | None = None) -> None:
        """Take the marks away, and fold again what the search opened (unless it is
        ``keep``)."""
        for widget in self._marked:
            if isinstance(widget, RenderedLines):
                widget.marks = {}
                widget.refresh()
            elif isinstance(widget, Static) and isinstance(getattr(widget, "body", None), Text):
                widget.update(widget.body)  # type: ignore[attr-defined]
            widget.remove_class("-found")
        self._marked.clear()
        opened, self._opened = self._opened, None
        if opened is keep:
            self._opened = opened
        elif opened is not None and opened.is_mounted:
            if isinstance(opened, ToolCard):
                while opened.expanded:  # open, then whole: back to its one line
                    opened.action_toggle()
            elif isinstance(opened, ThinkingBlock | UserTurn):
                opened.action_toggle()

    def close(self) -> None:
        """The search ends: the marks go; what it opened for the last hit stays open."""
        self._shown += 1
        self._opened = None
        self.unmark()
