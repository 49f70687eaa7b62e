"""A widget that renders Rich renderables once into lines and only paints those lines after.

Appending a renderable renders just that renderable; its lines are kept until the width
changes. Layout asks only for the line count, so a long reply costs nothing per frame once it
has been rendered. Items are separated by ``gap`` blank lines, like blocks in a document.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.segment import Segment
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

__all__ = ["RenderedLines"]


class RenderedLines(Widget):
    DEFAULT_CSS = "RenderedLines { height: auto; }"

    def __init__(self, *, gap: int = 1, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.gap = gap
        self._items: list[RenderableType] = []
        self._strips: list[Strip] = []
        self._width = -1
        self._done = 0  # items already rendered into _strips at _width

    @property
    def item_count(self) -> int:
        return len(self._items)

    def append(self, renderable: RenderableType) -> None:
        self._items.append(renderable)
        self.refresh(layout=True)

    def _ensure(self, width: int) -> None:
        width = max(1, width)
        if width != self._width:
            self._width, self._strips, self._done = width, [], 0
        if self._done == len(self._items):
            return
        console = self.app.console
        options = console.options.update_width(width).update(highlight=False)
        for item in self._items[self._done :]:
            segments = console.render(item, options)
            lines = list(Segment.split_and_crop_lines(segments, width, include_new_lines=False))
            if not lines:
                continue
            if self._strips and self.gap:
                self._strips.extend(Strip.blank(width) for _ in range(self.gap))
            self._strips.extend(Strip(line, width) for line in lines)
        self._done = len(self._items)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._ensure(width)
        return len(self._strips)

    def render_line(self, y: int) -> Strip:
        width = self.content_region.width or self.size.width
        self._ensure(width)
        if 0 <= y < len(self._strips):
            return self._strips[y].apply_style(self.rich_style)
        return Strip.blank(width, self.rich_style)

    def on_resize(self) -> None:
        self.refresh(layout=True)
