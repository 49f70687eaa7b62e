"""Retry: backoff with jitter, Retry-After honoured, never after something was yielded."""

import pytest

from larik.llm.errors import APIError, ContextOverflow, CutReply, LoginExpired, StreamTimeout
from larik.llm.retry import backoff_delay, with_retry
from larik.llm.types import EventType, Request, StreamEvent
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


@pytest.mark.parametrize(
    "err",
    [APIError(529, "overloaded_error: Overloaded"), StreamTimeout("no data from m in 180s")],
    ids=["an error event", "a stall"],
)
async def test_an_error_after_part_of_a_reply_was_shown_says_the_reply_was_cut(err):
    """Its cause kept, in one line: the turn ends with it, none of the reply's calls run."""
    p = FakeProvider("x", [("Half a repl", err), "never"])
    with pytest.raises(CutReply) as ei:
        await collect(with_retry(p, sleep=Sleeps()), REQ)
    assert "the reply was cut off" in str(ei.value) and err.message in str(ei.value)
    assert ei.value.__cause__ is err and len(p.requests) == 1


async def test_a_lapsed_sign_in_after_part_of_a_reply_stays_what_it_is():
    lapsed = LoginExpired("chatgpt", "larik login chatgpt")
    p = FakeProvider("x", [("mid", lapsed)])
    with pytest.raises(LoginExpired):
        await collect(with_retry(p, sleep=Sleeps()), REQ)


async def test_each_retry_is_announced_with_the_error_and_the_wait():
    p = FakeProvider("x", [APIError(503, "busy", provider="x"), APIError(429, "slow"), "ok"])
    events = await collect(with_retry(p, attempts=4, sleep=Sleeps(), base_delay=0.01), REQ)
    notices = [e.text for e in events if e.type is EventType.NOTICE]
    assert len(notices) == 2
    assert "busy" in notices[0] and "retry 1 of 3 in" in notices[0]
    assert "slow" in notices[1] and "retry 2 of 3 in" in notices[1]


async def test_a_notice_from_the_inner_provider_does_not_stop_retries():
    class NoticeThenFail(FakeProvider):
        async def stream(self, request):
            if self.outcomes and isinstance(self.outcomes[0], APIError):
                self.outcomes.pop(0)
                yield StreamEvent.notice("recovered a tool call")
                raise APIError(503, "busy")
            async for ev in super().stream(request):
                yield ev

    p = NoticeThenFail("x", [APIError(503, "busy"), "ok"])
    events = await collect(with_retry(p, sleep=Sleeps()), REQ)
    assert events[-1].message.text() == "ok"


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
