"""The permission modes: the one place they are named, described and ordered.

A leaf module (it imports only the error tree), so config validation (``permissions.mode``),
the permission policy, trust (a project's mode applies only when as strict as the user's), the
session, and every face — the TUI's ``/permissions`` and Shift+Tab, print mode's
``--permission-mode``, an editor's ACP mode list — read one enumeration. Adding a mode is a
member here with its description and strictness; ``tests/test_one_fact.py`` fails on any other
module that spells the list again.
"""

from __future__ import annotations

from enum import StrEnum

from .llm.errors import ConfigError

__all__ = ["AFTER_PLAN", "STRICTEST_FIRST", "Mode", "parse_mode"]


class Mode(StrEnum):
    """A permission mode (a ``str``: ``Mode.EDITS == "edits"``), in the order lists show them."""

    ASK = "ask"
    EDITS = "edits"
    YOLO = "yolo"
    PLAN = "plan"

    @property
    def description(self) -> str:
        """What the mode does, as ``/permissions``, Shift+Tab and an editor's mode list say."""
        return _DESCRIPTIONS[self]

    @property
    def label(self) -> str:
        """The mode's name as a label: ``Edits``."""
        return self.value.capitalize()

    @property
    def writes_unasked(self) -> bool:
        """Whether file changes go through without a question (edits, yolo)."""
        return self in (Mode.EDITS, Mode.YOLO)

    @classmethod
    def words(cls, sep: str = ", ", last: str | None = None) -> str:
        """The modes' names for a help line or an error: ``ask, edits, yolo, plan``."""
        names = [m.value for m in cls]
        return sep.join(names[:-1]) + (sep if last is None else last) + names[-1]


_DESCRIPTIONS = {
    Mode.ASK: "confirm edits and commands",
    Mode.EDITS: "edit freely, confirm commands",
    Mode.YOLO: "never ask",
    Mode.PLAN: "read and search only, then a plan to accept or refine",
}
#: The modes from the strictest to the loosest (trust: a project's mode applies only when as
#: strict as the user's or more).
STRICTEST_FIRST = (Mode.PLAN, Mode.ASK, Mode.EDITS, Mode.YOLO)

#: The modes an accepted plan is carried out in, the first the one offered first.
AFTER_PLAN = (Mode.EDITS, Mode.ASK)


def parse_mode(text: str) -> Mode:
    """``text`` as a mode, or a ConfigError naming the modes (one line)."""
    try:
        return Mode(text)
    except ValueError:
        raise ConfigError(f"unknown permission mode {text!r}: use {Mode.words()}") from None
