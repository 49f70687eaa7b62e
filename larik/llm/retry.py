"""Retry decorator: resend a request that failed with a retryable error before anything streamed.

Exponential backoff with full jitter, capped; a server's ``Retry-After`` is honoured (up to
``max_retry_after``). With ``hand_over=True`` (a candidate with another after it in a fallback
chain) a ``Retry-After`` longer than ``max_delay`` is not sat out: the error goes up at once, the
chain switches, and the fallback's cooldown holds the limited model for that long. Before each wait a ``notice`` event says what failed and when the next try
is, so a stalled or rate-limited server is not silence. Once a reply event (anything but a
notice) has been yielded the error is not retried: the consumer already showed part of a reply,
and a replay would duplicate it. It goes up as a :class:`~larik.llm.errors.CutReply` saying the
reply was cut (its cause kept; a lapsed sign-in or a spent quota stays what it is): the turn
ends with it, and none of the reply's tool calls runs (the reply has no ``done``).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing

from .errors import RETRY_MARK, APIError, ContextOverflow, CutReply, LoginExpired, QuotaExceeded
from .provider import Provider, Wrapper
from .types import EventType, Request, StreamEvent

__all__ = ["RetryingProvider", "backoff_delay", "with_retry"]

Sleep = Callable[[float], Awaitable[None]]


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random | None = None) -> float:
    """Full-jitter exponential backoff for the ``attempt``-th retry (0-based)."""
    r = (rng or random).random()
    return r * min(cap, base * (2**attempt))


class RetryingProvider(Wrapper):
    def __init__(
        self,
        inner: Provider,
        *,
        attempts: int = 4,
        base_delay: float = 1.0,
        max_delay: float = 30.0,
        max_retry_after: float = 120.0,
        hand_over: bool = False,
        sleep: Sleep = asyncio.sleep,
        on_retry: Callable[[APIError, float], None] | None = None,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.attempts = max(1, attempts)
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.max_retry_after = max_retry_after
        self.hand_over = hand_over
        self._sleep = sleep
        self._on_retry = on_retry

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        attempt = 0
        while True:
            yielded = False
            try:
                async with aclosing(self.inner.stream(request)) as events:
                    async for ev in events:
                        yielded = yielded or ev.type is not EventType.NOTICE
                        yield ev
                return
            except ContextOverflow:
                raise
            except APIError as err:
                attempt += 1
                if yielded and (cut := cut_short(err)) is not err:
                    raise cut from err
                if yielded or not err.retryable or attempt >= self.attempts:
                    raise
                if self.hand_over and (err.retry_after or 0) > self.max_delay:
                    raise  # a long wait: the next candidate answers now
                delay = backoff_delay(attempt - 1, self.base_delay, self.max_delay)
                if err.retry_after is not None:
                    delay = min(max(delay, err.retry_after), self.max_retry_after)
                if self._on_retry:
                    self._on_retry(err, delay)
                yield StreamEvent.notice(
                    f"{err}{RETRY_MARK}{attempt} of {self.attempts - 1} in {delay:.1f}s"
                )
                await self._sleep(delay)


def cut_short(err: APIError) -> APIError:
    """``err`` as it ends a reply part of which was shown: a CutReply naming its cause."""
    if isinstance(err, CutReply | LoginExpired | QuotaExceeded):
        return err
    why = f"HTTP {err.status}: {err.message}" if err.status else err.message
    return CutReply(why, provider=err.provider)


def with_retry(provider: Provider, **kwargs: object) -> RetryingProvider:
    return RetryingProvider(provider, **kwargs)  # type: ignore[arg-type]
