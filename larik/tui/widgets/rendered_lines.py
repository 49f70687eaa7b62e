"""A leaf widget that renders Rich renderables once into lines and then only paints lines.

Content is an optional one-line-or-more ``header``, then ``items`` (stable: each is rendered
once per width and kept), then an optional ``tail`` (the one part that changes, re-rendered on
every ``set_tail``). ``collapsed`` shows the header alone. Items are separated by ``gap`` blank
lines, like blocks in a document.

A ``lazy`` widget (the conversation's archive) does not render everything before it can be
laid out: items ``prepend``-ed to it, and all of them after a change of width, are rendered
newest first, in slices of ``SLICE`` seconds on idle, their lines put on top of what is shown
every ``FLUSH`` seconds (each time is a layout of the screen: one a slice cost several times
the slice itself). While the view holding it is scrolled away from its end, it is scrolled by
the lines added above, so what the user reads stays put.

Being a leaf (no child widgets) matters: Textual lays out every widget of the screen on each
layout pass, so the conversation keeps to a few widgets per turn; and a change that keeps the
height the same repaints without any layout at all.
"""

from __future__ import annotations

import time

from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from ..gcpolicy import freeze_young

__all__ = ["SLICE", "RenderedLines"]

SLICE = 0.010  # seconds of rendering per idle slice (lazy widgets)
FLUSH = 0.25  # seconds between putting the older lines rendered since on screen (lazy widgets)


