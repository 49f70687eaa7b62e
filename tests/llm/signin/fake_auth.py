"""Loopback fakes of the sign-in servers, from the shapes in the public clients' code.

``FakeAuth`` is OpenAI's auth server as Codex and pi talk to it (``/oauth/authorize`` redirects
the browser back with ``code`` and ``state``; ``/oauth/token`` takes ``authorization_code``
with the PKCE verifier, and ``refresh_token`` — each refresh token good for one use, as
OpenAI's are; ``/api/accounts/deviceauth/*``) and GitHub as the Copilot plugins talk to it
(``/login/device/code``, ``/login/oauth/access_token``, ``/user``,
``/copilot_internal/v2/token``). Tokens are unsigned JWTs carrying the claims the clients read.

Lies on demand: ``fake.lie = "state"`` (the browser comes back with another state),
``"other-account"`` (tokens naming two accounts), ``"huge"`` (a 1 MiB token answer),
``"malformed"`` (not JSON), ``"redirect"`` (the token endpoint answers 307 elsewhere),
``"api-host"`` (the Copilot token names a non-Copilot API host), ``"refresh-other"`` (a refresh
answered with another account's token), ``"verification"`` (a device page on plain http).
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

ACCOUNT = "acct-1234"
OTHER = "acct-9999"


def jwt(claims: dict[str, Any]) -> str:
    def part(d: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(d).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none'})}.{part(claims)}.c2lnbmF0dXJl"


def chatgpt_tokens(n: int, account: str = ACCOUNT, *, exp_in: float = 3600) -> dict[str, str]:
    auth = {"chatgpt_account_id": account, "chatgpt_plan_type": "plus"}
    claim = "https://api.openai.com/auth"
    return {
        "id_token": jwt({"email": "ada@example.com", claim: auth, "n": n}),
        "access_token": jwt(
            {claim: auth, "exp": int(time.time() + exp_in), "n": n, "pad": "a" * 20}
        ),
        "refresh_token": f"rt-{account}-{n:04d}-secret",
    }


class FakeAuth:
    def __init__(self) -> None:
        self.lie = ""
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.refreshes = 0
        self.hold_refresh = 0.0  # seconds a refresh answer waits (unless a second one arrives)
        self.exp_in = 3600.0
        self.pending_polls = 1
        self._lock = threading.Lock()
        self._codes: dict[str, dict[str, str]] = {}
        self._refresh_ok: set[str] = set()
        self._n = 0
        self._second = threading.Event()
        self.gh_token = "gho_fakeGitHubToken123456"
        self.copilot_n = 0
        self.copilot_exp_in = 1500.0
        self.api_url = ""  # set by start(): the fake Copilot API
        self.httpd: ThreadingHTTPServer | None = None

    # -- server -------------------------------------------------------------------------------
    def start(self) -> FakeAuth:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a: Any) -> None:
                pass

            def do_GET(self) -> None:
                fake._handle(self, "GET")

            def do_POST(self) -> None:
                fake._handle(self, "POST")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        self.api_url = self.url
        return self

    def stop(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()

    @property
    def url(self) -> str:
        assert self.httpd is not None
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def paths(self) -> list[str]:
        return [p for _, p, _ in self.requests]

    # -- dispatch -----------------------------------------------------------------------------
    def _handle(self, h: BaseHTTPRequestHandler, method: str) -> None:
        parts = urlsplit(h.path)
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        if h.headers.get("Content-Type", "").startswith("application/json"):
            form = {k: str(v) for k, v in (json.loads(raw or b"{}")).items()}
        else:
            form = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
        form.update({f"q:{k}": v[0] for k, v in parse_qs(parts.query).items()})
        form["h:authorization"] = h.headers.get("Authorization", "")
        form["h:editor-version"] = h.headers.get("Editor-Version", "")
        with self._lock:
            self.requests.append((method, parts.path, form))
        route = {
            ("GET", "/oauth/authorize"): self._authorize,
            ("POST", "/oauth/token"): self._token,
            ("POST", "/api/accounts/deviceauth/usercode"): self._usercode,
            ("POST", "/api/accounts/deviceauth/token"): self._device_token,
            ("POST", "/login/device/code"): self._gh_device,
            ("POST", "/login/oauth/access_token"): self._gh_token,
            ("GET", "/user"): self._gh_user,
            ("GET", "/copilot_internal/v2/token"): self._copilot_token,
            ("GET", "/models"): self._copilot_models,
        }.get((method, parts.path))
        if route is None:
            return self._send(h, 404, {"error": "not_found"})
        route(h, form)

    def _send(
        self,
        h: BaseHTTPRequestHandler,
        status: int,
        body: Any,
        headers: dict[str, str] | None = None,
    ) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        try:
            h.wfile.write(data)
        except OSError:
            pass

    # -- OpenAI -------------------------------------------------------------------------------
    def _authorize(self, h: BaseHTTPRequestHandler, f: dict[str, str]) -> None:
        code = f"code-{len(self._codes)}"
        self._codes[code] = {
            "challenge": f["q:code_challenge"],
            "redirect_uri": f["q:redirect_uri"],
        }
        state = "not-yours" if self.lie == "state" else f["q:state"]
        target = f"{f['q:redirect_uri']}?{urlencode({'code': code, 'state': state})}"
        self._send(h, 302, {}, {"Location": target})

    def _tokens_answer(self, h: BaseHTTPRequestHandler, tokens: dict[str, str]) -> None:
        if self.lie == "huge":
            return self._send(h, 200, {**tokens, "junk": "x" * (1024 * 1024)})
        if self.lie == "malformed":
            return self._send(h, 200, b"<html>not json " + tokens["access_token"].encode())
        if self.lie == "redirect":
            return self._send(h, 307, {}, {"Location": "http://127.0.0.1:9/steal"})
        if self.lie == "redirect-away":  # to a host that is not this machine
            return self._send(h, 307, {}, {"Location": "https://evil.example/steal"})
        if self.lie == "other-account":
            tokens = {**tokens, "access_token": chatgpt_tokens(0, OTHER)["access_token"]}
        with self._lock:
            self._refresh_ok.add(tokens["refresh_token"])
        self._send(h, 200, {**tokens, "expires_in": int(self.exp_in)})

    def _next(self, account: str = ACCOUNT) -> dict[str, str]:
        with self._lock:
            self._n += 1
            n = self._n
        return chatgpt_tokens(n, account, exp_in=self.exp_in)

    def _token(self, h: BaseHTTPRequestHandler, f: dict[str, str]) -> None:
        if f.get("grant_type") == "authorization_code":
            issued = self._codes.pop(f.get("code", ""), None)
            verifier = f.get("code_verifier", "")
            challenge = (
                base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
                .rstrip(b"=")
                .decode()
            )
            ok = (
                issued is not None
                and issued["challenge"] == challenge
                and issued["redirect_uri"] == f.get("redirect_uri")
            )
            ok = ok or (
                f.get("code", "").startswith("device-")
                and f.get("redirect_uri", "").endswith("/deviceauth/callback")
            )
            if not ok:
                return self._send(
                    h, 400, {"error": "invalid_grant", "error_description": "bad code"}
                )
            return self._tokens_answer(h, self._next())
        if f.get("grant_type") == "refresh_token":
            with self._lock:
                self.refreshes += 1
                first = self.refreshes == 1
                valid = f.get("refresh_token", "") in self._refresh_ok
                self._refresh_ok.discard(f.get("refresh_token", ""))
            if not first:
                self._second.set()
            elif self.hold_refresh:
                self._second.wait(self.hold_refresh)  # a racing second refresh shows at once
            if not valid:
                return self._send(
                    h, 401, {"error": "refresh_token_reused", "error_description": "already used"}
                )
            account = OTHER if self.lie == "refresh-other" else ACCOUNT
            return self._tokens_answer(h, self._next(account))
        self._send(h, 400, {"error": "unsupported_grant_type"})

    def grant(self, refresh_token: str) -> None:
        """Make ``refresh_token`` one this server accepts (a login read from elsewhere)."""
        with self._lock:
            self._refresh_ok.add(refresh_token)

    def _usercode(self, h: BaseHTTPRequestHandler, f: dict[str, str]) -> None:
        self._send(h, 200, {"device_auth_id": "dev-1", "user_code": "ABCD-1234", "interval": "0"})

    def _device_token(self, h: BaseHTTPRequestHandler, f: dict[str, str]) -> None:
        if self.pending_polls > 0:
            self.pending_polls -= 1
            return self._send(h, 403, {"error": "authorization_pending"})
        self._send(
            h,
            200,
            {"authorization_code": "device-code-1", "code_challenge": "c", "code_verifier": "v"},
        )

    # -- GitHub -------------------------------------------------------------------------------
    def _gh_device(self, h: BaseHTTPRequestHandler, f: dict[str, str]) -> None:
        uri = (
            "http://github.example/login/device"
            if self.lie == "verification"
            else f"{self.url}/login/device"
        )
        self._send(
            h,
            200,
            {
                "device_code": "dc-1",
                "user_code": "WXYZ-9876",
                "verification_uri": uri,
                "interval": 0,
                "expires_in": 900,
            },
        )

    def _gh_token(self, h: BaseHTTPRequestHandler, f: dict[str, str]) -> None:
        if self.pending_polls > 0:
            self.pending_polls -= 1
            return self._send(h, 200, {"error": "authorization_pending"})
        self._send(
            h, 200, {"access_token": self.gh_token, "token_type": "bearer", "scope": "read:user"}
        )

    def _gh_user(self, h: BaseHTTPRequestHandler, f: dict[str, str]) -> None:
        if f["h:authorization"] != f"token {self.gh_token}":
            return self._send(h, 401, {"message": "Bad credentials"})
        self._send(h, 200, {"login": "octo", "id": 42})

    def _copilot_models(self, h: BaseHTTPRequestHandler, f: dict[str, str]) -> None:
        if not f["h:authorization"].startswith("Bearer tid="):
            return self._send(h, 401, {"message": "Bad credentials"})
        listing = [
            {"id": "claude-sonnet-4.5", "supported_endpoints": ["/v1/messages"]},
            {"id": "gpt-5.5", "supported_endpoints": ["/responses"]},
        ]
        self._send(h, 200, {"data": listing})

    def _copilot_token(self, h: BaseHTTPRequestHandler, f: dict[str, str]) -> None:
        if f["h:authorization"] != f"token {self.gh_token}":
            return self._send(h, 401, {"message": "Bad credentials"})
        with self._lock:
            self.copilot_n += 1
            n = self.copilot_n
        api = "https://api.evil.example" if self.lie == "api-host" else self.api_url
        self._send(
            h,
            200,
            {
                "token": f"tid=abc;exp={int(time.time() + self.copilot_exp_in)};n={n};sku=copilot_individual",
                "expires_at": int(time.time() + self.copilot_exp_in),
                "refresh_in": int(self.copilot_exp_in) - 60,
                "sku": "copilot_individual",
                "endpoints": {"api": api},
            },
        )
