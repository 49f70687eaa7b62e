"""Keep Python's full garbage collections out of a streaming reply.

A full (generation 2) collection walks every tracked object; with a long reply rendered into
lines that is tens of milliseconds, long enough to stall typing while text streams in. So while
a reply streams, each newly frozen chunk's objects are moved out of the collector's sight
(``gc.freeze``, after a cheap young collection), and when the turn ends, with the user reading,
everything is unfrozen and collected once, so nothing is leaked for longer than a turn.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

__all__ = ["IdleCollector", "collect_idle", "freeze_loaded", "freeze_young"]

_MIN_INTERVAL = 0.5
_last = 0.0


def freeze_young() -> None:
    """Collect young garbage, then freeze what is left (at most every half second)."""
    global _last
    now = time.monotonic()
    if now - _last < _MIN_INTERVAL:
        return
    _last = now
    gc.collect(1)
    gc.freeze()


def freeze_loaded() -> None:
    """A lot was just loaded to stay (a resumed session's messages): collect young garbage and
    freeze the rest now, so full collections while it is drawn do not walk it again and again."""
    global _last
    _last = time.monotonic()
    gc.collect(1)
    gc.freeze()


def collect_idle() -> None:
    """At an idle moment: unfreeze, collect everything, and freeze the survivors again."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


class IdleCollector:
    """A full collection a few seconds after a turn, unless typing or a turn came first.
    ``set_timer``: the screen's (``(delay, callback) -> Timer``); ``busy``: a turn runs."""

    AFTER = 5.0  # seconds without a turn or a key press before a full collection

    def __init__(self, set_timer: Any, busy: Callable[[], bool]) -> None:
        self._set_timer = set_timer
        self._busy = busy
        self._timer: Any = None
        self._last_key = 0.0

    def key(self) -> None:
        """A key was pressed (anywhere: the app tells): typing puts off the collection."""
        self._last_key = time.monotonic()

    def schedule(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self._set_timer(self.AFTER, self._fire)

    def _fire(self) -> None:
        self._timer = None
        if self._busy() or time.monotonic() - self._last_key < self.AFTER:
            self.schedule()
            return
        collect_idle()
