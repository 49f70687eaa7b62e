"""Stall guard: no first chunk, or a gap between chunks, becomes a retryable StreamTimeout."""

import asyncio

import pytest

from larik.llm.errors import StreamTimeout
from larik.llm.timeout import with_timeouts
from larik.llm.types import Request, StreamEvent
from tests.patience import WAIT


class Slow:
    name = "slow"

    def __init__(self, gaps):
        self.gaps = gaps
        self.closed = False

    async def stream(self, request):
        try:
            for g in self.gaps:
                await asyncio.sleep(g)
                yield StreamEvent.text_delta("x")
        finally:
            self.closed = True


async def _drain(p):
    return [e async for e in p.stream(Request(model="m"))]


async def test_first_chunk_timeout():
    inner = Slow([WAIT])
    with pytest.raises(StreamTimeout, match="no first response from m") as ei:
        await _drain(with_timeouts(inner, first_chunk=0.05, idle=WAIT))
    assert ei.value.retryable and inner.closed


async def test_idle_timeout_between_chunks():
    with pytest.raises(StreamTimeout, match="no data"):
        await _drain(with_timeouts(Slow([0, 0, WAIT]), first_chunk=WAIT, idle=0.05))


async def test_a_steady_stream_passes():
    assert len(await _drain(with_timeouts(Slow([0.01] * 5), first_chunk=WAIT, idle=WAIT))) == 5
