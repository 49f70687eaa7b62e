"""An idle screen draws nothing (docs/performance.md, benchmarks/idle.py): the prompt's cursor
blinks while the user types and BLINK_FOR seconds after, then stays on, so no timer fires at
the first screen or after a finished turn (it blinked forever: 0.2 s of CPU per 30 s)."""

from __future__ import annotations

import asyncio
import collections

import pytest
from textual import timer as textual_timer

from larik.tui.widgets import prompt_input
from tests.patience import WAIT

from .conftest import ready, send, turn_done, wait_for


@pytest.fixture
def fired(monkeypatch):
    """The timer callbacks that fire, by name (Textual's ``Timer._tick``, wrapped)."""
    counts: collections.Counter[str] = collections.Counter()
    real = textual_timer.Timer._tick

    async def tick(self, **kw):
        counts[f"{self.name} {getattr(self._callback, '__qualname__', '')}"] += 1
        return await real(self, **kw)

    monkeypatch.setattr(textual_timer.Timer, "_tick", tick)
    monkeypatch.setattr(prompt_input, "BLINK_FOR", 0.3)
    return counts


async def _quiet_for(pilot, fired, seconds: float = 1.0) -> dict[str, int]:
    """What fired in ``seconds`` of the app left alone (no pilot round trips) once it has
    settled: the cursor still, and what the last input set going done (its last frame, the
    idle collection) — on a loaded machine those come late, so the first quiet stretch of
    ``seconds`` counts; a timer that keeps firing fires in every stretch, up to the ceiling."""
    app = pilot.app
    await wait_for(pilot, lambda: not app.chat.prompt.cursor_blink)
    await pilot.pause()
    loop = asyncio.get_running_loop()
    end = loop.time() + WAIT
    while True:
        fired.clear()
        await asyncio.sleep(seconds)
        if not fired or loop.time() > end:
            return dict(fired)


async def test_the_first_screen_fires_no_timer_once_the_cursor_is_still(harness, fired):
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert await _quiet_for(pilot, fired) == {}
        assert app.focused is app.chat.prompt, app.focused
        await pilot.press("h")  # a key: blinking again, then still again
        assert await _quiet_for(pilot, fired) == {}


async def test_after_a_finished_turn_no_timer_fires(harness, fired, monkeypatch):
    from larik.tui import gcpolicy

    monkeypatch.setattr(gcpolicy.IdleCollector, "AFTER", 0.1)  # its one collection, done first
    app = harness.app([{"text": "a reply"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await turn_done(pilot)
        assert await _quiet_for(pilot, fired) == {}
