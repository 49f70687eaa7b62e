"""Runaway replies: a reply repeating itself is noticed while it streams and cancelled.

A small model that starts repeating itself — ``1. 2. 3. …`` inside a ``write_file``'s content,
the same line or sentence over and over — writes until the output cap: minutes of CPU on a
local server, and a reply cut off at the cap is thrown away anyway (its calls never run). The
agent feeds every text delta and every tool-argument delta (``tool_input_delta``: native tool
calls, and a grammar-constrained reply's JSON) to a :class:`RunawayWatch`, which says when the
end of what came so far is one of:

``repeat``
    one piece repeated back to back: at least ``MIN_REPEATS`` times for a piece of up to
    ``SHORT_UNIT`` characters, at least ``LONG_REPEATS`` times for one of up to ``MAX_UNIT``,
    ``BLOCK_REPEATS`` times for a block of up to ``BLOCK_UNIT`` (the 0.5B model's 330-character
    ``median`` and ``>>>>>>> REPLACE`` over and over, to the output cap, twice, until the
    wall clock), and never over fewer than ``MIN_SPAN`` characters (so ``"=" * 80`` under a
    heading, or a handful of identical lines, is not a runaway);
``numbered``
    ``NUMBERED`` list items in a row whose only change is their number (``1. 2. 3. …``,
    ``1. TODO 2. TODO …``), or ``LONG_NUMBERED`` of a longer item, up to ``MAX_UNIT``
    characters (the 0.5B model's ``N. Change `app/settings.py` to load a JSON settings file.``
    126 times over, until the output cap, three replies running): what the numbers change is
    no substance.

In tool arguments, JSON's escapes (``\\n``, ``\\t``, ``\\"``) count as the characters they stand
for. Each channel keeps only its last ``WINDOW`` characters, and a check costs a few string
searches: a runaway is found within a bounded number of characters of its start (``MIN_SPAN``
for a repeat, about ``NUMBERED`` × the item's length for a numbered list), whatever the deltas'
sizes. What the agent then does (cancel, a nudge, one retry cooler) is in :mod:`.agent`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..llm.types import EventType, StreamEvent
from ..words import count

__all__ = ["Runaway", "RunawayReply", "RunawayWatch", "cooler"]

MAX_UNIT = 200  # characters of the longest repeated piece (and numbered item) looked for
BLOCK_UNIT = 800  # characters of the longest repeated block looked for
BLOCK_REPEATS = 4  # repeats of a block longer than MAX_UNIT
SHORT_UNIT = 16
MIN_REPEATS = 24  # repeats of a short piece
LONG_REPEATS = 6  # repeats of a longer one
MIN_SPAN = 400  # characters a repetition covers before it counts
NUMBERED = 24  # list items in a row that differ only in their number
LONG_NUMBERED = 12  # the same, for an item longer than SHORT_ITEM characters
SHORT_ITEM = SHORT_UNIT + 8
WINDOW = 4096
_PROBE = 16  # characters at the end looked for earlier
_CANDIDATES = 8  # earlier places of them tried
_SHOWN = 40

_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|(.))", re.DOTALL)
_CHARS = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}
_OPEN = re.compile(r"\\(?:u[0-9a-fA-F]{0,3})?\Z")  # an escape a delta may have cut in two
_DIGITS = re.compile(r"\d+")
_ITEM = re.compile(r"#\.\s")  # a list item's number, in the digit-folded text
_RAW_ITEM = re.compile(r"\d\.\s")  # the same, before folding


@dataclass(frozen=True)
class Runaway:
    pattern: str  # "repeat" | "numbered"
    unit: str  # the piece repeated, as the model wrote it (cut to _SHOWN)
    count: int  # times it came in a row
    channel: str  # "text" | "arguments"

    def describe(self) -> str:
        where = "its text" if self.channel == "text" else "a tool call's arguments"
        if self.pattern == "numbered":
            what = "an empty numbered list" if len(self.unit) <= SHORT_ITEM else "a numbered item"
            return f"{what} in {where} ({_show(self.unit)} {count(self.count, 'item')})"
        return f"{_show(self.unit)} {self.count} times in a row in {where}"

    def notice(self, again: bool) -> str:
        """For the user: the reply was cancelled (``again``: a second time, the turn ends)."""
        if again:
            return f"stopped: the model's reply ran away again ({self.describe()})"
        return f"the model's reply was cancelled: it kept repeating {self.describe()}; asked again, cooler"

    def nudge(self, tools: bool) -> str:
        """For the model, before it is asked again."""
        how = (
            " To change a file, use edit_file with a short old_string and new_string; never "
            "write a whole file in one call."
            if tools
            else ""
        )
        return (
            f"[larik: your last reply was stopped and discarded: it kept repeating "
            f"{self.describe()}. Do not repeat yourself; take the next step again, in few "
            f"words.{how}]"
        )

    @property
    def data(self) -> dict[str, Any]:
        """The ``turn_end`` event's data when a second runaway ends the turn."""
        return {"stuck": "runaway", "repeats": self.count, "pattern": self.pattern}


