"""OAuth for streamable-HTTP MCP servers: the SDK's client (``mcp.client.auth``) with Larik's
token storage, its hand-off of the login to the front end, and its rules for where secrets go.
Imported only when a server with ``auth = "oauth"`` starts (it imports the SDK).

The flow is the SDK's ``OAuthClientProvider``: a request answered 401 -> protected-resource
metadata -> authorization-server metadata -> dynamic client registration (unless a ``client_id``
is configured) -> the authorization URL is handed to the front end (:class:`SafeOAuth` ``show``:
the TUI's notice, print mode's stderr, ``larik mcp login``) while a listener on 127.0.0.1 waits
for the browser's redirect -> the code is exchanged for tokens -> the request is retried. An
expired token is refreshed first; a refused refresh means a new login.

What Larik adds (:meth:`SafeOAuth.async_auth_flow`, :func:`endpoint_problem`): every request the
flow makes, and the authorization URL, is https, or plain http to a loopback host when the MCP
server itself is on loopback; the registration and token requests (the code, the refresh token)
go only to the authorization server's own origin (its issuer's scheme, host and port). Anything
else stops the login with a one-line reason (:attr:`SafeOAuth.problem`) before a byte is sent.

Storage (:class:`TokenFile`): ``<state>/mcp-oauth/NAME-HASH.json`` (HASH: of the server's URL, so
tokens for one URL are never sent to another that takes the same name), mode 0600 in a 0700
folder: the tokens, their expiry time, the registered client and the authorization server's
metadata (a refresh after a restart goes to the token endpoint found at login). Each token and
client secret read or written is registered with :mod:`larik.llm.secrets` (masked everywhere).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
)
from pydantic import BaseModel, ValidationError

from ..llm import jsontext, secrets
from ..llm.errors import SignInError
from ..llm.net import bare_url as _bare
from ..llm.net import is_loopback_host, login_url_problem

if TYPE_CHECKING:
    from ..llm.callback import Listener

__all__ = [
    "LOGIN_TIMEOUT",
    "OAuthStopped",
    "SafeOAuth",
    "TokenFile",
    "endpoint_problem",
    "token_path",
]

LOGIN_TIMEOUT = 300.0  # seconds a login may wait for the browser
CALLBACK_PATH = "/callback"

Show = Callable[[str], None]
_M = TypeVar("_M", bound=BaseModel)


class OAuthStopped(Exception):
    """The login was stopped (a URL broke the rules, no one to show it to, no answer in time)."""


def token_path(state: Path, name: str, url: str) -> Path:
    digest = hashlib.sha256(url.encode()).hexdigest()[:16]
    return state / "mcp-oauth" / f"{name}-{digest}.json"


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    default = {"https": 443, "http": 80}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), parts.port or default


def endpoint_problem(url: str, server_on_loopback: bool) -> str:
    """Why the OAuth flow may not use ``url`` ("" when it may): the rule of every login
    (:func:`larik.llm.net.login_url_problem`: https, or plain http to a loopback host for a
    server that is itself on loopback; a URL of at most 8,192 characters)."""
    return login_url_problem(url, server_on_loopback)


class TokenFile:
    """The SDK's ``TokenStorage`` for one server, in a 0600 JSON file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.metadata_source: Callable[[], OAuthMetadata | None] = lambda: None
        self._data = self._read()

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        for key, fields in (
            ("tokens", ("access_token", "refresh_token")),
            ("client", ("client_secret",)),
        ):
            part = data.get(key)
            if isinstance(part, dict):
                secrets.remember(*(str(part.get(f) or "") for f in fields))
        return data

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            os.fchmod(f.fileno(), 0o600)  # an old file of another mode
            jsontext.dump(self._data, f)
        os.replace(tmp, self.path)

    def _model(self, key: str, cls: type[_M]) -> _M | None:
        raw = self._data.get(key)
        try:
            return cls.model_validate(raw) if isinstance(raw, dict) else None
        except ValidationError:
            return None

    @property
    def expires_at(self) -> float | None:
        value = self._data.get("expires_at")
        return float(value) if isinstance(value, (int, float)) else None

    def metadata(self) -> OAuthMetadata | None:
        return self._model("metadata", OAuthMetadata)

    async def get_tokens(self) -> OAuthToken | None:
        return self._model("tokens", OAuthToken)

    async def set_tokens(self, tokens: OAuthToken) -> None:
        secrets.remember(tokens.access_token, tokens.refresh_token)
        self._data["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        self._data["expires_at"] = time.time() + tokens.expires_in if tokens.expires_in else None
        metadata = self.metadata_source()
        if metadata is not None:
            self._data["metadata"] = metadata.model_dump(mode="json", exclude_none=True)
        self._write()

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self._model("client", OAuthClientInformationFull)

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        secrets.remember(client_info.client_secret)
        self._data["client"] = client_info.model_dump(mode="json", exclude_none=True)
        self._write()

    def client_port(self) -> int:
        """The loopback port of the stored client's redirect URI (0: none)."""
        client = self._data.get("client")
        uris = client.get("redirect_uris") if isinstance(client, dict) else None
        for uri in uris or []:
            parts = urlsplit(str(uri))
            if parts.hostname == "127.0.0.1" and parts.port:
                return parts.port
        return 0


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class SafeOAuth(OAuthClientProvider):
    """The SDK's OAuth client with Larik's rules (see the module docstring).

    ``show(url)`` hands the authorization URL to the user; None: no one can see it (a run that
    is not in a terminal), and a login that is needed fails with ``no_login``. ``waiting(url)``
    and ``waiting("")`` bracket the wait for the browser (the server lifts its start-up
    deadline meanwhile)."""

    def __init__(
        self,
        server_url: str,
        storage: TokenFile,
        *,
        show: Show | None,
        waiting: Callable[[str], None],
        no_login: str,
        client_id: str = "",
        callback_port: int = 0,
        timeout: float = LOGIN_TIMEOUT,
    ) -> None:
        self.port = callback_port or storage.client_port() or _free_port()
        redirect = f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"
        metadata = OAuthClientMetadata(
            client_name="Larik",
            redirect_uris=[redirect],  # type: ignore[list-item]  # pydantic parses the str
            grant_types=["authorization_code", "refresh_token"],
            token_endpoint_auth_method="none",
        )
        super().__init__(
            server_url=server_url,
            client_metadata=metadata,
            storage=storage,
            redirect_handler=self._show,
            callback_handler=self._wait,
        )
        self.file = storage
        storage.metadata_source = lambda: self.context.oauth_metadata
        self.problem = ""
        self._loopback = is_loopback_host(urlsplit(server_url).hostname or "")
        self._show_url, self._waiting, self._no_login = show, waiting, no_login
        self._client_id, self._redirect, self._timeout = client_id, redirect, timeout
        self._listener: Listener | None = None

    # -- the SDK's flow, checked -----------------------------------------------------------------
    async def _initialize(self) -> None:
        # the SDK keeps neither the expiry time nor the metadata across runs: without them a
        # stored expired token is sent as it is (and a 401 means a whole new login), and a
        # refresh goes to the MCP server's own origin instead of the token endpoint
        await super()._initialize()
        self.context.token_expiry_time = self.file.expires_at
        if self.context.oauth_metadata is None:
            self.context.oauth_metadata = self.file.metadata()
        if self._client_id and (
            self.context.client_info is None
            or self.context.client_info.client_id != self._client_id
        ):
            self.context.client_info = OAuthClientInformationFull(
                client_id=self._client_id,
                redirect_uris=[self._redirect],  # type: ignore[list-item]  # pydantic parses the str
                token_endpoint_auth_method="none",
            )

    async def async_auth_flow(  # type: ignore[override]  # the same generator, checked
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = super().async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                if outgoing is not request:
                    self._check(outgoing)
                response = yield outgoing
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    def _stop(self, why: str) -> OAuthStopped:
        self.problem = why
        return OAuthStopped(why)

    def _check(self, request: httpx2.Request) -> None:
        url = str(request.url)
        why = endpoint_problem(url, self._loopback)
        if not why and request.method == "POST":
            meta = self.context.oauth_metadata
            issuer = str(meta.issuer) if meta is not None else self.context.server_url
            if _origin(url) != _origin(issuer):
                why = f"{_bare(url)} is not on the authorization server's origin ({_bare(issuer)})"
        if why:
            raise self._stop(f"OAuth login stopped: {why}")

    # -- the browser's half: larik.llm.callback's listener, waited on from a thread ----------
    async def _show(self, url: str) -> None:
        from ..llm.callback import Listener

        why = endpoint_problem(url, self._loopback)
        if why:
            raise self._stop(f"OAuth login stopped: the authorization URL {why}")
        if self._show_url is None:
            raise self._stop(self._no_login)
        state = (parse_qs(urlsplit(url).query).get("state") or [""])[0]
        try:
            self._listener = Listener(self.port, CALLBACK_PATH, state)
        except SignInError as e:
            raise self._stop(f"OAuth login: {e}") from None
        self._waiting(url)
        self._show_url(url)

    async def _wait(self) -> AuthorizationCodeResult:
        from ..llm.callback import refused

        listener = self._listener
        assert listener is not None  # _show made it
        try:
            query = await asyncio.to_thread(listener.wait, self._timeout)
        except SignInError as e:
            raise self._stop(f"OAuth login: {e}") from None
        finally:
            listener.close()  # also ends the thread's wait when this task is cancelled
            self._listener = None
            self._waiting("")
        if refused(query):
            raise self._stop(f"OAuth login refused by the server: {refused(query)}")
        return AuthorizationCodeResult(
            code=query["code"], state=query.get("state"), iss=query.get("iss")
        )
