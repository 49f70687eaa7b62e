"""Where a growing Markdown text can be cut so the part before the cut never changes again.

The streaming view freezes every finished top-level block and re-renders only the block that
is still growing. ``finished_prefix(text)`` returns the length of the longest prefix made of
finished blocks: a cut is made

* after a blank line outside a code fence, once the next line has begun with a character that
  is not a space (an indented line may continue a list item or be indented code), and
* right after a fence that opened at column 0 has closed.

The text after the cut always starts a new block, so rendering the two parts separately looks
the same as rendering the whole (a loose list split in two renders as two lists: close enough).
The scan costs time in proportion to ``len(text)``, and the caller passes only the unfinished
tail, so the cost per frame depends on the growing block, not on the whole reply.
"""

from __future__ import annotations

import re

__all__ = ["finished_prefix"]

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})")


def finished_prefix(text: str) -> int:
    """The length of the longest prefix of ``text`` made only of finished Markdown blocks."""
    cut = 0
    fence: str | None = None  # the opening fence run (e.g. "```") while inside a fence
    fence_top = False  # the open fence started at column 0
    after_blank = False  # the previous complete line was blank (outside a fence)
    pos = 0
    n = len(text)
    while pos < n:
        end = text.find("\n", pos)
        complete = end != -1
        line_end = end if complete else n
        line = text[pos:line_end]
        if after_blank and fence is None and line and not line[0].isspace():
            cut = pos
        if not complete:
            break
        nxt = end + 1
        m = _FENCE.match(line)
        if fence is None:
            if m and not (m.group(2)[0] == "`" and "`" in line[m.end() :]):
                fence = m.group(2)
                fence_top = m.group(1) == ""
            after_blank = not line.strip()
        else:
            if m and m.group(2)[0] == fence[0] and len(m.group(2)) >= len(fence):
                if not line[m.end() :].strip():
                    if fence_top and m.group(1) == "":
                        cut = nxt
                    fence = None
            after_blank = False
        pos = nxt
    return cut
