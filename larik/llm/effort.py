"""The reasoning efforts: the one place the levels are named (``tests/test_one_fact.py``).

A leaf of the lowest layer, light (no pydantic): the request carries one
(``larik.llm.types.Request.effort``), each adapter maps them to its API's (a table keyed by
these members), and the config, the session, ``/effort``, ``--effort`` and an editor's effort
selector read the levels and their words here.
"""

from __future__ import annotations

from enum import StrEnum

from .errors import ConfigError

__all__ = ["Effort"]


class Effort(StrEnum):
    """A reasoning effort: the one place the levels are named (``tests/test_one_fact.py``).
    ``DEFAULT`` ("", falsy) leaves the provider's own; users say it as ``default``. Each
    adapter maps the levels to its API's (a table keyed by these members)."""

    DEFAULT = ""
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    MAX = "max"

    @property
    def word(self) -> str:
        """As a user writes it: ``default`` for ``DEFAULT``."""
        return self.value or "default"

    @classmethod
    def words(cls, sep: str = ", ", last: str | None = None) -> str:
        """What ``/effort`` and ``--effort`` take: ``low, medium, high, max, default``."""
        names = [e.word for e in cls if e] + [cls.DEFAULT.word]
        return sep.join(names[:-1]) + (sep if last is None else last) + names[-1]

    @classmethod
    def parse(cls, word: str) -> Effort:
        """``word`` (a level, ``default`` or "") as an effort; ConfigError naming the levels."""
        try:
            return cls("" if word == "default" else word)
        except ValueError:
            raise ConfigError(f"unknown effort {word!r}: use {cls.words(last=' or ')}") from None
