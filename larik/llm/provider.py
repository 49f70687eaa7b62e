"""The Provider contract: the only thing the agent knows about a model API.

``stream(request)`` returns an async iterator of :class:`~larik.llm.types.StreamEvent`:
display deltas while the reply streams, then exactly one ``done`` carrying the assembled
``Message`` (stamped with ``request.model``), the ``Usage`` and the ``StopReason``. Failures are
raised *from the iterator* as :class:`~larik.llm.errors.APIError` (``ContextOverflow`` when the
prompt is too long); a failed stream yields no ``done``. Closing the iterator early (``aclose``
or cancelling the consuming task) must stop the HTTP request promptly.

``ModelProber`` is optional: local servers report the context window they actually loaded and
whether a model takes tools. ``None`` means unknown.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Protocol, runtime_checkable

from .types import Request, StreamEvent

__all__ = ["ModelProber", "Provider", "Wrapper"]


@runtime_checkable
class Provider(Protocol):
    name: str

    def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]: ...


@runtime_checkable
class ModelProber(Protocol):
    async def context_window(self, model: str) -> int | None: ...

    async def supports_tools(self, model: str) -> bool | None: ...


class Wrapper:
    """Base for decorators around one provider (retry, timeouts): forwards ``ModelProber`` calls
    to the wrapped provider, so probing a local server works through any stack of them."""

    inner: Provider

    async def context_window(self, model: str) -> int | None:
        if isinstance(self.inner, ModelProber):
            return await self.inner.context_window(model)
        return None

    async def supports_tools(self, model: str) -> bool | None:
        if isinstance(self.inner, ModelProber):
            return await self.inner.supports_tools(model)
        return None

    async def supports_images(self, model: str) -> bool | None:
        """Optional on a prober (``larik/agent/images.py``): forwarded when the inner has it."""
        ask = getattr(self.inner, "supports_images", None)
        return await ask(model) if ask is not None else None

    async def model_params(self, model: str) -> float | None:
        """Optional on a prober (``larik/agent/profile.py``): billions of parameters."""
        ask = getattr(self.inner, "model_params", None)
        return await ask(model) if ask is not None else None

    def effort_applies(self, model: str) -> bool | None:
        """Optional on any provider: whether a reasoning effort changes anything for ``model``
        (False: it is never sent, or the model does not reason; None: not known)."""
        ask = getattr(self.inner, "effort_applies", None)
        return ask(model) if ask is not None else None
