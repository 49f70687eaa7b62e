"""The ``copilot`` kind: GitHub Copilot's API in the three shapes it serves.

The base URL is the API URL the account's Copilot token exchange named (individual, business
and enterprise seats differ; ``[providers.copilot] base_url`` or ``LARIK_COPILOT_BASE_URL``
move it, never a project); the key is the short-lived Copilot token (exchanged again under the
account's lock before it expires). Each model goes to the shape Copilot serves it in
(:func:`larik.llm.signin.copilot_models.shape_for`: the seat's ``/models`` listing, else
OpenCode's rule), each an existing adapter composed with Copilot's rules:

* ``chat`` — Chat Completions, :class:`~.openai_compat.OpenAICompatProvider`;
* ``responses`` — the Responses API (GPT-5 and later), :class:`~.openai_responses.
  OpenAIResponsesProvider`; its encrypted reasoning is stamped ``copilot:<account key>``;
* ``anthropic`` — the Messages API at ``{api}/v1/messages`` (Claude models),
  :class:`~.anthropic.AnthropicProvider` with ``anthropic-beta: interleaved-thinking-…``; the
  token goes as ``Authorization: Bearer`` and no ``x-api-key`` is ever sent (the SDK would
  otherwise fall back to ``ANTHROPIC_API_KEY``); thinking is stamped per account too.

Every request carries the editor identity headers (:data:`larik.llm.signin.copilot.
EDITOR_HEADERS`), ``Openai-Intent: conversation-edits``, ``X-Initiator`` — ``user`` when the
call answers the user's own prompt, ``agent`` for tool results, a subagent or a compaction
(``Request.initiator``): Copilot bills premium requests by it — and ``Copilot-Vision-Request:
true`` when the conversation holds an image. A 401 is :class:`~larik.llm.errors.LoginExpired`
(``larik login copilot``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import APIError, LoginExpired, NotSignedIn
from ..signin import SIGNINS
from ..signin.store import AccountStore
from ..types import Request, StreamEvent
from .anthropic import AnthropicProvider
from .openai_compat import OpenAICompatProvider
from .openai_responses import OpenAIResponsesProvider

if TYPE_CHECKING:
    from ..endpoint import Endpoint
    from ..signin.copilot_models import Listing
    from ..signin.store import Account

__all__ = ["CopilotProvider", "initiator", "request_headers"]

SIGNIN = SIGNINS["copilot"]
ANTHROPIC_BETA = "interleaved-thinking-2025-05-14"


def initiator(request: Request) -> str:
    """``user`` when the call answers the user's own prompt, else ``agent``."""
    if request.initiator:
        return request.initiator
    last = request.messages[-1] if request.messages else None
    if last is None or last.role != "user":
        return "agent"
    return "user" if any(b.type != "tool_result" for b in last.blocks) else "agent"


def _vision(request: Request) -> bool:
    return any(
        b.type == "image" or (b.type == "tool_result" and bool(b.images))
        for m in request.messages
        for b in m.blocks
    )


def request_headers(request: Request) -> dict[str, str]:
    """The headers that depend on the call (the rest are the editor's, on every call)."""
    out = {"X-Initiator": initiator(request)}
    if _vision(request):
        out["Copilot-Vision-Request"] = "true"
    return out


class _Stamped:
    """An inner adapter's HTTP client: its request hook puts the call's headers on (and, for
    the Messages shape, the token as a bearer and no ``x-api-key``)."""

    owner: CopilotProvider
    bearer = False

    def _http_client(self) -> Any:
        import httpx2

        owner, bearer = self.owner, self.bearer

        async def stamp(req: Any) -> None:
            for name, value in owner.pending.items():
                req.headers[name] = value
            if bearer:
                req.headers.pop("x-api-key", None)
                req.headers["Authorization"] = f"Bearer {owner.token}"

        return httpx2.AsyncClient(follow_redirects=False, event_hooks={"request": [stamp]})


class _Chat(_Stamped, OpenAICompatProvider):
    pass


class _Responses(_Stamped, OpenAIResponsesProvider):
    pass


class _Messages(_Stamped, AnthropicProvider):
    bearer = True


_SHAPES: dict[str, type[Any]] = {"chat": _Chat, "responses": _Responses, "anthropic": _Messages}


class CopilotProvider:
    """``CopilotProvider(endpoint, **options)``: options as the openai-compatible kind's."""

    def __init__(self, endpoint: Endpoint, **options: Any) -> None:
        self.endpoint = endpoint
        self.name = endpoint.name
        self.options = options
        self.account: Account | None = endpoint.account
        self._store = AccountStore(endpoint.accounts_dir) if endpoint.accounts_dir else None
        self._inner: dict[str, Any] = {}
        self.token = ""
        self.pending: dict[str, str] = {}  # the running call's headers (one call at a time)
        self._listing: Listing | None = None
        self._listed = False

    async def _fresh(self) -> Account:
        account = self.account
        if account is None:
            raise NotSignedIn(self.name, SIGNIN.command)
        if account.expired():
            from ..signin import copilot

            if self._store is None:
                raise LoginExpired(self.name, SIGNIN.command)
            store, auth = self._store, self.endpoint.auth_url
            account = await asyncio.to_thread(
                store.fresh, account, lambda a: copilot.refresh(a, auth)
            )
            self.account = account
        if account.access_token != self.token:
            self._inner.clear()  # the next adapters carry the new token
            self.token = account.access_token
        return account

    async def _listing_now(self, account: Account) -> Listing | None:
        """The seat's listing as kept beside the login; read again once it is a day old (a
        failure keeps the old one: a model's shape then follows its name)."""
        if self._listed or self._store is None:
            return self._listing
        from ..errors import LarikError
        from ..signin import copilot_models

        self._listed = True
        store = self._store
        self._listing = copilot_models.load(store, account)
        if self._listing is not None and self._listing.stale:
            try:
                fresh = await asyncio.to_thread(
                    copilot_models.fetch, account, self.endpoint.base_url, self.endpoint.auth_url
                )
            except LarikError:
                return self._listing
            copilot_models.save(store, account, fresh)
            self._listing = fresh
        return self._listing

    def shape(self, model: str) -> str:
        from ..signin.copilot_models import shape_for

        found = self._listing.get(model) if self._listing is not None else None
        return found.shape if found is not None else shape_for(model)

    def _adapter(self, shape: str, account: Account) -> Any:
        inner = self._inner.get(shape)
        if inner is not None:
            return inner
        from ..signin.copilot import EDITOR_HEADERS

        headers = {**EDITOR_HEADERS, "Openai-Intent": "conversation-edits"}
        if shape == "anthropic":
            headers["anthropic-beta"] = ANTHROPIC_BETA
        endpoint = replace(
            self.endpoint,
            api_key=account.access_token,
            headers={**headers, **self.endpoint.headers},
        )
        inner = _SHAPES[shape](endpoint, **self.options)
        inner.owner = self
        if shape != "chat":  # reasoning replayed only to the same model of the same account
            inner.replay_name = f"{self.name}:{account.key}"
        self._inner[shape] = inner
        return inner

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        account = await self._fresh()
        await self._listing_now(account)
        inner = self._adapter(self.shape(request.model), account)
        self.pending = request_headers(request)
        try:
            async for ev in inner.stream(request):
                yield ev
        except APIError as e:
            if e.status == 401 and not isinstance(e, LoginExpired):
                raise LoginExpired(self.name, SIGNIN.command, "Copilot refused the sign-in") from e
            raise
