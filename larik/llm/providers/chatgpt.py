"""The ``chatgpt`` kind: the Responses API adapter on the backend a ChatGPT plan pays for.

Composed on :class:`~.openai_responses.OpenAIResponsesProvider` (the same events, conversion
and error mapping); what differs is how the backend is reached, as Codex reaches it
(codex-rs/core; pi's openai-codex-responses.ts):

* **URL**: ``https://chatgpt.com/backend-api/codex`` + ``/responses`` (the endpoint's base URL:
  ``[providers.chatgpt] base_url`` or ``LARIK_CHATGPT_BASE_URL`` move it, never a project).
* **Headers**: ``Authorization: Bearer <access token>`` of the signed-in account (refreshed
  under the account's lock before it expires), ``chatgpt-account-id`` (the token's
  ``chatgpt_account_id`` claim), ``OpenAI-Beta: responses=experimental``, ``originator:
  codex_cli_rs`` and a ``session_id`` per adapter.
* **Body**: ``store: false``, ``stream: true`` (the SDK's), ``instructions`` always present,
  encrypted reasoning included, ``prompt_cache_key`` = the session id; no
  ``max_output_tokens`` (the backend refuses it).
* **Replay**: reasoning is stamped ``chatgpt:<account key>``, so it is replayed only to the
  same provider, model *and account*.
* **Errors**: a 401 is :class:`~larik.llm.errors.LoginExpired` (``larik login chatgpt``); a
  spent usage window (``usage_limit_reached``, 429) is
  :class:`~larik.llm.errors.QuotaExceeded` with its reset time (the body's ``resets_at`` /
  ``resets_in_seconds``, else the spent window's reset header).
* **Quota**: the ``x-codex-*`` headers of every answer (:mod:`larik.llm.signin.quota`).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncGenerator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..errors import APIError, LoginExpired, NotSignedIn, QuotaExceeded
from ..signin import SIGNINS
from ..signin import quota as quotas
from ..signin.store import AccountStore
from ..types import Request, StreamEvent
from .openai_responses import CONNECT_TIMEOUT, OpenAIResponsesProvider

if TYPE_CHECKING:
    from ..endpoint import Endpoint
    from ..signin.store import Account

__all__ = ["ChatGPTProvider", "plan_error"]

SIGNIN = SIGNINS["chatgpt"]
_LIMIT_TYPES = ("usage_limit_reached", "usage_not_included")


class ChatGPTProvider(OpenAIResponsesProvider):
    """``ChatGPTProvider(endpoint, **options)``: options as the ``openai`` kind's."""

    def __init__(self, endpoint: Endpoint, **options: Any) -> None:
        super().__init__(endpoint, **options)
        self.session_id = str(uuid.uuid4())
        self.account: Account | None = endpoint.account
        self._store = AccountStore(endpoint.accounts_dir) if endpoint.accounts_dir else None
        if self.account is not None:
            self.replay_name = f"{self.name}:{self.account.key}"
        self.quota: quotas.Quota | None = None

    # -- the account ------------------------------------------------------------------------
    async def _fresh(self) -> Account:
        account = self.account
        if account is None:
            raise NotSignedIn(self.name, SIGNIN.command)
        if not account.expired():
            return account
        from ..signin import chatgpt

        if self._store is None:
            raise LoginExpired(self.name, SIGNIN.command)
        store, auth = self._store, self.endpoint.auth_url
        new = await asyncio.to_thread(store.fresh, account, lambda a: chatgpt.refresh(a, auth))
        if new.access_token != account.access_token:
            self._client = None  # the next client carries the new token
        self.account = new
        return new

    def _sdk_client(self) -> Any:
        if self._client is None:
            import httpx2
            import openai

            account = self.account
            assert account is not None  # _fresh ran
            headers = {
                **self.endpoint.headers,
                "chatgpt-account-id": account.account_id,
                "OpenAI-Beta": "responses=experimental",
                "originator": "codex_cli_rs",
                "session_id": self.session_id,
            }
            timeout = httpx2.Timeout(self._timeout, connect=CONNECT_TIMEOUT)
            http = httpx2.AsyncClient(
                timeout=timeout, follow_redirects=False, event_hooks={"response": [self._seen]}
            )
            client = openai.AsyncOpenAI(
                api_key=account.access_token,
                base_url=self.endpoint.base_url,
                default_headers=headers,
                max_retries=0,
                timeout=timeout,
                http_client=http,
            )
            client.organization = None
            client.project = None
            self._client = client
        return self._client

    async def _seen(self, response: Any) -> None:
        """Every answer's usage windows (a 429's too)."""
        found = quotas.from_headers(response.headers)
        if found is None:
            return
        self.quota = found
        quotas.record(self.name, found)
        if self._store is not None and self.account is not None:
            quotas.save(self._store, self.account, found)

    def params(self, request: Request) -> dict[str, Any]:
        params = super().params(request)
        params.pop("max_output_tokens", None)
        params.setdefault("instructions", "")
        params["prompt_cache_key"] = self.session_id
        return params

    # -- streaming --------------------------------------------------------------------------
    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        await self._fresh()
        try:
            async for ev in super().stream(request):
                yield ev
        except (LoginExpired, QuotaExceeded):
            raise
        except APIError as e:
            raise plan_error(e, self.name, self.quota) from e


def plan_error(err: APIError, provider: str, seen: quotas.Quota | None = None) -> APIError:
    """A backend error in the plan's terms: 401 = sign in again; a spent window = quota."""
    if err.status == 401:
        return LoginExpired(provider, SIGNIN.command, "the backend refused the sign-in")
    if err.status != 429:
        return err
    cause: Any = err.__cause__
    body = getattr(cause, "body", None)
    body = body if isinstance(body, dict) else {}
    kind = str(body.get("type") or body.get("code") or "")
    response = getattr(cause, "response", None)
    headers = getattr(response, "headers", None) or {}
    window = quotas.from_headers(headers) or seen
    if kind not in _LIMIT_TYPES and quotas.reset_time(window) is None:
        return err  # a plain rate limit: retried as one
    now = time.time()
    resets_at = _number(body.get("resets_at"))
    after = _number(body.get("resets_in_seconds"))
    if resets_at is None and after is not None:
        resets_at = now + after
    resets_at = resets_at or quotas.reset_time(window)
    if resets_at is None and err.retry_after:
        resets_at = now + err.retry_after
    plan = str(body.get("plan_type") or (window.plan if window else "") or "")[:40]
    what = "usage limit reached" + (f" ({plan} plan)" if plan else "")
    when = f"; resets {_when(resets_at, now)}" if resets_at else ""
    return QuotaExceeded(f"{what}{when}", resets_at=resets_at, provider=provider)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def _when(at: float, now: float) -> str:
    left = max(0, int(at - now))
    hours, minutes = divmod(left // 60, 60)
    span = f"{hours}h {minutes:02d}m" if hours else f"{minutes}m"
    return f"at {datetime.fromtimestamp(at).strftime('%a %H:%M')} (in {span})"
