"""Fallback: one test per rule of the seed."""

import pytest

from larik.llm.errors import APIError, ContextOverflow
from larik.llm.fallback import (
    COOLDOWN_LONG,
    COOLDOWN_SHORT,
    CooldownTable,
    should_fall_back,
    with_fallback,
)
from larik.llm.types import EventType, Request
from tests.llm.helpers import FakeProvider, collect

REQ = Request(model="primary-model")


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.mark.parametrize("status", [401, 402, 403, 404, 408, 429, 500, 502, 503, 529, 0])
def test_these_errors_switch(status):
    assert should_fall_back(APIError(status, "x"))


@pytest.mark.parametrize(
    "err",
    [ContextOverflow(), APIError(400, "bad"), APIError(422, "bad"), ValueError("not an api error")],
)
def test_these_errors_never_switch(err):
    assert not should_fall_back(err)


async def test_switch_rewrites_model_and_emits_a_notice():
    a = FakeProvider("groq", [APIError(429, "rate limited")])
    b = FakeProvider("ollama", ["local answer"])
    fb = with_fallback([(a, "primary-model"), (b, "qwen3")], CooldownTable(Clock()))
    events = await collect(fb, REQ)
    assert b.requests[0].model == "qwen3"
    notices = [e for e in events if e.type is EventType.NOTICE]
    assert (
        len(notices) == 1
        and "groq/primary-model" in notices[0].text
        and "ollama/qwen3" in notices[0].text
    )
    assert events[-1].message.model == "qwen3"


async def test_final_message_is_stamped_with_the_model_that_answered():
    class Sloppy(FakeProvider):
        async def stream(self, request):
            async for ev in super().stream(request):
                if ev.message:
                    ev.message.model = "something-else"
                yield ev

    fb = with_fallback(
        [(FakeProvider("a", [APIError(500, "x")]), "m1"), (Sloppy("b", ["ok"]), "m2")],
        CooldownTable(Clock()),
    )
    events = await collect(fb, REQ)
    assert events[-1].message.model == "m2"


async def test_context_overflow_and_bad_request_propagate_without_switching():
    for err in (ContextOverflow(), APIError(400, "bad request")):
        b = FakeProvider("b", ["never"])
        fb = with_fallback([(FakeProvider("a", [err]), "m1"), (b, "m2")], CooldownTable(Clock()))
        with pytest.raises(APIError):
            await collect(fb, REQ)
        assert b.requests == []


async def test_no_switch_once_something_was_yielded():
    b = FakeProvider("b", ["never"])
    fb = with_fallback(
        [(FakeProvider("a", [("mid", APIError(503, "x"))]), "m1"), (b, "m2")],
        CooldownTable(Clock()),
    )
    with pytest.raises(APIError):
        await collect(fb, REQ)
    assert b.requests == []


async def test_retry_notices_from_a_candidate_do_not_stop_the_switch():
    from larik.llm.retry import with_retry

    async def no_sleep(_: float) -> None:
        return None

    a = with_retry(FakeProvider("groq", [APIError(503, "down")] * 2), attempts=2, sleep=no_sleep)
    b = FakeProvider("ollama", ["local answer"])
    fb = with_fallback([(a, "primary-model"), (b, "qwen3")], CooldownTable(Clock()))
    events = await collect(fb, REQ)
    assert events[-1].message.text() == "local answer"
    notices = [e.text for e in events if e.type is EventType.NOTICE]
    assert "retry 1 of 1" in notices[0] and "switched to ollama/qwen3" in notices[1]


async def test_cooling_candidate_is_skipped_without_a_notice():
    clock = Clock()
    table = CooldownTable(clock)
    a = FakeProvider("a", [APIError(429, "x"), "unused"])
    b = FakeProvider("b", ["first", "second"])
    fb = with_fallback([(a, "m1"), (b, "m2")], table)
    await collect(fb, REQ)
    clock.t += COOLDOWN_SHORT - 1
    events = await collect(fb, REQ)
    assert len(a.requests) == 1
    assert not [e for e in events if e.type is EventType.NOTICE]
    assert events[-1].message.text() == "second"


async def test_rate_limit_and_server_error_cool_for_one_minute():
    for err in (APIError(429, "x"), APIError(503, "x")):
        clock = Clock()
        table = CooldownTable(clock)
        table.fail("p/m", err)
        clock.t += COOLDOWN_SHORT - 0.1
        assert table.cooling("p/m")
        clock.t += 0.2
        assert not table.cooling("p/m")


async def test_other_failures_cool_for_ten_minutes():
    clock = Clock()
    table = CooldownTable(clock)
    table.fail("p/m", APIError(401, "bad key"))
    clock.t += COOLDOWN_SHORT + 1
    assert table.cooling("p/m")
    clock.t += COOLDOWN_LONG
    assert not table.cooling("p/m")


async def test_last_candidate_is_always_tried_even_when_cooling():
    clock = Clock()
    table = CooldownTable(clock)
    table.fail("b/m2", APIError(429, "x"))
    table.fail("a/m1", APIError(429, "x"))
    b = FakeProvider("b", ["still tried"])
    fb = with_fallback([(FakeProvider("a", []), "m1"), (b, "m2")], table)
    events = await collect(fb, REQ)
    assert events[-1].message.text() == "still tried"


async def test_cooldown_table_is_process_wide_by_default():
    from larik.llm.fallback import cooldowns

    a1 = FakeProvider("a", [APIError(429, "x")])
    b1 = FakeProvider("b", ["one"])
    await collect(with_fallback([(a1, "m1"), (b1, "m2")]), REQ)
    # a second chain (another subagent) resolving the same candidates skips the cooling one
    a2 = FakeProvider("a", ["unused"])
    b2 = FakeProvider("b", ["two"])
    await collect(with_fallback([(a2, "m1"), (b2, "m2")]), REQ)
    assert a2.requests == [] and cooldowns.cooling("a/m1")


async def test_error_from_the_last_candidate_propagates():
    fb = with_fallback(
        [
            (FakeProvider("a", [APIError(500, "x")]), "m1"),
            (FakeProvider("b", [APIError(503, "y")]), "m2"),
        ],
        CooldownTable(Clock()),
    )
    with pytest.raises(APIError) as ei:
        await collect(fb, REQ)
    assert ei.value.status == 503


async def test_model_prober_is_delegated_to_the_candidate_serving_the_model():
    fb = with_fallback(
        [(FakeProvider("a", [], window=None), "m1"), (FakeProvider("b", [], window=32768), "m2")]
    )
    assert await fb.context_window("m2") == 32768
    assert await fb.supports_tools("m2") is True
    assert await fb.context_window("m1") is None
