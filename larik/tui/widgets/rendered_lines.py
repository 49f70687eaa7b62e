"""A leaf widget that renders Rich renderables once into lines and then only paints lines.

Content is an optional one-line-or-more ``header``, then ``items`` (stable: each is rendered
once per width and kept), then an optional ``tail`` (the one part that changes, re-rendered on
every ``set_tail``). ``collapsed`` shows the header alone. Items are separated by ``gap`` blank
lines, like blocks in a document.

Being a leaf (no child widgets) matters: Textual lays out every widget of the screen on each
layout pass, so the conversation keeps to a few widgets per turn; and a change that keeps the
height the same repaints without any layout at all.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.segment import Segment
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

__all__ = ["RenderedLines"]


class RenderedLines(Widget):
    DEFAULT_CSS = "RenderedLines { height: auto; }"

    def __init__(
        self,
        *,
        gap: int = 1,
        header: RenderableType | None = None,
        collapsed: bool = False,
        classes: str | None = None,
    ) -> None:
        super().__init__(classes=classes)
        self.gap = gap
        self._header = header
        self._collapsed = collapsed
        self._items: list[RenderableType] = []
        self._tail: RenderableType | None = None
        self._width = -1
        self._header_strips: list[Strip] | None = None
        self._strips: list[Strip] = []
        self._done = 0  # items already rendered into _strips at _width
        self._tail_strips: list[Strip] | None = None
        self._height = 0

    # -- content --------------------------------------------------------------------------------
    @property
    def item_count(self) -> int:
        return len(self._items)

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
        if update:
            self._changed()

    def set_items(self, items: list[RenderableType], *, update: bool = True) -> None:
        self._items = list(items)
        self._strips, self._done = [], 0
        if update:
            self._changed()

    def set_tail(self, tail: RenderableType | None) -> None:
        self._tail = tail
        self._tail_strips = None
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

    def _render(self, renderable: RenderableType, width: int) -> list[Strip]:
        console = self.app.console
        options = console.options.update_width(width).update(highlight=False)
        segments = console.render(renderable, options)
        lines = Segment.split_and_crop_lines(segments, width, include_new_lines=False)
        return [Strip(line, width) for line in lines]

    def _ensure(self, width: int) -> None:
        width = max(1, width)
        if width != self._width:
            self._width, self._strips, self._done = width, [], 0
            self._header_strips = self._tail_strips = None
        if self._header_strips is None:
            self._header_strips = self._render(self._header, width) if self._header else []
        if not self._collapsed:
            for item in self._items[self._done :]:
                lines = self._render(item, width)
                if lines and self._strips and self.gap:
                    self._strips.extend(Strip.blank(width) for _ in range(self.gap))
                self._strips.extend(lines)
            self._done = len(self._items)
            if self._tail_strips is None:
                self._tail_strips = self._render(self._tail, width) if self._tail else []
        self._height = self._count()

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
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(y)) is not None:
            line = self._highlight(line, *span)
        return line.apply_offsets(0, y)

    # -- selecting text with the mouse (and copying it) ---------------------------------------
    def _highlight(self, line: Strip, start: int, end: int) -> Strip:
        end = line.cell_length if end == -1 else end
        style = self.screen.get_component_rich_style("screen--selection")
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
