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
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text

if TYPE_CHECKING:
    from rich.json import JSON
    from rich.markdown import Markdown

__all__ = ["CODE_THEME", "args_beside_diff", "diff_text", "markdown", "pretty_args"]

CODE_THEME = "monokai"


@functools.cache
def _markdown_class() -> type[Markdown]:
    from rich.markdown import Heading, Markdown

    class _Heading(Heading):
        LEVEL_ALIGN: ClassVar[dict[str, Any]] = dict.fromkeys(
            ("h1", "h2", "h3", "h4", "h5", "h6"), "left"
        )

    class _Markdown(Markdown):
        elements: ClassVar[dict[str, Any]] = {**Markdown.elements, "heading_open": _Heading}

    return _Markdown


def markdown(text: str) -> Markdown:
    """Markdown with highlighted code blocks and left-aligned headings."""
    return _markdown_class()(text, code_theme=CODE_THEME, hyperlinks=True)


def diff_text(diff: str) -> Text:
    """A unified diff coloured line by line: additions green, removals red, hunks cyan."""
    out = Text(no_wrap=False)
    for line in diff.splitlines(keepends=True):
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        else:
            style = "dim"
        out.append(line, style=style)
    out.rstrip()
    return out


# What a file edit's diff already shows: the file (its header) and the old and new text.
_SHOWN_BY_DIFF = frozenset({"path", "file_path", "old_string", "new_string", "content"})


def args_beside_diff(args: dict[str, Any]) -> dict[str, Any]:
    """The arguments still worth showing next to an edit's diff (``replace_all``, say): not
    the path and text the diff shows, nor other long text."""
    return {k: v for k, v in args.items() if k not in _SHOWN_BY_DIFF and not _is_bulky(v)}


def _is_bulky(value: object) -> bool:
    return isinstance(value, str) and (len(value) > 200 or "\n" in value)


def pretty_args(args: dict[str, Any]) -> JSON | Text:
    """Tool arguments as highlighted JSON (long string values kept whole), no background."""
    try:
        dumped = json.dumps(args, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return Text(repr(args))
    from rich.json import JSON

    return JSON(dumped, indent=2, ensure_ascii=False)
