"""Retry: backoff with jitter, Retry-After honoured, never after something was yielded."""

import pytest

from larik.llm.errors import APIError, ContextOverflow
from larik.llm.retry import backoff_delay, with_retry
from larik.llm.types import EventType, Request
from tests.llm.helpers import FakeProvider, collect

REQ = Request(model="m")


class Sleeps(list):
    async def __call__(self, s: float) -> None:
        self.append(s)


async def test_retryable_error_is_retried_until_success():
    sleeps = Sleeps()
    p = FakeProvider("x", [APIError(503, "busy"), APIError(0, "reset"), "ok"])
    events = await collect(with_retry(p, sleep=sleeps, base_delay=0.5), REQ)
    assert events[-1].type is EventType.DONE and events[-1].message.text() == "ok"
    assert len(p.requests) == 3 and len(sleeps) == 2


async def test_non_retryable_error_is_raised_at_once():
    p = FakeProvider("x", [APIError(400, "bad"), "never"])
    with pytest.raises(APIError) as ei:
        await collect(with_retry(p, sleep=Sleeps()), REQ)
    assert ei.value.status == 400 and len(p.requests) == 1


async def test_context_overflow_is_never_retried():
    p = FakeProvider("x", [ContextOverflow(), "never"])
    with pytest.raises(ContextOverflow):
        await collect(with_retry(p, sleep=Sleeps()), REQ)


async def test_gives_up_after_the_attempt_limit():
    p = FakeProvider("x", [APIError(429, "slow down")] * 3)
    with pytest.raises(APIError):
        await collect(with_retry(p, attempts=3, sleep=Sleeps()), REQ)
    assert len(p.requests) == 3


async def test_retry_after_is_honoured():
    sleeps = Sleeps()
    p = FakeProvider("x", [APIError(429, "slow", retry_after=7.0), "ok"])
    await collect(with_retry(p, sleep=sleeps, base_delay=0.01), REQ)
    assert sleeps == [7.0]


async def test_no_retry_once_something_was_yielded():
    p = FakeProvider("x", [("mid", APIError(503, "dropped")), "never"])
    with pytest.raises(APIError):
        await collect(with_retry(p, sleep=Sleeps()), REQ)
    assert len(p.requests) == 1


def test_backoff_grows_exponentially_with_jitter_and_a_cap():
    import random

    rng = random.Random(1)
    delays = [backoff_delay(i, 1.0, 8.0, rng) for i in range(10)]
    assert all(0 <= d <= min(8.0, 2**i) for i, d in enumerate(delays))
    assert len(set(delays)) > 1


async def test_decorators_forward_model_probing_to_the_wrapped_provider():
    from larik.llm.timeout import with_timeouts

    p = with_retry(with_timeouts(FakeProvider("local", [], window=8192)))
    assert await p.context_window("m") == 8192 and await p.supports_tools("m") is True
