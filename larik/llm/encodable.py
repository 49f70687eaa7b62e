"""Text that UTF-8 can always encode: a lone surrogate written as its escape.

Python keeps an undecodable byte of a file name as a lone surrogate (``os.fsdecode``), and a
model's or a server's JSON may hold one (``"\\udcff"``); neither can be sent to a model,
written to a transcript or printed. :func:`encodable` writes each such byte as ``\\xNN``
(``café.py`` in Latin-1 is ``caf\\xe9.py``) and any other lone surrogate as ``\\udNNN``: the
rule every block, delta and tool result keeps (:class:`larik.llm.types.Block`), and
:func:`larik.paths.shown` for a path. In the model layer because it is the lowest: every
layer may use it. A leaf: nothing but the standard library.
"""

from __future__ import annotations

import re

__all__ = ["encodable"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """``text`` as valid UTF-8: an undecodable byte kept by ``os.fsdecode`` becomes ``\\xNN``,
    any other lone surrogate ``\\udNNN``."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(_escape, text)


def _escape(m: re.Match[str]) -> str:
    code = ord(m[0])
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"
