"""The terminal driver's input thread sleeps while nothing is pending (larik/tui/driver.py).

Textual's waits on the terminal with ``select(0.1)``, ten wake-ups a second in an idle app
(docs/performance.md, "Idle"). Driven here on a pipe, as the terminal: the thread waits with
no timeout while idle, still lets a lone Esc out after the parser's deadline, reads keys, and
ends at once when the input is disabled though it was waiting with no timeout.
"""

from __future__ import annotations

import os
import selectors
import signal
import threading
import time
from types import SimpleNamespace

import pytest
from textual import events

from larik.tui import driver as quiet
from larik.tui.driver import POLL, QuietDriver, wait_for
from tests.patience import WAIT


class Recording(QuietDriver):
    def __init__(self, fd: int) -> None:
        super().__init__(SimpleNamespace(), mouse=False)  # type: ignore[arg-type]
        self.fileno = fd
        self.seen: list[object] = []

    def process_message(self, message) -> None:  # the thread's messages, not the app's
        self.seen.append(message)


def until(cond, what: str, limit: float = WAIT) -> None:
    end = time.monotonic() + limit
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


@pytest.fixture
def waits(monkeypatch):
    """The timeouts the input thread's selector is asked to wait for, in order."""
    seen: list[float | None] = []

    class Counting(selectors.SelectSelector):
        def select(self, timeout=None):
            seen.append(timeout)
            return super().select(timeout)

    monkeypatch.setattr(quiet.selectors, "SelectSelector", Counting)
    return seen


@pytest.fixture
def handlers():
    kept = {s: signal.getsignal(s) for s in (signal.SIGTSTP, signal.SIGCONT, signal.SIGWINCH)}
    yield
    for s, h in kept.items():
        signal.signal(s, h)


def keys(d: Recording) -> list[str]:
    return [m.key for m in d.seen if isinstance(m, events.Key)]


async def test_the_input_thread_sleeps_until_a_key_and_still_lets_a_lone_esc_out(waits, handlers):
    r, w = os.pipe()
    d = Recording(r)
    thread = d._key_thread = threading.Thread(target=d.run_input_thread, daemon=True)
    thread.start()
    try:
        until(lambda: waits, "the first wait")
        assert waits[0] is None  # idle: no timeout, no wake-ups

        os.write(w, b"a")
        until(lambda: keys(d) == ["a"], "the key a")
        until(lambda: len(waits) >= 2, "the wait after the key")
        assert waits[1] is None

        os.write(w, b"\x1b")  # may begin an escape sequence: the parser's deadline applies
        until(lambda: keys(d) == ["a", "escape"], "the lone Esc")
        bounded = [t for t in waits[2:] if t is not None]
        assert bounded and all(0 <= t <= 1.0 for t in bounded)
        assert waits[-1] is None or len(waits) > 2  # and back to sleeping once it is out
        until(lambda: waits[-1] is None, "sleeping again")

        rescued: list[bool] = []

        def rescue() -> None:  # should the thread not wake, wake it the old way, and say so
            if not done.wait(WAIT):
                rescued.append(True)
                os.write(w, b"z")

        done = threading.Event()
        threading.Thread(target=rescue, daemon=True).start()
        d.disable_input()  # on the main thread, as the app calls it (it sets signal handlers)
        done.set()
        assert not rescued, "disable_input waited on a thread that sleeps"
        assert not thread.is_alive()
        assert not [t for t in waits if t is not None and t > 1.0]
    finally:
        d.close()
        os.close(w)
        os.close(r)


def test_a_parser_it_does_not_know_gets_textual_s_own_poll():
    assert wait_for(SimpleNamespace(_timeout_time=None)) is None
    assert wait_for(SimpleNamespace()) == POLL  # no deadline attribute: Textual's 0.1 s
    assert wait_for(SimpleNamespace(_timeout_time="soon")) == POLL
    assert wait_for(SimpleNamespace(_timeout_time=None), closing=True) == POLL
    assert wait_for(SimpleNamespace(_timeout_time=0.0)) == 0.0  # a deadline passed: at once


def test_the_app_runs_on_the_quiet_driver_unless_textual_driver_says(monkeypatch, tmp_path):
    from textual import constants
    from textual.drivers.headless_driver import HeadlessDriver

    from larik.tui.app import LarikApp

    monkeypatch.setattr(constants, "DRIVER", None)
    if os.name == "nt":
        pytest.skip("Textual's Windows driver is kept")
    assert LarikApp(cwd=tmp_path).driver_class is QuietDriver
    monkeypatch.setattr(constants, "DRIVER", "textual.drivers.headless_driver:HeadlessDriver")

    assert LarikApp(cwd=tmp_path).driver_class is HeadlessDriver
