"""The ``copilot`` kind: GitHub Copilot's chat API, through the OpenAI-compatible adapter.

Composed on :class:`~.openai_compat.OpenAICompatProvider` (Chat Completions): the base URL is
the API URL the account's Copilot token exchange named (individual, business and enterprise
seats differ; ``[providers.copilot] base_url`` or ``LARIK_COPILOT_BASE_URL`` move it, never a
project), the key is the short-lived Copilot token (exchanged again under the account's lock
before it expires), and every request carries the editor identity headers Copilot requires
(:data:`larik.llm.signin.copilot.EDITOR_HEADERS`) and ``Openai-Intent: conversation-edits``.
A 401 is :class:`~larik.llm.errors.LoginExpired` (``larik login copilot``).
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
from .openai_compat import OpenAICompatProvider

if TYPE_CHECKING:
    from ..endpoint import Endpoint
    from ..signin.store import Account

__all__ = ["CopilotProvider"]

SIGNIN = SIGNINS["copilot"]


class CopilotProvider:
    """``CopilotProvider(endpoint, **options)``: options as the openai-compatible kind's."""

    def __init__(self, endpoint: Endpoint, **options: Any) -> None:
        self.endpoint = endpoint
        self.name = endpoint.name
        self.options = options
        self.account: Account | None = endpoint.account
        self._store = AccountStore(endpoint.accounts_dir) if endpoint.accounts_dir else None
        self._inner: OpenAICompatProvider | None = None
        self._token = ""

    async def _adapter(self) -> OpenAICompatProvider:
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
        if self._inner is None or account.access_token != self._token:
            from ..signin.copilot import EDITOR_HEADERS

            headers = {
                **EDITOR_HEADERS,
                "Openai-Intent": "conversation-edits",
                **self.endpoint.headers,
            }
            endpoint = replace(self.endpoint, api_key=account.access_token, headers=headers)
            self._inner = OpenAICompatProvider(endpoint, **self.options)
            self._token = account.access_token
        return self._inner

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        inner = await self._adapter()
        try:
            async for ev in inner.stream(request):
                yield ev
        except APIError as e:
            if e.status == 401 and not isinstance(e, LoginExpired):
                raise LoginExpired(self.name, SIGNIN.command, "Copilot refused the sign-in") from e
            raise
