"""A real MCP server behind OAuth for the tests, written with the SDK's own server auth support
(``mcp.server.auth``: its routes for metadata, registration, authorize and token, its bearer
middleware) and an in-memory authorization server provider.

    python auth_server_script.py PORT [--expires S] [--no-refresh] [--lie FIELD=URL]...
        [--lie-prm FIELD=VALUE]...
        [--instructions TEXT] [--log FILE]

``/authorize`` approves at once (no login page): it redirects straight back to the client's
redirect URI with a code, so a test plays the browser by GETting the authorization URL and
following the redirect. ``--expires``: access tokens live S seconds. ``--no-refresh``: a refresh
is refused (the client must log in again). ``--lie``: the authorization server metadata names
URL as FIELD (``token_endpoint``, ``registration_endpoint``, ...), as a lying server would;
``--lie-prm``: the same for the protected-resource metadata (``authorization_servers``).
``--log``: one line per token request (``code``, ``refresh``) and per tool call.

The tests serve ``app_for(ARGS)`` in a thread of their own process (tests/mcp/conftest.py):
a process of its own imported the SDK afresh for each server, 1.5-2 s of CPU.
"""

from __future__ import annotations

import json
import secrets
import sys
import time

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


def _log(path: str, line: str) -> None:
    if path:
        with open(path, "a") as f:
            f.write(line + "\n")


class Provider:
    """An authorization server that approves every request (the user always says yes)."""

    def __init__(self, expires: int, refresh: bool, log: str) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.expires, self.allow_refresh, self.log = expires, refresh, log

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        _log(self.log, "register")
        self.clients[client_info.client_id or ""] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or ["mcp"],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code: str):  # type: ignore[no-untyped-def]
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = "at-" + secrets.token_urlsafe(24), "rt-" + secrets.token_urlsafe(24)
        self.access[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time()) + self.expires,
            resource=resource,
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes)
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=self.expires,
            refresh_token=refresh,
            scope=" ".join(scopes),
        )

    async def exchange_authorization_code(self, client, authorization_code):  # type: ignore[no-untyped-def]
        _log(self.log, "code")
        self.codes.pop(authorization_code.code, None)
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client, refresh_token: str):  # type: ignore[no-untyped-def]
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client, refresh_token, scopes):  # type: ignore[no-untyped-def]
        _log(self.log, "refresh")
        if not self.allow_refresh:
            raise TokenError(error="invalid_grant", error_description="refresh refused")
        self.refresh.pop(refresh_token.token, None)
        return self._issue(client.client_id, scopes or refresh_token.scopes, None)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token) -> None:  # type: ignore[no-untyped-def]
        self.access.pop(getattr(token, "token", ""), None)


def lying(app, lies: dict[str, str], document: str = "oauth-authorization-server"):  # type: ignore[no-untyped-def]
    """The ASGI app, with the fields of one metadata ``document`` replaced by ``lies`` (a
    value starting with ``[`` is a JSON list)."""

    async def wrapped(scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] != "http" or document not in scope["path"] or not lies:
            return await app(scope, receive, send)
        parts: list[bytes] = []

        async def capture(message):  # type: ignore[no-untyped-def]
            if message["type"] == "http.response.body":
                parts.append(message.get("body", b""))
                if not message.get("more_body"):
                    data = json.loads(b"".join(parts))
                    data.update({k: json.loads(v) if v[:1] == "[" else v for k, v in lies.items()})
                    body = json.dumps(data).encode()
                    await send(
                        {
                            "type": "http.response.start",
                            "status": 200,
                            "headers": [
                                (b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                            ],
                        }
                    )
                    await send({"type": "http.response.body", "body": body})

        await app(scope, receive, capture)

    return wrapped


def app_for(args: list[str]):  # type: ignore[no-untyped-def]
    """The server's ASGI app for these arguments (the script's, PORT first)."""
    port = int(args[0])

    def opt(name: str, default: str = "") -> str:
        return args[args.index(name) + 1] if name in args else default

    lies = dict(args[i + 1].split("=", 1) for i, a in enumerate(args) if a == "--lie")
    prm_lies = dict(args[i + 1].split("=", 1) for i, a in enumerate(args) if a == "--lie-prm")
    log = opt("--log")
    base = f"http://127.0.0.1:{port}"
    provider = Provider(int(opt("--expires", "3600")), "--no-refresh" not in args, log)

    from mcp.server.mcpserver import MCPServer

    app = MCPServer(
        "auth-test-server",
        instructions=opt("--instructions", "Use the whoami tool to learn who you are."),
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,  # type: ignore[arg-type]
            resource_server_url=f"{base}/mcp",  # type: ignore[arg-type]
            validate_token_resource=False,
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=["mcp"]
            ),
            required_scopes=["mcp"],
        ),
    )

    @app.tool()
    def whoami() -> str:
        """Who the caller is, and the token it sent (a careless server echoing a secret)."""
        from mcp.server.auth.middleware.auth_context import get_access_token

        token = get_access_token()
        _log(log, "call whoami")
        return (
            f"client {token.client_id if token else '?'} with token {token.token if token else '?'}"
        )

    asgi = app.streamable_http_app()
    return lying(lying(asgi, lies), prm_lies, "oauth-protected-resource")


def main() -> None:
    import uvicorn

    args = sys.argv[1:]
    uvicorn.run(app_for(args), host="127.0.0.1", port=int(args[0]), log_level="error")


if __name__ == "__main__":
    main()