class RunawayReply(Exception):
    """Raised inside the agent's stream loop to cancel the request (the stream is closed)."""

    def __init__(self, runaway: Runaway) -> None:
        super().__init__(runaway.describe())
        self.runaway = runaway


@dataclass
class RunawayWatch:
    """One reply's streams; ``feed`` returns a :class:`Runaway` once one is seen."""

    _tails: dict[str, str] = field(default_factory=lambda: {"text": "", "arguments": ""})
    _pending: str = ""  # the start of an escape the last argument delta cut

    def new_call(self) -> None:
        """A new tool call starts: its arguments are a stream of their own."""
        self._tails["arguments"] = self._pending = ""

    def see(self, event: StreamEvent) -> None:
        """Watch one stream event; raises :class:`RunawayReply` when the reply ran away."""
        if event.type is EventType.TOOL_USE_START:
            self.new_call()
        elif event.type in (EventType.TEXT_DELTA, EventType.TOOL_INPUT_DELTA):
            channel = "text" if event.type is EventType.TEXT_DELTA else "arguments"
            if (runaway := self.feed(event.text, channel)) is not None:
                raise RunawayReply(runaway)

    def feed(self, text: str, channel: str = "text") -> Runaway | None:
        if channel == "arguments":
            text = self._unescape(self._pending + text)
        tail = (self._tails[channel] + text)[-WINDOW:]
        self._tails[channel] = tail
        return _repeat(tail, channel) or _numbered(tail, channel)

    def _unescape(self, raw: str) -> str:
        """JSON's escapes as the characters they stand for (approximately: this is for
        comparing, not for parsing)."""
        cut = _OPEN.search(raw, max(0, len(raw) - 6))
        self._pending = raw[cut.start() :] if cut else ""
        raw = raw[: cut.start()] if cut else raw
        return _ESCAPE.sub(_char, raw) if "\\" in raw else raw


def _char(m: re.Match[str]) -> str:
    code, other = m.group(1), m.group(2)
    return chr(int(code, 16)) if code else _CHARS.get(other, other)


def cooler(temperature: float | None) -> float:
    """The temperature of the one retry after a runaway: half the profile's, else 0.3."""
    return round(temperature / 2, 3) if temperature is not None else 0.3


def _need(p: int) -> int:
    times = MIN_REPEATS if p <= SHORT_UNIT else LONG_REPEATS if p <= MAX_UNIT else BLOCK_REPEATS
    return max(MIN_SPAN, p * times)


def _period(t: str, longest: int, need: Callable[[int], int]) -> int:
    """The smallest period ``p <= longest`` the end of ``t`` has over ``need(p)`` characters
    (0: none)."""
    n = len(t)
    if n < _PROBE + 1:
        return 0
    probe, end = t[-_PROBE:], n - 1
    for _ in range(_CANDIDATES):
        at = t.rfind(probe, max(0, n - _PROBE - longest), end)
        if at < 0:
            return 0
        p = n - _PROBE - at
        want = need(p)
        if n >= want and t[n - want + p :] == t[n - want : n - p]:
            return p
        end = at + _PROBE - 1
    return 0


def _repeat(t: str, channel: str) -> Runaway | None:
    p = _period(t, BLOCK_UNIT, _need)
    if not p:
        return None
    return Runaway("repeat", t[-p:], _need(p) // p, channel)


def _items(p: int) -> int:
    return NUMBERED if p <= SHORT_ITEM else LONG_NUMBERED


def _numbered(t: str, channel: str) -> Runaway | None:
    if not _RAW_ITEM.search(t, max(0, len(t) - 2 * MAX_UNIT)):
        return None  # no item number in the last two items' reach: nothing to fold (per delta)
    folded = _DIGITS.sub("#", t[-max(NUMBERED * SHORT_ITEM, LONG_NUMBERED * MAX_UNIT) :])
    p = _period(folded, MAX_UNIT, lambda p: p * _items(p))
    if not p or not _ITEM.search(folded[-p:] + folded[-p:]):
        return None
    return Runaway("numbered", folded[-p:].replace("#", "N"), _items(p), channel)


def _show(unit: str) -> str:
    for sep in ("\n", ". ", " "):  # the piece as it starts after a line, sentence or word
        twice = unit + unit
        at = twice.find(sep, 0, len(unit) + len(sep) - 1)
        if at >= 0:
            at = (at + len(sep)) % len(unit)
            unit = unit[at:] + unit[:at]
            break
    text = unit if len(unit) <= _SHOWN else unit[: _SHOWN - 1] + "…"
    return repr(text)
