"""Signing in with ChatGPT, as OpenAI's Codex CLI does (codex-rs/login; pi's openai-codex.ts).

**Browser** (:func:`login_browser`): the OAuth 2.0 authorization-code flow with PKCE against
``<auth>/oauth/authorize`` with Codex's public client id, its scopes and its extra parameters
(``id_token_add_organizations``, ``codex_cli_simplified_flow``, ``originator``); the browser
comes back to ``http://localhost:1455/auth/callback`` — the redirect OpenAI registered for
that client — where a :class:`~larik.llm.callback.Listener` on 127.0.0.1 waits, checks ``state`` and
closes after one use. When the browser cannot reach this machine (SSH), the URL it ends on can
be pasted instead (its ``state`` is checked the same way). The code is exchanged at
``<auth>/oauth/token``.

**Device** (:func:`login_device`, ``--device``): ``<auth>/api/accounts/deviceauth/usercode``
gives a code the user enters at ``<auth>/codex/device``; polling
``<auth>/api/accounts/deviceauth/token`` yields an authorization code and its PKCE pair,
exchanged as above with the redirect ``<auth>/deviceauth/callback``.

**The account** is the ``chatgpt_account_id`` of the ``https://api.openai.com/auth`` claim of
the id token (and of the access token: when both name one and they differ, the answer is
refused). The tokens are JWTs read for their claims only (never trusted for more: the backend
checks them). **Refresh** (:func:`refresh`) posts the refresh token to ``<auth>/oauth/token``;
a refusal is :class:`~larik.llm.errors.LoginExpired`, an answer for another account too.

:func:`read_codex_file` reads ``$CODEX_HOME/auth.json`` (default ``~/.codex/auth.json``) when the
user asks for it; Larik never writes that file.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets as random
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from ..callback import Listener, refused
from ..errors import APIError, LoginExpired, SignInError
from . import SIGNINS
from . import quota as quotas
from .store import Account
from .web import Answer, request, url_problem

__all__ = [
    "CLIENT_ID",
    "authorize_url",
    "codex_auth_path",
    "jwt_claims",
    "login_browser",
    "login_device",
    "pkce",
    "read_codex_file",
    "refresh",
]

SIGNIN = SIGNINS["chatgpt"]
CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
SCOPE = "openid profile email offline_access"
REFRESH_SCOPE = "openid profile email"
ORIGINATOR = "codex_cli_rs"
CALLBACK_PORT = 1455
CALLBACK_PATH = "/auth/callback"
MAX_PASTE = 8192  # characters of a pasted redirect URL that are read
AUTH_CLAIM = "https://api.openai.com/auth"
LOGIN_TIMEOUT = 300.0
DEVICE_TIMEOUT = 15 * 60.0
MIN_POLL = 1.0  # seconds between device-code polls at the least (tests lower it)
MAX_TOKEN = 16 * 1024  # characters of one token

Show = Callable[[str], None]


def pkce() -> tuple[str, str]:
    """A PKCE verifier and its S256 challenge."""
    verifier = _b64(random.token_bytes(64))
    return verifier, _b64(hashlib.sha256(verifier.encode()).digest())


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def redirect_uri(port: int = CALLBACK_PORT) -> str:
    return f"http://localhost:{port}{CALLBACK_PATH}"


def authorize_url(auth_url: str, redirect: str, challenge: str, state: str) -> str:
    query = {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": redirect,
        "scope": SCOPE,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "id_token_add_organizations": "true",
        "codex_cli_simplified_flow": "true",
        "state": state,
        "originator": ORIGINATOR,
    }
    return f"{auth_url.rstrip('/')}/oauth/authorize?{urlencode(query)}"


def jwt_claims(token: str) -> dict[str, Any]:
    """The payload of a JWT ({} when it is not one). Read, not verified."""
    parts = token.split(".")
    if len(parts) != 3 or not parts[1]:
        return {}
    try:
        data = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _auth_claim(claims: dict[str, Any]) -> dict[str, Any]:
    auth = claims.get(AUTH_CLAIM)
    return auth if isinstance(auth, dict) else {}


# -- the token answer -----------------------------------------------------------------------


def _token(data: dict[str, Any], name: str, what: str, required: bool = True) -> str:
    value = data.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value or len(value) > MAX_TOKEN:
        raise SignInError(f"{what}: the answer has no usable {name}")
    return value


def account_from_answer(answer: Answer, what: str, *, now: float | None = None) -> Account:
    """The account a token endpoint's JSON answer describes (checked: see the module doc)."""
    data = answer.data
    if answer.status != 200:
        raise SignInError(f"{what}: refused ({answer.reason()})")
    access = _token(data, "access_token", what)
    refresh_token = _token(data, "refresh_token", what)
    id_token = _token(data, "id_token", what)
    return _account(access, refresh_token, id_token, data.get("expires_in"), what, now=now)


