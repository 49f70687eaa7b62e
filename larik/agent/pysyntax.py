"""Python source as the agent reads it: what a parse can raise, in one place.

A model's file, or a project's, can fail :func:`ast.parse` in more ways than ``SyntaxError``:
a NUL byte (``ValueError`` on Python 3.11), nesting too deep for the parser (``MemoryError``:
``return ----…1`` with 100,000 minus signs) or for the compiler (``RecursionError``). Every
place that parses such text catches all of them (the edit workflow's checks and repairs, the
write tools' syntax guard, the finding of files and examples); until then the edit workflow's
turn ended in a ``MemoryError`` on such a reply. The parsers themselves are
:mod:`larik.llm.others_parse`'s, the one bounded helper for every parser of others' text.
"""

from __future__ import annotations

from ..llm.others_parse import UNPARSABLE
from ..llm.others_parse import python as parse

__all__ = ["UNPARSABLE", "parse"]
