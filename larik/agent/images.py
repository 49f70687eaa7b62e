"""Images and models that cannot take them.

A model's word on images comes from the catalog (``vision``; a model it does not know: unknown),
from its local server when the adapter can ask (``supports_images``, optional on a
``ModelProber``), and from the model itself: a request refused with an error that names images
(:func:`larik.llm.errors.unsupported_input`) settles it for the rest of the session on that
model. When a model is known not to take images, the images in the conversation are replaced by
a line of text in what is sent (:func:`without_images`); the transcript keeps them, so a switch
to a model that can take images sends them again.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING

from ..llm.errors import APIError
from ..llm.masked import masked
from ..llm.types import Block, EventType, Message, Request, StreamEvent

if TYPE_CHECKING:
    from ..routing import Resolved
    from .probe import Capabilities

__all__ = ["has_images", "not_sent_note", "refused_note", "stream", "without_images"]


async def stream(
    resolved: Resolved, request: Request, caps: Capabilities
) -> AsyncGenerator[StreamEvent, None]:
    """``resolved.provider.stream(request)`` (its deltas masked: :mod:`larik.llm.masked`),
    without the images when ``caps`` says the model does not take them. Refused for its images
    before any reply came, the request is sent again without them, after a notice, and
    ``caps.images`` is set to False for what follows."""
    if caps.images is False:
        request = _without(request, resolved.spec)
    started = False
    try:
        async with aclosing(masked(resolved.provider.stream(request))) as events:
            async for ev in events:
                started = started or ev.type is not EventType.NOTICE
                yield ev
        return
    except APIError as e:
        if started or e.unsupported != "image" or not has_images(request.messages):
            raise
        note = refused_note(e, resolved.spec)
    caps.images = False
    yield StreamEvent.notice(note)
    async with aclosing(
        masked(resolved.provider.stream(_without(request, resolved.spec)))
    ) as events:
        async for ev in events:
            yield ev


def _without(request: Request, spec: str) -> Request:
    return request.model_copy(update={"messages": without_images(request.messages, spec)})


def not_sent_note(spec: str) -> str:
    return f"[image not sent: {spec} does not take images]"


def refused_note(err: APIError, spec: str) -> str:
    """The notice when a request was refused for its images (it is sent again without them)."""
    return (
        f"{err}: {spec} does not take images; the conversation is sent without them from now on "
        "(they stay in the transcript)"
    )


def has_images(messages: list[Message]) -> bool:
    return any(b.type == "image" or b.images for m in messages for b in m.blocks)


def without_images(messages: list[Message], spec: str) -> list[Message]:
    """``messages`` with each image (a prompt's, or a tool result's) replaced by a note."""
    note = not_sent_note(spec)
    out: list[Message] = []
    for m in messages:
        if not any(b.type == "image" or b.images for b in m.blocks):
            out.append(m)
            continue
        blocks: list[Block] = []
        for b in m.blocks:
            if b.type == "image":
                blocks.append(Block.text_block(note))
            elif b.images:
                content = f"{b.content}\n{note}" if b.content else note
                blocks.append(b.model_copy(update={"images": [], "content": content}))
            else:
                blocks.append(b)
        out.append(m.model_copy(update={"blocks": blocks}))
    return out
