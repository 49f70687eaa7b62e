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
from tests.patience import WAIT

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


async def test_a_long_retry_after_cools_the_candidate_that_long_up_to_an_hour():
    from larik.llm.fallback import COOLDOWN_MAX

    clock = Clock()
    table = CooldownTable(clock)
    limited = APIError(429, "rate limited", retry_after=3600)
    p1 = FakeProvider("p1", [limited])
    p2 = FakeProvider("p2", ["ok", "again"])
    fb = with_fallback([(p1, "m1"), (p2, "m2")], table)
    await collect(fb, REQ)
    clock.t += 3000  # long after the usual minute: still held back
    await collect(fb, REQ)
    assert len(p1.requests) == 1 and len(p2.requests) == 2
    table.fail("p3/m", APIError(429, "x", retry_after=10**9))
    assert table._until["p3/m"] - clock.t == COOLDOWN_MAX


async def test_a_429_with_retry_after_3600_switches_to_the_fallback_at_once(loopback, monkeypatch):
    """Through the real stack (timeouts, retry, fallback): no waiting out the hour — the
    fallback answers now and the limited model cools down (it used to wait 120 s first)."""
    import asyncio
    import json as _json

    from larik import routing
    from larik.config import Config
    from larik.llm.fallback import cooldowns
    from larik.llm.types import Message, Usage
    from tests.llm.providers.kits import openai_compat as compat
    from tests.loopback import LoopbackServer, Reply

    backup = LoopbackServer().start()
    try:
        limit = {"error": {"message": "Rate limit reached", "type": "rate_limit"}}
        loopback.route(
            "/v1/chat/completions",
            Reply(429, _json.dumps(limit), {"Retry-After": "3600"}, "application/json"),
        )
        backup.route(
            "/v1/chat/completions", compat.KIT.text_reply(["ok"], Usage(input=1, output=1))
        )
        monkeypatch.setenv("GROQ_API_KEY", "gsk_test_0123456789")
        config = Config(
            providers={
                "groq": {"base_url": f"{loopback.url}/v1"},
                "box": {"type": "openai-compatible", "base_url": f"{backup.url}/v1"},
            },
            fallbacks={"groq/m": ["box/m"]},
        )
        resolved = routing.resolve("groq/m", config)
        request = Request(model="m", messages=[Message.user("hi")], max_tokens=16)
        async with asyncio.timeout(WAIT / 2):  # the old code slept 120 s here: fails
            events = [ev async for ev in resolved.provider.stream(request)]
            notices = [e.text for e in events if e.type is EventType.NOTICE]
            assert events[-1].message.text() == "ok" and events[-1].message.model == "m"
            assert len(notices) == 1 and "switched to box/m" in notices[0]
            assert len(loopback.requests) == 1  # asked once, not retried
            assert cooldowns.cooling("groq/m")
            events = [ev async for ev in resolved.provider.stream(request)]
        assert len(loopback.requests) == 1 and len(backup.requests) == 2  # held back
    finally:
        backup.stop()


async def test_without_a_fallback_a_long_retry_after_is_still_waited_out_capped():
    from larik.llm.retry import with_retry

    waits: list[float] = []

    async def sleep(s: float) -> None:
        waits.append(s)

    p = FakeProvider("p", [APIError(429, "limited", retry_after=3600), "ok"])
    events = await collect(with_retry(p, sleep=sleep), REQ)
    assert events[-1].type is EventType.DONE and waits == [120.0]