class RenderedLines(Widget):
    DEFAULT_CSS = "RenderedLines { height: auto; }"

    def __init__(
        self,
        *,
        gap: int = 1,
        header: RenderableType | None = None,
        collapsed: bool = False,
        classes: str | None = None,
        lazy: bool = False,
    ) -> None:
        super().__init__(classes=classes)
        self.gap = gap
        self.lazy = lazy
        self._header = header
        self._collapsed = collapsed
        self._items: list[RenderableType] = []
        self._tail: RenderableType | None = None
        self._width = -1
        self._header_strips: list[Strip] | None = None
        self._strips: list[Strip] = []
        self._lo = 0  # _strips holds items[_lo:_done] rendered at _width; items[:_lo] wait
        self._done = 0
        self._older: list[Strip] = []  # rendered from items[_lo:_lo + _older_items], not shown
        self._older_items = 0
        self._flushed = 0.0  # when the last rendered older lines were put on screen
        self._slicing = False
        self._tail_strips: list[Strip] | None = None
        self._height = 0
        self._counts: list[int] = []  # each item's lines at _width (-1: not rendered yet)
        self.marks: dict[int, list[tuple[int, int]]] = {}  # line -> cell spans shown marked

    # -- content --------------------------------------------------------------------------------
    @property
    def item_count(self) -> int:
        return len(self._items)

    @property
    def pending(self) -> int:
        """Items not shown yet (a lazy widget renders older items in idle slices)."""
        return self._lo + self._older_items

    @property
    def collapsed(self) -> bool:
        return self._collapsed

    @collapsed.setter
    def collapsed(self, value: bool) -> None:
        if value != self._collapsed:
            self._collapsed = value
            self._changed()

    def set_header(self, header: RenderableType | None) -> None:
        self._header = header
        self._header_strips = None
        self._changed()

    def append(self, renderable: RenderableType, *, update: bool = True) -> None:
        self._items.append(renderable)
        self._counts.append(-1)
        if update:
            self._changed()

    def prepend(self, items: list[RenderableType], *, update: bool = True) -> None:
        """Put ``items`` before the current ones (a lazy widget renders them in idle slices)."""
        self._items[0:0] = items
        self._counts[0:0] = [-1] * len(items)
        self._lo += len(items)
        self._done += len(items)
        if update:
            self._changed()

    def set_items(self, items: list[RenderableType], *, update: bool = True) -> None:
        self._items = list(items)
        self._counts = [-1] * len(self._items)
        self.marks = {}
        self._strips, self._lo, self._done = [], 0, 0
        self._older, self._older_items = [], 0
        if update:
            self._changed()

    def set_tail(self, tail: RenderableType | None) -> None:
        self._tail = tail
        self._tail_strips = None
        self._changed()

    def restyle(self) -> None:
        """Render everything again (the theme changed: what Rich drew holds the old colours),
        as after a change of width; a lazy widget does it newest first, on idle."""
        self._width = -1
        self._changed()

    def _changed(self) -> None:
        if not self.is_mounted:
            return
        width = self._content_width()
        if width <= 0:
            self.refresh(layout=True)
            return
        before = self._height
        self._ensure(width)
        self.refresh(layout=self._height != before)

    # -- rendering ----------------------------------------------------------------------------
    def _content_width(self) -> int:
        return self.content_region.width or self.size.width

    def _render_strips(self, renderable: RenderableType, width: int) -> list[Strip]:
        console = self.app.console
        options = console.options.update_width(width).update(highlight=False)
        segments = console.render(renderable, options)
        lines = Segment.split_and_crop_lines(segments, width, include_new_lines=False)
        return [Strip(line, width) for line in lines]

    def _ensure(self, width: int) -> None:
        width = max(1, width)
        if width != self._width:
            self._width, self._strips = width, []
            self._counts, self.marks = [-1] * len(self._items), {}
            self._older, self._older_items = [], 0
            self._lo = self._done = len(self._items) if self.lazy else 0
            self._header_strips = self._tail_strips = None
        if self._header_strips is None:
            self._header_strips = self._render_strips(self._header, width) if self._header else []
        if not self._collapsed:
            for i in range(self._done, len(self._items)):
                lines = self._render_strips(self._items[i], width)
                self._counts[i] = len(lines)
                if lines and self._strips and self.gap:
                    self._strips.extend(Strip.blank(width) for _ in range(self.gap))
                self._strips.extend(lines)
            self._done = len(self._items)
            if self._lo and not self.lazy:
                self._strips[0:0] = self._render_older(None)
            elif self._lo:
                self._schedule_older()
            if self._tail_strips is None:
                self._tail_strips = self._render_strips(self._tail, width) if self._tail else []
        self._height = self._count()

    def _render_older(self, deadline: float | None, stop: int = 0) -> list[Strip]:
        """Render the items before ``_lo``, newest first, until ``deadline`` (None: all of
        them down to item ``stop``). Returns their lines, which go above the older lines
        waiting and what is shown."""
        width = self._width
        parts: list[list[Strip]] = []
        below = bool(self._strips or self._older)
        lo = self._lo
        while lo > stop:
            lo -= 1
            lines = self._render_strips(self._items[lo], width)
            self._counts[lo] = len(lines)
            if lines:
                if below and self.gap:
                    lines.extend(Strip.blank(width) for _ in range(self.gap))
                parts.append(lines)
                below = True
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self._lo = lo
        return [line for part in reversed(parts) for line in part]

    def _schedule_older(self) -> None:
        if not self._slicing and self.is_mounted:
            self._slicing = True
            self.set_timer(0.001, self._older_slice, name="render-older")

    def _older_slice(self) -> None:
        """One idle slice of a lazy widget: render older items for up to ``SLICE`` seconds;
        put what was rendered on screen when ``FLUSH`` seconds have passed, or all is done."""
        self._slicing = False
        width = self._content_width()
        if self._collapsed or width <= 0 or not self.is_mounted:
            return
        self._ensure(width)
        if not self._lo:
            self._flush_older()
            return
        lo = self._lo
        self._older[0:0] = self._render_older(time.perf_counter() + SLICE)
        self._older_items += lo - self._lo
        freeze_young()  # the lines are kept: out of the collector's sight
        if not self._lo or time.perf_counter() - self._flushed >= FLUSH:
            self._flush_older()
        if self._lo or self._older:
            self._schedule_older()

    def _flush_older(self) -> None:
        """Put the older lines rendered since the last time on top of what is shown."""
        lines, self._older, self._older_items = self._older, [], 0
        self._flushed = time.perf_counter()
        if not lines:
            return
        self._strips[0:0] = lines
        self._height = self._count()
        if self.marks:  # the marked lines moved down by as many
            self.marks = {y + len(lines): spans for y, spans in self.marks.items()}
        self._keep_view(len(lines))
        self.refresh(layout=True)

    def _keep_view(self, lines: int) -> None:
        """Lines were added on top: unless the view is held at its end, scroll it by as many,
        so what is on screen stays where it is."""
        view = self.parent
        if not isinstance(view, Widget) or not view.is_scrollable:
            return
        if view.is_anchored and not view._anchor_released:
            return  # the layout keeps an anchored view at its end
        y = view.scroll_y + lines
        view.set_reactive(Widget.scroll_y, y)
        view.set_reactive(Widget.scroll_target_y, y)

    # -- where an item is (a search's hit: larik/tui/find.py) -----------------------------------
    @property
    def line_count(self) -> int:
        """The lines shown now (the header alone when collapsed)."""
        return self._count()

    def render_down_to(self, index: int, deadline: float) -> bool:
        """Render the items a lazy widget has not yet, newest first, down to item ``index``,
        until ``deadline`` (at least one); whether they are all rendered now."""
        width = self._content_width()
        if self._collapsed or width <= 0 or not self.is_mounted:
            return True
        self._ensure(width)
        if self._lo > index:
            lo = self._lo
            self._older[0:0] = self._render_older(deadline, stop=index)
            self._older_items += lo - self._lo
        return self._lo <= index

    def reveal(self, index: int) -> tuple[int, int] | None:
        """The lines item ``index`` takes (first, past the last), as ``render_line`` counts
        them, with every item down to it rendered and shown (now, what is not yet). None: not
        shown (collapsed, or not laid out yet)."""
        if not 0 <= index < len(self._items):
            return None
        self.render_down_to(index, float("inf"))
        if self._collapsed or self._width <= 0 or self._lo > index:
            return None
        if self._older:
            self._flush_older()
        y = len(self._header_strips or [])
        for n in self._counts[self._lo : index]:
            y += n + self.gap if n > 0 else 0
        return y, y + max(0, self._counts[index])

    def line_text(self, y: int) -> str:
        """Line ``y`` as text ("" past the end)."""
        line = self._line(y)
        return line.text if line is not None else ""

    def _gap_lines(self) -> int:
        return self.gap if self._strips and self._tail_strips else 0

    def _count(self) -> int:
        head = len(self._header_strips or [])
        if self._collapsed:
            return head
        return head + len(self._strips) + self._gap_lines() + len(self._tail_strips or [])

    def _line(self, y: int) -> Strip | None:
        """Line ``y`` without building the whole list: O(1) whatever the length."""
        head = self._header_strips or []
        if y < len(head):
            return head[y]
        if self._collapsed:
            return None
        y -= len(head)
        if y < len(self._strips):
            return self._strips[y]
        y -= len(self._strips)
        gap = self._gap_lines()
        if y < gap:
            return Strip.blank(self._width)
        y -= gap
        tail = self._tail_strips or []
        return tail[y] if y < len(tail) else None

    def _lines_view(self) -> list[Strip]:
        return [line for y in range(self._count()) if (line := self._line(y)) is not None]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._ensure(width)
        return self._height

    def render_line(self, y: int) -> Strip:
        width = self._content_width()
        self._ensure(width)
        line = self._line(y) if y >= 0 else None
        if line is None:
            return Strip.blank(width, self.rich_style)
        line = line.apply_style(self.rich_style)
        for start, end in self.marks.get(y, ()):
            line = self._highlight(line, start, end, Style(reverse=True))
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(y)) is not None:
            line = self._highlight(line, *span)
        return line.apply_offsets(0, y)

    # -- selecting text with the mouse (and copying it) ---------------------------------------
    def _highlight(self, line: Strip, start: int, end: int, style: Style | None = None) -> Strip:
        end = line.cell_length if end == -1 else end
        if style is None:
            style = self.screen.get_component_rich_style("screen--selection")
            if self.screen.get_component_styles("screen--selection").color.a == 0:
                # a "transparent" foreground keeps the text's colour (Textual's own widgets do
                # so); as a rich style it came out as the selection's background: invisible text
                style = Style(bgcolor=style.bgcolor)
        left, mid, right = line.divide([start, end, line.cell_length])
        mid = Strip([Segment(t, (s + style) if s else style, c) for t, s, c in mid._segments])
        return Strip.join([left, mid, right])

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract("\n".join(self.plain_lines())), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    def on_resize(self) -> None:
        self.refresh(layout=True)

    def plain_lines(self) -> list[str]:
        """The lines as text (for tests and copying)."""
        return [s.text.rstrip() for s in self._lines_view()]
