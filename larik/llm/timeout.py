"""Stall guard: the first event must arrive within ``first_chunk`` seconds, and each later one
within ``idle`` seconds of the previous, or the stream fails with a retryable ``StreamTimeout``.
Defaults follow the resilience settings in the spec: 300 s to the first chunk, 180 s between.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from .errors import StreamTimeout
from .provider import Provider, Wrapper
from .types import Request, StreamEvent

__all__ = ["TimeoutProvider", "with_timeouts"]

FIRST_CHUNK_TIMEOUT = 300.0
IDLE_TIMEOUT = 180.0


class TimeoutProvider(Wrapper):
    def __init__(
        self,
        inner: Provider,
        *,
        first_chunk: float = FIRST_CHUNK_TIMEOUT,
        idle: float = IDLE_TIMEOUT,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.first_chunk = first_chunk
        self.idle = idle

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        events = self.inner.stream(request)
        limit, what = self.first_chunk, "first response"
        try:
            while True:
                try:
                    async with asyncio.timeout(limit):
                        ev = await anext(events)
                except StopAsyncIteration:
                    return
                except TimeoutError:
                    raise StreamTimeout(
                        f"no {what} from {request.model} in {limit:g}s", provider=self.name
                    ) from None
                yield ev
                limit, what = self.idle, "data"
        finally:
            await events.aclose()  # type: ignore[attr-defined]


def with_timeouts(provider: Provider, **kwargs: float) -> TimeoutProvider:
    return TimeoutProvider(provider, **kwargs)