def _account(
    access: str, refresh_token: str, id_token: str, expires_in: Any, what: str, *, now: float | None
) -> Account:
    now = time.time() if now is None else now
    id_claims, access_claims = jwt_claims(id_token), jwt_claims(access)
    from_id = str(_auth_claim(id_claims).get("chatgpt_account_id") or "")
    from_access = str(_auth_claim(access_claims).get("chatgpt_account_id") or "")
    if from_id and from_access and from_id != from_access:
        raise SignInError(f"{what}: the tokens are for two different accounts; refused")
    account_id = from_id or from_access
    if not account_id:
        raise SignInError(f"{what}: the answer names no ChatGPT account (no chatgpt_account_id)")
    exp = access_claims.get("exp")
    if isinstance(exp, (int, float)) and exp > 0:
        expires_at = float(exp)
    elif isinstance(expires_in, (int, float)) and expires_in > 0:
        expires_at = now + float(expires_in)
    else:
        expires_at = now + 3600.0
    profile = id_claims.get("https://api.openai.com/profile")
    email = id_claims.get("email") or (profile.get("email") if isinstance(profile, dict) else "")
    plan = _auth_claim(id_claims).get("chatgpt_plan_type") or ""
    return Account(
        signin=SIGNIN.name,
        account_id=account_id,
        label=str(email or "")[:200],
        access_token=access,
        refresh_token=refresh_token,
        id_token=id_token,
        expires_at=expires_at,
        signed_in_at=now,
        plan=str(plan)[:40],
    )


def exchange(auth_url: str, code: str, verifier: str, redirect: str) -> Account:
    answer = request(
        "POST",
        f"{auth_url.rstrip('/')}/oauth/token",
        what="ChatGPT sign-in: the token request",
        server=auth_url,
        form={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect,
            "client_id": CLIENT_ID,
            "code_verifier": verifier,
        },
    )
    return account_from_answer(answer, "ChatGPT sign-in: the token request")


# -- browser --------------------------------------------------------------------------------


def parse_pasted(text: str, state: str) -> str:
    """The code in a pasted redirect URL whose ``state`` is ours, back to this machine's
    callback (a page that sent the browser elsewhere is not the answer); SignInError
    otherwise."""
    try:
        parts = urlsplit(text.strip()[:MAX_PASTE])
        host = (parts.hostname or "").lower()
    except ValueError:
        raise SignInError("the pasted text is not a URL") from None
    if host not in ("localhost", "127.0.0.1") or parts.path != CALLBACK_PATH:
        where = f"{host or '?'}{parts.path}"[:80]
        raise SignInError(
            f"the pasted URL goes to {where}, not to this machine's {CALLBACK_PATH}; "
            "it is not the answer to this sign-in"
        )
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    if query.get("state") != state:
        raise SignInError("the pasted URL is not the answer to this sign-in (its state differs)")
    if "error" in query:
        raise SignInError(f"the sign-in was refused: {' '.join(query['error'].split())[:100]}")
    if not query.get("code"):
        raise SignInError("the pasted URL has no code")
    return query["code"]


def login_browser(
    auth_url: str,
    *,
    show: Show,
    paste: Callable[[], str] | None = None,
    port: int = CALLBACK_PORT,
    timeout: float = LOGIN_TIMEOUT,
) -> Account:
    """Sign in through the browser (see the module docstring). ``show(url)`` hands the
    authorization URL to the user; ``paste()``, when given, reads a pasted redirect URL while
    the listener waits (whichever answers first is taken)."""
    why = url_problem(auth_url, True)
    if why:
        raise SignInError(f"ChatGPT sign-in: the sign-in server {why}")
    verifier, challenge = pkce()
    state = random.token_urlsafe(24)
    try:
        listener = Listener(port, CALLBACK_PATH, state)
    except SignInError as e:
        raise SignInError(f"{e}; use --device") from None
    redirect = redirect_uri(listener.port)
    pasted: list[str] = []
    if paste is not None:

        def read_paste() -> None:
            try:
                text = paste()
            except (EOFError, OSError):
                return
            if text.strip():
                pasted.append(text)
                listener.close()

        threading.Thread(target=read_paste, daemon=True).start()
    show(authorize_url(auth_url, redirect, challenge, state))
    try:
        query = listener.wait(timeout)
    except SignInError:
        if not pasted:
            raise
        code = parse_pasted(pasted[0], state)
    else:
        if refused(query):
            raise SignInError(f"the sign-in was refused: {refused(query)}")
        code = query["code"]
    return exchange(auth_url, code, verifier, redirect)


# -- device code ----------------------------------------------------------------------------


