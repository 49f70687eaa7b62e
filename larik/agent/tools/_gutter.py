"""read_file's line-number gutter: made here, and taken off text a model copied with it.

``read_file`` shows each line after its number, right-aligned in ``WIDTH`` columns, and a tab
(``cat -n``'s format): ``"     7\\tdef f():"``. The numbers are for pointing, not for pasting —
but a small model writes a file back *as read_file showed it*, gutter and all, or quotes an
``old_string`` with it. :func:`strip_gutter` takes the gutter off when **every** line carries it
in exactly that format, numbered one after the other (an empty line may have lost its tab), so
ordinary text — a TSV file, numbered prose — is never touched; read_file's own notes after the
last line (``[lines 1-2000 of 2500; …]``) go with it. The file tools say so in their result.
"""

from __future__ import annotations

import re

__all__ = ["NOTE", "WIDTH", "gutter_like", "numbered", "strip_gutter", "strip_rows"]

WIDTH = 6
_ROW = re.compile(r"( *)(\d+)(?:\t|(?=\r?$))")
#: read_file's notes after a page (read_file.py writes them; the tests round-trip its output)
_NOTE = re.compile(
    r"\[(?:lines \d+-\d+ of \d+; call read_file|\d+ line\(s\) longer than |.* is not UTF-8 text: )"
)
_LIKE = re.compile(r"^ *\d+\t", re.MULTILINE)
NOTE = (
    "note: {what} carried read_file's line-number gutter on every line, so it was taken off "
    "before writing: line numbers are for pointing, not part of the file; give the file's text "
    "only."
)


def numbered(n: int, line: str) -> str:
    """Line ``n`` as read_file shows it."""
    return f"{n:>{WIDTH}}\t{line}"


def _gutter(line: str) -> tuple[int, int] | None:
    """``(number, length of the gutter)`` if ``line`` starts with read_file's gutter."""
    m = _ROW.match(line)
    if m is None:
        return None
    spaces, digits = m.group(1), m.group(2)
    if len(spaces) + len(digits) != WIDTH and not (len(digits) > WIDTH and not spaces):
        return None
    return int(digits), m.end()


def strip_gutter(text: str) -> str | None:
    """``text`` without read_file's gutter, or None when not every line carries it (numbered
    one after the other). Line endings are kept."""
    lines = text.split("\n")
    last = lines.pop() if lines and lines[-1] == "" else None  # text ended with a newline
    while lines and _NOTE.match(lines[-1]) and len(lines) > 1:
        lines.pop()
        last = ""
    out: list[str] = []
    expect: int | None = None
    for line in lines:
        found = _gutter(line)
        if found is None or (expect is not None and found[0] != expect):
            return None
        expect = found[0] + 1
        out.append(line[found[1] :])
    if not out:
        return None
    return "\n".join(out + ([last] if last is not None else []))


def strip_rows(text: str) -> str:
    """``text`` with the gutter taken off each line that carries one (the new text of an edit
    whose old text was quoted with the gutter: lines the model added may lack it)."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        found = _gutter(line)
        if found is not None:
            lines[i] = line[found[1] :]
    return "\n".join(lines)


def gutter_like(text: str) -> bool:
    """Whether ``text`` has lines that look like a gutter (a file of such lines keeps them)."""
    return _LIKE.search(text) is not None
