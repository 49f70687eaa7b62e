"""Small fake providers for decorator tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

from larik.llm.endpoint import Endpoint
from larik.llm.errors import APIError
from larik.llm.types import Block, Message, Request, StopReason, StreamEvent, Usage


class FakeProvider:
    """Plays outcomes in order: an APIError is raised before anything; ``("mid", err)`` after a delta;
    a string is streamed as the reply."""

    def __init__(self, name: str, outcomes: list[object], window: int | None = None) -> None:
        self.name = name
        self.outcomes = list(outcomes)
        self.requests: list[Request] = []
        self.window = window

    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        out = self.outcomes.pop(0)
        if isinstance(out, APIError):
            raise out
        if isinstance(out, tuple):
            yield StreamEvent.text_delta("partial")
            raise out[1]
        yield StreamEvent.text_delta(str(out))
        msg = Message(role="assistant", blocks=[Block.text_block(str(out))], model=request.model)
        yield StreamEvent.done(msg, Usage(input=1, output=1), StopReason.END_TURN)

    async def context_window(self, model: str) -> int | None:
        return self.window

    async def supports_tools(self, model: str) -> bool | None:
        return True if self.window else None


async def collect(provider, request: Request) -> list[StreamEvent]:
    return [ev async for ev in provider.stream(request)]


def endpoint(
    kind: str,
    base_url: str,
    api_key: str | None = "dummy-key",
    *,
    name: str | None = None,
    headers: dict[str, str] | None = None,
    key_names: tuple[str, ...] = (),
) -> Endpoint:
    """An Endpoint for building an adapter straight at a loopback server (the key variables
    named in messages are the provider's or the kind's, as routing would give)."""
    from larik.llm import registry

    if not key_names:
        spec, entry = registry.get(name or kind), registry.kind(kind)
        key_names = (spec.credential_env_names if spec else ()) or (
            entry.credential_env_names + entry.optional_key_env if entry else ()
        )
    return Endpoint(
        name=name or kind,
        kind=kind,
        base_url=base_url,
        api_key=api_key,
        key_names=key_names,
        headers=headers or {},
    )
