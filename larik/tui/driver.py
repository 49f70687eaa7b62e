"""The terminal driver: Textual's own for Linux and macOS, without its idle wake-ups.

Textual's ``LinuxDriver`` reads keys in a thread that waits on the terminal with
``select(0.1)``: it wakes ten times a second in every Textual app whether or not a key came,
so that a lone Esc (which may begin an escape sequence) is let out after the parser's timeout
and the thread sees ``exit_event`` when the app ends. That is all of an idle Larik's CPU
(docs/performance.md, "Idle": 4 of its 4 ticks per 30 s were that thread's).

:class:`QuietDriver` waits only as long as something is pending: with no timeout while the
parser waits for nothing (a key, or the wake-up below, ends the wait), and until the parser's
own deadline while an escape sequence is half read, so a lone Esc comes out when it did
before. Ending the input (``disable_input``: quitting, suspending, running ``$EDITOR``) writes
a byte to a wake-up pipe the thread also waits on, then polls as Textual does until the thread
has seen ``exit_event``. Everything else — the parser, the messages, the final read — is
Textual's, and a Textual without the parser's deadline attribute gets its own 0.1 s poll back.
"""

from __future__ import annotations

import os
import selectors
from codecs import getincrementaldecoder

from textual._loop import loop_last
from textual._parser import ParseError
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

__all__ = ["POLL", "QuietDriver", "wait_for"]

POLL = 0.1  # Textual's own select timeout: while ending, and for a parser we do not know
_UNKNOWN = object()


def wait_for(parser: object, closing: bool = False) -> float | None:
    """How long the input thread may wait for the terminal: None (until a key or the wake-up)
    when the parser waits for nothing, the time left to its deadline while it does."""
    if closing:
        return POLL
    due = getattr(parser, "_timeout_time", _UNKNOWN)
    if due is _UNKNOWN or not (due is None or isinstance(due, float | int)):
        return POLL
    if due is None:
        return None
    return max(0.0, float(due) - get_time())


class QuietDriver(LinuxDriver):
    """``LinuxDriver`` whose input thread sleeps while nothing is pending."""

    _wake: tuple[int, int] | None = None
    _closing = False

    def run_input_thread(self) -> None:
        """Textual's loop (``LinuxDriver.run_input_thread``) with the wait of :func:`wait_for`."""
        if self._wake is None:
            self._wake = os.pipe()
            os.set_blocking(self._wake[1], False)
        wake = self._wake[0]
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        selector.register(wake, selectors.EVENT_READ)
        fileno = self.fileno
        EVENT_READ = selectors.EVENT_READ
        parser = XTermParser(self._debug)
        feed = parser.feed
        tick = parser.tick
        decode = getincrementaldecoder("utf-8")().decode
        read = os.read

        def process_selector_events(
            selector_events: list[tuple[selectors.SelectorKey, int]], final: bool = False
        ) -> None:
            for last, (key, mask) in loop_last(selector_events):
                if key.fd == wake:
                    read(wake, 64)  # only to wake the thread: exit_event says why
                    continue
                if mask & EVENT_READ:
                    unicode_data = decode(read(fileno, 1024 * 4), final=final and last)
                    if not unicode_data:
                        break  # stdin is piped and ended
                    for event in feed(unicode_data):
                        self.process_message(event)
            for event in tick():
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                process_selector_events(selector.select(wait_for(parser, self._closing)))
            selector.unregister(self.fileno)
            selector.unregister(wake)
            process_selector_events(selector.select(POLL), final=True)
        finally:
            selector.close()
            try:
                for _event in feed(""):
                    pass
            except (EOFError, ParseError):
                pass

    def disable_input(self) -> None:
        """Textual's, after waking the input thread (it may be waiting with no timeout)."""
        self._closing = True
        if self._wake is not None:
            try:
                os.write(self._wake[1], b"x")
            except OSError:  # the pipe is full: the thread is awake already
                pass
        try:
            super().disable_input()
        finally:
            self._closing = False

    def close(self) -> None:
        super().close()
        if self._wake is not None:
            for fd in self._wake:
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._wake = None
