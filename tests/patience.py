"""How long a test waits for what it expects before it gives up: one number for the suite.

A test waits on a condition (a line on screen, a process gone, a reply read) and looks again
until it holds; it gives up only when the condition never will, so the ceiling is reached on
failure alone and can be long. A user's laptop at load 8 runs a step ten or twenty times
slower than a quiet machine does, and a test must pass there too: no test asserts how long
something took, and none waits a fixed time for something to have happened. Where a test
needs Larik's own timeout to fire, it sets that timeout short and waits for the outcome (the
error says "timed out", the process is gone) with this ceiling. How fast Larik is lives in
``benchmarks/`` and docs/performance.md.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

#: Seconds a test waits for something it expects before it fails: reached only when the thing
#: never happens (a passing test waits as long as the machine needs, and no longer).
WAIT = 120.0

#: ``[lsp]`` waits for a test whose language server must answer: the longest the config allows
#: (an edit's wait ends as the diagnostics come, so they are reached only on failure). A test
#: that needs a start or a wait to run out sets its own short ones and asserts the outcome.
LSP_WAITS = {"wait_ms": 30_000, "start_ms": 60_000}


def grown_until(attempt: Callable[[float], T | None], bound: float, most: float = WAIT) -> T:
    """``attempt(bound)``'s first result that is not None, the bound doubled after each None.
    A test that needs Larik's own bound to run out (a start given up, a budget spent) sets it
    short; on a loaded machine it can run out before the hostile thing got as far as the test
    needs (its child started, its pid written): ``attempt`` says so with None and is tried
    again with a longer bound. Larik's bound, not the test, ends it, whatever the speed."""
    while (got := attempt(bound)) is None:
        bound *= 2
        assert bound <= most, "it never got as far as the test needs"
    return got


async def grown_until_async(
    attempt: Callable[[float], Awaitable[T | None]], bound: float, most: float = WAIT
) -> T:
    """:func:`grown_until` for an ``attempt`` that is a coroutine function."""
    while (got := await attempt(bound)) is None:
        bound *= 2
        assert bound <= most, "it never got as far as the test needs"
    return got


async def until(check: Callable[[], object], what: str, every: float = 0.02) -> None:
    """Until ``check()`` is true, looked at every ``every`` seconds (the loop runs meanwhile);
    fails saying ``what`` it waited for after :data:`WAIT`."""
    import asyncio

    loop = asyncio.get_running_loop()
    end = loop.time() + WAIT
    while not check():
        assert loop.time() < end, f"gave up waiting for {what}"
        await asyncio.sleep(every)
