"""Signing in with GitHub Copilot, as the Copilot editor plugins do (pi's github-copilot.ts,
OpenCode's copilot auth).

**Device flow** (:func:`login`): ``POST https://HOST/login/device/code`` with the Copilot
plugins' public client id gives a user code and a ``verification_uri`` (checked: https), which
the user opens; polling ``POST https://HOST/login/oauth/access_token`` (grant type
``urn:ietf:params:oauth:grant-type:device_code``; ``authorization_pending`` waits,
``slow_down`` waits longer) yields a GitHub token. HOST is ``github.com`` or a GitHub Enterprise
host (``--host``).

**The Copilot token** (:func:`exchange`): ``GET https://api.HOST/copilot_internal/v2/token``
with ``Authorization: token <GitHub token>`` and the editor identity headers answers a
short-lived ``token``, its ``expires_at`` and ``refresh_in``, and ``endpoints.api`` — the API
base URL of this account's plan (individual, business and enterprise seats differ). That URL
must be https on a Copilot host (``*.githubcopilot.com``, or under the Enterprise host).
**Refresh** is the same exchange again: the GitHub token is the refresh token; a 401 means the
GitHub token was revoked (:class:`~larik.llm.errors.LoginExpired`), a 403/404 that the account
has no Copilot seat.

The stored account: access token = the Copilot token, refresh token = the GitHub token,
``extra`` = the host and the API URL; its id is the GitHub user's id (``GET /user``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from ..errors import APIError, LoginExpired, SignInError
from . import SIGNINS
from .store import Account
from .web import on_loopback, request, url_problem

__all__ = ["CLIENT_ID", "EDITOR_HEADERS", "exchange", "hosts", "login", "refresh"]

SIGNIN = SIGNINS["copilot"]
CLIENT_ID = "Iv1.b507a08c87ecfe98"
GRANT = "urn:ietf:params:oauth:grant-type:device_code"
#: The editor identity Copilot's API requires on every request (those of the VS Code plugin).
EDITOR_HEADERS = {
    "User-Agent": "GitHubCopilotChat/0.35.0",
    "Editor-Version": "vscode/1.107.0",
    "Editor-Plugin-Version": "copilot-chat/0.35.0",
    "Copilot-Integration-Id": "vscode-chat",
}
DEFAULT_API = "https://api.githubcopilot.com"
MIN_POLL = 1.0
DEVICE_TIMEOUT = 15 * 60.0


def hosts(auth_url: str, host: str = "") -> tuple[str, str]:
    """(web base, API base) of GitHub at ``host`` (default: the sign-in server's)."""
    if host:
        name = _host_name(host)
        return f"https://{name}", f"https://api.{name}"
    base = auth_url.rstrip("/")
    parts = urlsplit(base)
    if parts.hostname == "github.com" and not parts.port:
        return base, "https://api.github.com"
    if on_loopback(base):
        return base, base  # a test's fake GitHub serves both
    return base, f"{parts.scheme}://api.{parts.hostname}"


def _host_name(host: str) -> str:
    raw = host.strip()
    parts = urlsplit(raw if "://" in raw else f"https://{raw}")
    name = (parts.hostname or "").lower()
    if not name or "." not in name or parts.path not in ("", "/"):
        raise SignInError(f"--host {host!r}: give a GitHub Enterprise host name (acme.ghe.com)")
    return name


def api_problem(api: str, host: str, auth_url: str) -> str:
    """Why the Copilot API URL a token answer named may not be used ("" when it may)."""
    why = url_problem(api, on_loopback(auth_url))
    if why:
        return why
    name = (urlsplit(api).hostname or "").lower()
    if on_loopback(auth_url) and on_loopback(api):
        return ""
    if name == "githubcopilot.com" or name.endswith(".githubcopilot.com"):
        return ""
    if host and host != "github.com" and name.endswith("." + host):
        return ""
    return f"{name} is not a Copilot host"


def login(
    auth_url: str,
    *,
    show: Callable[[str, str], None],
    host: str = "",
    timeout: float = DEVICE_TIMEOUT,
) -> Account:
    """GitHub's device flow, then the Copilot token exchange (see the module docstring)."""
    web, api = hosts(auth_url, host)
    what = "GitHub sign-in"
    headers = {"User-Agent": EDITOR_HEADERS["User-Agent"]}
    answer = request(
        "POST",
        f"{web}/login/device/code",
        what=what,
        server=auth_url,
        form={"client_id": CLIENT_ID, "scope": "read:user"},
        headers=headers,
    )
    data = answer.data
    if answer.status != 200:
        raise SignInError(f"{what}: refused ({answer.reason()})")
    device_code, user_code, uri = (
        data.get(k) for k in ("device_code", "user_code", "verification_uri")
    )
    if not all(isinstance(v, str) and v for v in (device_code, user_code, uri)):
        raise SignInError(f"{what}: the answer has no device code")
    assert isinstance(uri, str) and isinstance(user_code, str)
    why = url_problem(uri, on_loopback(auth_url))
    if why:
        raise SignInError(f"{what}: the page to open, {why}; refused")
    interval = _seconds(data.get("interval"), 5.0)
    show(uri, user_code[:64])
    deadline = time.monotonic() + min(timeout, _seconds(data.get("expires_in"), timeout))
    while True:
        if time.monotonic() + interval > deadline:
            raise SignInError(f"{what}: no sign-in within {timeout / 60:g} minutes")
        time.sleep(interval)
        polled = request(
            "POST",
            f"{web}/login/oauth/access_token",
            what=what,
            server=auth_url,
            form={"client_id": CLIENT_ID, "device_code": str(device_code), "grant_type": GRANT},
            headers=headers,
        )
        token = polled.data.get("access_token")
        if isinstance(token, str) and token:
            break
        error = polled.data.get("error")
        if error == "authorization_pending":
            continue
        if error == "slow_down":
            interval = max(_seconds(polled.data.get("interval"), interval + 5), interval)
            continue
        raise SignInError(f"{what}: refused ({polled.reason()})")
    host_name = urlsplit(web).hostname or "github.com"
    user = request(
        "GET",
        f"{api}/user",
        what=f"{what}: who is signed in",
        server=auth_url,
        headers={**headers, "Authorization": f"token {token}"},
    )
    user_id, user_login = user.data.get("id"), user.data.get("login")
    if user.status != 200 or not isinstance(user_id, (int, str)) or not str(user_id):
        raise SignInError(f"{what}: cannot tell which GitHub user signed in ({user.reason()})")
    account = Account(
        signin=SIGNIN.name,
        account_id=f"{host_name}:{user_id}",
        label=str(user_login or "")[:100],
        refresh_token=token,
        signed_in_at=time.time(),
        extra={"host": host_name, "api": api, "web": web},
    )
    try:
        return exchange(account, auth_url)
    except LoginExpired as e:
        raise SignInError(f"{what}: {e.message}") from None


def _seconds(value: Any, default: float) -> float:
    try:
        return max(float(value), MIN_POLL)
    except (TypeError, ValueError):
        return max(default, MIN_POLL)


def exchange(account: Account, auth_url: str) -> Account:
    """A Copilot token for ``account``'s GitHub token (also its refresh)."""
    api = account.extra.get("api") or hosts(auth_url)[1]
    what = "GitHub Copilot: the token exchange"
    try:
        answer = request(
            "GET",
            f"{api}/copilot_internal/v2/token",
            what=what,
            server=auth_url,
            headers={**EDITOR_HEADERS, "Authorization": f"token {account.refresh_token}"},
        )
    except SignInError as e:
        raise APIError(0, str(e), retryable=True, provider=SIGNIN.name) from None
    if answer.status == 401:
        raise LoginExpired(SIGNIN.name, SIGNIN.command, "GitHub refused the sign-in")
    if answer.status in (403, 404):
        raise LoginExpired(
            SIGNIN.name,
            SIGNIN.command,
            f"this GitHub account has no Copilot access ({answer.reason()})",
        )
    if answer.status != 200:
        raise APIError(answer.status, f"{what}: {answer.reason()}", provider=SIGNIN.name)
    data = answer.data
    token, expires_at = data.get("token"), data.get("expires_at")
    if not isinstance(token, str) or not token or len(token) > 16 * 1024:
        raise LoginExpired(SIGNIN.name, SIGNIN.command, f"{what}: the answer has no token")
    if not isinstance(expires_at, (int, float)):
        expires_at = time.time() + 1500
    refresh_in = data.get("refresh_in")
    if isinstance(refresh_in, (int, float)) and refresh_in > 0:
        expires_at = min(float(expires_at), time.time() + float(refresh_in) + 60)
    endpoints = data.get("endpoints")
    base = endpoints.get("api") if isinstance(endpoints, dict) else None
    base = base if isinstance(base, str) and base else DEFAULT_API
    why = api_problem(base, account.extra.get("host", ""), auth_url)
    if why:
        raise LoginExpired(
            SIGNIN.name, SIGNIN.command, f"{what}: the API URL it named, {why}; refused"
        )
    sku = data.get("sku")
    return replace(
        account,
        access_token=token,
        expires_at=float(expires_at),
        plan=str(sku)[:40] if isinstance(sku, str) else account.plan,
        extra={**account.extra, "base_url": base.rstrip("/")},
    )


def refresh(account: Account, auth_url: str) -> Account:
    return exchange(account, auth_url)
