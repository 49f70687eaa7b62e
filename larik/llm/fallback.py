"""Fallback decorator: try candidates (provider, model) in order until one answers.

Rules (each has a test in tests/llm/test_fallback.py):

* Switch on rate limits, quota and auth failures (401/402/403/404/408/429), server errors (5xx)
  and transport failures (status 0: connection refused, dropped). Never on ``ContextOverflow``
  or a bad request (400, 422, …): those would fail anywhere, so they propagate.
* The switch rewrites ``request.model`` for the candidate and yields a ``notice`` event.
* A failed candidate goes into a process-wide cooldown table keyed by ``provider/model``:
  1 minute after a rate limit or server error, 10 minutes otherwise — or as long as the server's
  ``Retry-After`` asked, up to an hour. A plan whose usage window is spent (``QuotaExceeded``)
  cools down until the window's reset time (up to :data:`QUOTA_MAX`; an hour when the server
  named none). While cooling down it is skipped without a notice. The last candidate is always
  tried.
* No switch once a reply event (anything but a notice) has been yielded: the error propagates.
* The final message is stamped with the model that answered.
* ``ModelProber`` calls are delegated to the candidate serving the model.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass

from .errors import APIError, ContextOverflow, QuotaExceeded
from .provider import ModelProber, Provider
from .types import EventType, Request, StreamEvent

__all__ = [
    "COOLDOWN_LONG",
    "COOLDOWN_MAX",
    "COOLDOWN_SHORT",
    "QUOTA_MAX",
    "Candidate",
    "FallbackProvider",
    "cooldowns",
    "should_fall_back",
    "with_fallback",
]

COOLDOWN_SHORT = 60.0
COOLDOWN_LONG = 600.0
#: The longest a server's Retry-After holds a candidate back.
COOLDOWN_MAX = 3600.0
#: The longest a spent plan window holds a candidate back (a weekly window, and a day more).
QUOTA_MAX = 8 * 86400.0
_SWITCH_STATUSES = frozenset({401, 402, 403, 404, 408, 429})


@dataclass(frozen=True, slots=True)
class Candidate:
    provider: Provider
    model: str

    @property
    def key(self) -> str:
        return f"{self.provider.name}/{self.model}"


class CooldownTable:
    """Process-wide: every subagent resolves its own chain, but they share what failed."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._until: dict[str, float] = {}

    def cooling(self, key: str) -> bool:
        until = self._until.get(key)
        if until is None:
            return False
        if self.clock() >= until:
            del self._until[key]
            return False
        return True

    def fail(self, key: str, err: APIError) -> None:
        self._until[key] = self.clock() + cooldown_for(err)

    def clear(self) -> None:
        self._until.clear()


cooldowns = CooldownTable()


def should_fall_back(err: BaseException) -> bool:
    if not isinstance(err, APIError) or isinstance(err, ContextOverflow):
        return False
    return err.status == 0 or err.status in _SWITCH_STATUSES or err.status >= 500


def cooldown_for(err: APIError, now: float | None = None) -> float:
    if isinstance(err, QuotaExceeded):
        if err.resets_at is None:
            return COOLDOWN_MAX
        left = err.resets_at - (time.time() if now is None else now)
        return max(COOLDOWN_SHORT, min(left, QUOTA_MAX))
    base = (
        COOLDOWN_SHORT
        if err.status == 429 or err.status >= 500 or err.status == 0
        else COOLDOWN_LONG
    )
    return max(base, min(err.retry_after or 0.0, COOLDOWN_MAX))


class FallbackProvider:
    def __init__(self, candidates: list[Candidate], table: CooldownTable | None = None) -> None:
        if not candidates:
            raise ValueError("with_fallback needs at least one candidate")
        self.candidates = list(candidates)
        self.name = candidates[0].provider.name
        self.table = table or cooldowns

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        last = len(self.candidates) - 1
        failed: tuple[Candidate, APIError] | None = None
        for i, cand in enumerate(self.candidates):
            if i < last and self.table.cooling(cand.key):
                continue
            req = (
                request
                if cand.model == request.model
                else request.model_copy(update={"model": cand.model})
            )
            if failed is not None:
                prev, err = failed
                yield StreamEvent.notice(f"{prev.key} failed ({err}); switched to {cand.key}")
            yielded = False
            try:
                async with aclosing(cand.provider.stream(req)) as events:
                    async for ev in events:
                        if ev.type is EventType.DONE and ev.message is not None:
                            ev.message.model = cand.model
                        yielded = yielded or ev.type is not EventType.NOTICE
                        yield ev
                return
            except APIError as err:
                if yielded or i == last or not should_fall_back(err):
                    raise
                self.table.fail(cand.key, err)
                failed = (cand, err)

    def _serving(self, model: str) -> Provider | None:
        for c in self.candidates:
            if c.model == model:
                return c.provider
        return None

    async def context_window(self, model: str) -> int | None:
        p = self._serving(model)
        if isinstance(p, ModelProber):
            return await p.context_window(model)
        return None

    async def supports_tools(self, model: str) -> bool | None:
        p = self._serving(model)
        if isinstance(p, ModelProber):
            return await p.supports_tools(model)
        return None

    async def supports_images(self, model: str) -> bool | None:
        ask = getattr(self._serving(model), "supports_images", None)
        return await ask(model) if ask is not None else None

    def effort_applies(self, model: str) -> bool | None:
        ask = getattr(self._serving(model), "effort_applies", None)
        return ask(model) if ask is not None else None


def with_fallback(
    candidates: list[Candidate] | list[tuple[Provider, str]], table: CooldownTable | None = None
) -> FallbackProvider:
    cands = [c if isinstance(c, Candidate) else Candidate(*c) for c in candidates]
    return FallbackProvider(cands, table)
