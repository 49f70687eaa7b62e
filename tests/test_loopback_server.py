"""The loopback test server itself: canned replies, recorded requests, injected faults."""

import asyncio

import httpx2
import pytest

from tests.loopback import Reply, wire_case, wire_cases


async def test_serves_queued_replies_and_records_requests(loopback):
    loopback.add(Reply(body=["data: 1\n\n", "data: 2\n\n"], headers={"x-test": "yes"}))
    async with httpx2.AsyncClient() as c:
        r = await c.post(loopback.url + "/v1/chat", json={"a": 1}, headers={"x-api-key": "k"})
    assert (
        r.status_code == 200 and r.text == "data: 1\n\ndata: 2\n\n" and r.headers["x-test"] == "yes"
    )
    rec = loopback.requests[0]
    assert rec.path == "/v1/chat" and rec.json() == {"a": 1} and rec.headers["x-api-key"] == "k"


async def test_status_body_and_retry_after(loopback):
    loopback.add(
        Reply(
            status=429,
            body='{"error":"slow"}',
            headers={"Retry-After": "3"},
            content_type="application/json",
        )
    )
    async with httpx2.AsyncClient() as c:
        r = await c.get(loopback.url + "/x")
    assert r.status_code == 429 and r.headers["retry-after"] == "3"


async def test_drop_mid_stream_is_a_transport_error(loopback):
    loopback.add(Reply(body=["data: 1\n\n", "data: 2\n\n"], drop_after=1))
    async with httpx2.AsyncClient() as c:
        with pytest.raises(httpx2.TransportError):
            async with c.stream("GET", loopback.url + "/x") as r:
                async for _ in r.aiter_bytes():
                    pass


async def test_stall_then_client_disconnect_is_seen(loopback):
    loopback.add(Reply(body=["data: 1\n\n", "data: 2\n\n"], stall_after=1))
    async with httpx2.AsyncClient() as c:
        async with c.stream("GET", loopback.url + "/x") as r:
            it = r.aiter_bytes()
            assert await anext(it) == b"data: 1\n\n"
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.2):
                    await anext(it)
    assert await asyncio.to_thread(loopback.wait_disconnect)


def test_wire_recordings_are_readable(wire_dir):
    names = wire_cases("anthropic-messages")
    assert "text_stream" in names
    case = wire_case("anthropic-messages", "text_stream")
    assert case.meta["status"] == 200 and case.response.startswith(b"event:")
