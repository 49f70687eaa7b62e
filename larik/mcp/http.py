"""A URL MCP server's HTTP side: the client (the config's headers and, with
``auth = "oauth"``, its OAuth login with its token file) and the last HTTP error status the
server answered — the SDK reports it only as "an error response"."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from .config import ExpandedServer, McpServerConfig

__all__ = ["HttpLink"]


class HttpLink:
    """One URL server's HTTP client, made again at each start (:meth:`streams`)."""

    def __init__(self, name: str, config: McpServerConfig) -> None:
        self.name = name
        self.config = config
        self.status = 0  # the last HTTP error status the server answered
        self.oauth: Any = None  # the server's SafeOAuth (auth = "oauth")

    @property
    def problem(self) -> str:
        """Why the OAuth login failed ("": it did not)."""
        return str(getattr(self.oauth, "problem", "") or "")

    def streams(
        self,
        exp: ExpandedServer,
        stack: AsyncExitStack,
        *,
        show: Callable[[str], None] | None,
        waiting: Callable[[str], None],
    ) -> Any:
        """The SDK's transport to ``exp.url``. An OAuth login shows its URL with ``show``
        (None: no one can see one) and says with ``waiting`` when it waits for the browser
        (the URL) and when it is done ("")."""
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        auth = self._oauth_for(exp.url, show, waiting) if self.config.auth == "oauth" else None
        http = create_mcp_http_client(headers=exp.headers or None, auth=auth)
        http.event_hooks["response"].append(self._on_response)
        return _entered(stack, http, streamable_http_client(exp.url, http_client=http))

    def _oauth_for(
        self, url: str, show: Callable[[str], None] | None, waiting: Callable[[str], None]
    ) -> Any:
        """The SDK's OAuth client for this server, with its token file and login hand-off."""
        from ..config import state_dir
        from .oauth import SafeOAuth, TokenFile, token_path

        self.oauth = SafeOAuth(
            url,
            TokenFile(token_path(state_dir(), self.name, url)),
            show=show,
            waiting=waiting,
            no_login=(
                "needs an OAuth login, and this run cannot show one (not in a terminal): "
                f"log in once with `larik mcp login {self.name}`; the token is kept"
            ),
            client_id=self.config.client_id,
            callback_port=self.config.callback_port,
        )
        return self.oauth

    async def _on_response(self, response: Any) -> None:
        """Keep an HTTP error status: the SDK reports it only as "an error response"."""
        if response.status_code >= 400:
            self.status = response.status_code


@asynccontextmanager
async def _entered(stack: AsyncExitStack, http: Any, transport: Any) -> AsyncIterator[Any]:
    async with http, transport as streams:
        yield streams