def login_device(
    auth_url: str, *, show: Callable[[str, str], None], timeout: float = DEVICE_TIMEOUT
) -> Account:
    """Sign in with a device code: ``show(verification_url, user_code)`` tells the user."""
    base = auth_url.rstrip("/")
    what = "ChatGPT device sign-in"
    answer = request(
        "POST",
        f"{base}/api/accounts/deviceauth/usercode",
        what=what,
        server=auth_url,
        body={"client_id": CLIENT_ID},
    )
    if answer.status == 404:
        raise SignInError(
            f"{what}: the server does not offer device codes; sign in without --device"
        )
    if answer.status != 200:
        raise SignInError(f"{what}: refused ({answer.reason()})")
    device_id = answer.data.get("device_auth_id")
    user_code = answer.data.get("user_code") or answer.data.get("usercode")
    if not isinstance(device_id, str) or not isinstance(user_code, str) or not user_code:
        raise SignInError(f"{what}: the answer has no device code")
    try:
        interval = max(float(answer.data.get("interval") or 5), MIN_POLL)
    except (TypeError, ValueError):
        interval = 5.0
    show(f"{base}/codex/device", user_code[:64])
    deadline = time.monotonic() + timeout
    while True:
        polled = request(
            "POST",
            f"{base}/api/accounts/deviceauth/token",
            what=what,
            server=auth_url,
            body={"device_auth_id": device_id, "user_code": user_code},
        )
        if polled.status == 200:
            break
        if polled.status not in (403, 404):
            raise SignInError(f"{what}: refused ({polled.reason()})")
        if time.monotonic() + interval > deadline:
            raise SignInError(f"{what}: no sign-in within {timeout / 60:g} minutes")
        time.sleep(interval)
    code = polled.data.get("authorization_code")
    verifier = polled.data.get("code_verifier")
    if not isinstance(code, str) or not isinstance(verifier, str) or not code or not verifier:
        raise SignInError(f"{what}: the answer has no authorization code")
    return exchange(auth_url, code, verifier, f"{base}/deviceauth/callback")


# -- refresh --------------------------------------------------------------------------------


def refresh(account: Account, auth_url: str) -> Account:
    """A new access token for ``account`` (see the module docstring)."""
    what = "ChatGPT: refreshing the sign-in"
    if not account.refresh_token:
        raise LoginExpired(SIGNIN.name, SIGNIN.command, "the stored login has no refresh token")
    try:
        answer = request(
            "POST",
            f"{auth_url.rstrip('/')}/oauth/token",
            what=what,
            server=auth_url,
            form={
                "grant_type": "refresh_token",
                "refresh_token": account.refresh_token,
                "client_id": CLIENT_ID,
                "scope": REFRESH_SCOPE,
            },
        )
    except SignInError as e:
        raise APIError(0, str(e), retryable=True, provider=SIGNIN.name) from None
    if answer.status in (400, 401, 403):
        raise LoginExpired(
            SIGNIN.name, SIGNIN.command, f"the sign-in was refused ({answer.reason()})"
        )
    if answer.status != 200:
        raise APIError(answer.status, f"{what}: {answer.reason()}", provider=SIGNIN.name)
    data = answer.data
    try:
        new = _account(
            _token(data, "access_token", what),
            _token(data, "refresh_token", what, required=False) or account.refresh_token,
            _token(data, "id_token", what, required=False) or account.id_token,
            data.get("expires_in"),
            what,
            now=None,
        )
    except SignInError as e:
        raise LoginExpired(SIGNIN.name, SIGNIN.command, str(e)) from None
    if new.account_id != account.account_id:
        raise LoginExpired(
            SIGNIN.name, SIGNIN.command, "the refresh answered for another account; refused"
        )
    return replace(new, label=new.label or account.label, plan=new.plan or account.plan)


# -- Codex's file ---------------------------------------------------------------------------


def codex_auth_path() -> Path:
    home = os.environ.get("CODEX_HOME") or str(Path.home() / ".codex")
    return Path(home).expanduser() / "auth.json"


def read_codex_file(path: Path) -> Account:
    """The ChatGPT login Codex keeps in ``path`` (read only)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise SignInError(f"cannot read {path}: {e.strerror or e}") from None
    except ValueError:
        raise SignInError(f"{path} is not JSON") from None
    tokens = data.get("tokens") if isinstance(data, dict) else None
    if not isinstance(tokens, dict):
        raise SignInError(f"{path} holds no ChatGPT login (no tokens)")
    what = f"the login in {path}"
    return _account(
        _token(tokens, "access_token", what),
        _token(tokens, "refresh_token", what),
        _token(tokens, "id_token", what),
        None,
        what,
        now=None,
    )


def usage(account: Account, base_url: str) -> quotas.Quota | None:
    """The plan's usage windows now, from the endpoint Codex's ``/status`` reads
    (``GET <backend>/wham/usage``, beside ``<backend>/codex``; :func:`~.quota.from_usage`),
    with the account's token and id; a one-line SignInError when it cannot be read."""
    backend = base_url.rstrip("/").removesuffix("/codex")
    answer = request(
        "GET",
        f"{backend}/wham/usage",
        what="the ChatGPT usage figures",
        server=base_url,
        headers={
            "Authorization": f"Bearer {account.access_token}",
            "chatgpt-account-id": account.account_id,
            "originator": ORIGINATOR,
        },
    )
    if answer.status != 200:
        raise SignInError(f"the ChatGPT usage figures: {answer.reason()}")
    return quotas.from_usage(answer.data)
