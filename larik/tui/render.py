"""Rich renderables the conversation view is drawn with (Markdown, diffs, JSON arguments).

Rich's Markdown renders a whole chunk into one widget, which is far cheaper to build than
Textual's widget-per-block ``Markdown``: that is what lets a fast stream keep up.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from rich.json import JSON
from rich.markdown import Heading, Markdown
from rich.text import Text

__all__ = ["markdown", "diff_text", "pretty_args", "CODE_THEME"]

CODE_THEME = "monokai"


class _Heading(Heading):
    LEVEL_ALIGN: ClassVar[dict[str, Any]] = dict.fromkeys(
        ("h1", "h2", "h3", "h4", "h5", "h6"), "left"
    )


class _Markdown(Markdown):
    elements: ClassVar[dict[str, Any]] = {**Markdown.elements, "heading_open": _Heading}


def markdown(text: str) -> Markdown:
    """Markdown with highlighted code blocks and left-aligned headings."""
    return _Markdown(text, code_theme=CODE_THEME, hyperlinks=True)


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


def pretty_args(args: dict[str, Any]) -> JSON | Text:
    """Tool arguments as highlighted JSON (long string values kept whole), no background."""
    try:
        dumped = json.dumps(args, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return Text(repr(args))
    return JSON(dumped, indent=2, ensure_ascii=False)
