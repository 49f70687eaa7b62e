"""Rich renderables the conversation view is drawn with (Markdown, diffs, JSON arguments).

Rich's Markdown renders a whole chunk into one widget, which is far cheaper to build than
Textual's widget-per-block ``Markdown``: that is what lets a fast stream keep up.

``rich.markdown`` (markdown-it, pygments through ``rich.syntax``) and ``rich.json`` are imported
on first use, not with this module: the first frame draws neither (the app imports them in its
warm-up thread once the agent is ready).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rich.style import Style
from rich.text import Text

from ..terminal_text import TABLE

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.json import JSON
    from rich.markdown import Markdown

__all__ = [
    "CODE_THEME",
    "Palette",
    "args_beside_diff",
    "args_beside_header",
    "diff_text",
    "hanging",
    "markdown",
    "pretty_args",
    "terminal_safe",
]

CODE_THEME = "monokai"


@dataclass(frozen=True, slots=True)
class Palette:
    """What Rich draws in the theme's colours: diff lines and the Pygments style of code. The
    app sets :data:`PALETTE` when the theme changes (``larik/tui/looks.py``) and redraws;
    renderables read it when they are rendered, not when they are made."""

    added: Style = Style(color="#6BCB77")
    removed: Style = Style(color="#E06C75")
    hunk: Style = Style(color="#56B6C2")
    code: str = CODE_THEME


PALETTE = [Palette()]  # the one in use (a list: set in place, read at render time)


def _keep_escapes_out() -> None:
    """No text drawn in the TUI carries a control character to the terminal but tab and newline,
    nor a bidi control or a zero-width character (:data:`larik.terminal_text.TABLE`: they show
    as U+FFFD and as ``\u202e``): Rich and Textual drop a few (BEL, BS, VT, FF, CR) from every
    ``Text`` and ``Content``; this widens their tables in place (their stripping functions take
    them as default arguments; Larik draws nothing meant to carry a raw escape in its text:
    colours and links are styles, written by the libraries' own code)."""
    from rich import control
    from textual import content

    for table in (control._CONTROL_STRIP_TRANSLATE, content._CONTROL_STRIP_TRANSLATE):
        table.update(TABLE)  # type: ignore[arg-type]


_keep_escapes_out()  # on import: every widget that draws text imports this module


@functools.cache
def _markdown_class() -> type[Markdown]:
    from rich.markdown import Heading, Markdown

    class _Heading(Heading):
        LEVEL_ALIGN: ClassVar[dict[str, Any]] = dict.fromkeys(
            ("h1", "h2", "h3", "h4", "h5", "h6"), "left"
        )

    class _Markdown(Markdown):
        elements: ClassVar[dict[str, Any]] = {**Markdown.elements, "heading_open": _Heading}

        def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
            self.code_theme = PALETTE[0].code  # the theme's, when drawn (a theme change redraws)
            yield from super().__rich_console__(console, options)

    return _Markdown


def markdown(text: str) -> Markdown:
    """Markdown with highlighted code blocks and left-aligned headings."""
    return _markdown_class()(text, code_theme=CODE_THEME, hyperlinks=True)


def diff_text(diff: str) -> Diff:
    """A unified diff coloured line by line in the theme's colours (:data:`PALETTE`, read when
    it is drawn): additions, removals, hunk headers; file headers bold, context dim."""
    return Diff(diff)


class Diff:
    """A unified diff as a renderable whose colours are the theme's at the time it is drawn."""

    def __init__(self, diff: str) -> None:
        self.diff = diff

    def text(self) -> Text:
        p = PALETTE[0]
        out = Text(no_wrap=False)
        for line in self.diff.splitlines(keepends=True):
            if line.startswith(("+++", "---")):
                style: Style | str = "bold"
            elif line.startswith("+"):
                style = p.added
            elif line.startswith("-"):
                style = p.removed
            elif line.startswith("@@"):
                style = p.hunk
            else:
                style = "dim"
            out.append(line, style=style)
        out.rstrip()
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.text()


# What a file edit's diff already shows: the file (its header) and the old and new text.
_SHOWN_BY_DIFF = frozenset({"path", "file_path", "old_string", "new_string", "content"})


def args_beside_diff(args: dict[str, Any]) -> dict[str, Any]:
    """The arguments still worth showing next to an edit's diff (``replace_all``, say): not
    the path and text the diff shows, nor other long text."""
    return {k: v for k, v in args.items() if k not in _SHOWN_BY_DIFF and not _is_bulky(v)}


def args_beside_header(args: dict[str, Any], header: str) -> dict[str, Any]:
    """The arguments a card's body still has to show: not a text the header already shows
    whole (bash's command, read_file's path), which the body repeated as ``{"command": …}``."""
    return {
        k: v
        for k, v in args.items()
        if not (isinstance(v, str) and v and not _is_bulky(v) and " ".join(v.split()) in header)
    }


_BULLET = re.compile(r"^(\s*(?:• |- |\* |\d{1,2}\. ))")


class _Hanging:
    """Lines of a Text, each bullet line wrapped under its own text rather than under the
    bullet (a long trust item or command line read as a new paragraph at column 0)."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        for line in self.text.split("\n", allow_blank=True):
            m = _BULLET.match(line.plain)
            lead = len(m.group(1)) if m else 0
            if not m or lead >= width // 2:
                yield from line.wrap(console, width)
                continue
            for i, piece in enumerate(line[lead:].wrap(console, width - lead)):
                head = line[:lead] if i == 0 else Text(" " * lead)
                yield Text.assemble(head, piece)


def hanging(text: Text) -> Text | _Hanging:
    """``text`` drawn with a hanging indent under each bullet (``•``, ``-``, ``1.``)."""
    if not any(_BULLET.match(line) for line in text.plain.split("\n")):
        return text
    return _Hanging(text)


def _is_bulky(value: object) -> bool:
    return isinstance(value, str) and (len(value) > 200 or "\n" in value)


def pretty_args(args: dict[str, Any]) -> JSON | Text:
    """Tool arguments as highlighted JSON, no background. Long string values are kept whole
    and wrapped: Rich's JSON does not wrap (it crops at the width), and a permission dialog
    must show every character of what it asks about."""
    try:
        dumped = json.dumps(args, indent=2, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):
        return Text(repr(args))
    from rich.json import JSON

    shown = JSON(dumped, indent=2, ensure_ascii=False)
    shown.text.no_wrap, shown.text.overflow = False, "fold"
    return shown


# Escape sequences a program writes to a terminal: CSI (colours, cursor moves, clearing), OSC
# (titles, hyperlinks, the clipboard), DCS/SOS/PM/APC strings, and the two-character ones.
_ESCAPES = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|[ -/]*[0-~]?)|\x9b[0-?]*[ -/]*[@-~]?"
)
# every other control character (tab and newline kept) becomes one visible mark, a bidi or
# zero-width one its escape (terminal_text); carriage returns are handled line by line
_CONTROLS = {c: v for c, v in TABLE.items() if c != 0x0D}


def terminal_safe(text: str, line_limit: int = 0, *, keep_start: bool = False) -> str:
    """What a program printed, as text that is safe to draw inside the TUI: escape sequences
    removed (none reaches the terminal to move the cursor, retitle or recolour it), a line
    rewritten with carriage returns shown as its last write (a progress bar's last state), any
    other control character shown as U+FFFD, a bidi or zero-width one as its escape
    (``\u202e``). ``line_limit`` > 0 keeps only the last that many
    characters of a longer line (after a "…"), so output without newlines stays a few rows;
    ``keep_start`` keeps its first ones instead (before a "…")."""
    text = _ESCAPES.sub("", text).translate(_CONTROLS)
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if "\r" in line:
            line = next((p for p in reversed(line.split("\r")) if p), "")
        if 0 < line_limit < len(line):
            cut = line_limit - 1
            line = line[:cut] + "…" if keep_start else "…" + line[len(line) - cut :]
        lines[i] = line
    return "\n".join(lines)
