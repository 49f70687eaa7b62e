"""The rules of every sign-in request, in one place.

* A URL Larik sends a code, a token or a user to is https, or plain http to a literal loopback
  host when the sign-in server itself is on loopback (tests; a remote server cannot send a
  login to a port on this machine): :func:`url_problem`.
* Redirects are never followed: a token request answered with a redirect is an error, so a
  code or refresh token is never re-sent to another host.
* A server that cannot be reached is one line, ``cannot reach HOST: offline?``
  (:func:`larik.llm.net.unreachable`), not the HTTP client's error.
* An answer is read up to :data:`MAX_ANSWER` bytes and must be a JSON object; anything else is
  a one-line :class:`~larik.llm.errors.SignInError` that quotes no token (the server's own
  ``error`` / ``error_description`` words are passed through ``redact``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..errors import SignInError, redact
from ..net import is_loopback_host, login_url_problem, unreachable
from ..others_parse import json_value

__all__ = ["MAX_ANSWER", "TIMEOUT", "Answer", "request", "url_problem"]

MAX_ANSWER = 256 * 1024
TIMEOUT = 30.0


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    data: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)

    def reason(self) -> str:
        """The server's own short words for a refusal (redacted, one line)."""
        parts = [str(self.data.get(k) or "") for k in ("error", "error_description", "message")]
        err = self.data.get("error")
        if isinstance(err, dict):  # {"error": {"type": ..., "message": ...}}
            parts = [str(err.get(k) or "") for k in ("type", "code", "message")]
        text = ": ".join(p for p in parts if p) or f"HTTP {self.status}"
        return " ".join(redact(text).split())[:200]


def url_problem(url: str, server_on_loopback: bool) -> str:
    """Why a sign-in may not use ``url`` ("" when it may): :func:`larik.llm.net.
    login_url_problem`, the rule an MCP server's OAuth login follows too."""
    return login_url_problem(url, server_on_loopback)


def on_loopback(url: str) -> bool:
    try:
        return is_loopback_host(urlsplit(url).hostname or "")
    except ValueError:
        return False


def request(
    method: str,
    url: str,
    *,
    what: str,
    server: str,
    form: dict[str, str] | None = None,
    body: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    limit: int = MAX_ANSWER,
) -> Answer:
    """One request of a sign-in; ``what`` names it in errors ("the token request"),
    ``server`` is the sign-in server's URL (whose loopback-ness decides the http rule);
    ``limit``: the answer's size cap (a model listing is larger than a token answer)."""
    import httpx2

    why = url_problem(url, on_loopback(server))
    if why:
        raise SignInError(f"{what}: refused to send it to {why}")
    sent = {"Accept": "application/json", **(headers or {})}
    try:
        with (
            httpx2.Client(timeout=TIMEOUT, follow_redirects=False, trust_env=False) as client,
            client.stream(method, url, data=form, json=body, headers=sent) as response,
        ):
            raw = bytearray()
            for chunk in response.iter_bytes():
                raw.extend(chunk)
                if len(raw) > limit:
                    raise SignInError(
                        f"{what}: the answer is larger than {limit // 1024} KiB; not read"
                    )
            status, answer_headers = response.status_code, dict(response.headers)
    except (httpx2.ConnectError, httpx2.ConnectTimeout) as e:
        raise SignInError(f"{what}: {unreachable(url, e)}") from None
    except httpx2.HTTPError as e:
        raise SignInError(f"{what}: {type(e).__name__}: {redact(str(e))[:200]}") from None
    if 300 <= status < 400:
        raise SignInError(
            f"{what}: the server answered with a redirect (HTTP {status}); not followed"
        )
    try:
        data = json_value(bytes(raw).decode("utf-8")) if raw.strip() else {}
    except (UnicodeDecodeError, ValueError):
        raise SignInError(f"{what}: the answer (HTTP {status}) is not JSON") from None
    if not isinstance(data, dict):
        raise SignInError(f"{what}: the answer (HTTP {status}) is not a JSON object")
    return Answer(status, data, {k.lower(): v for k, v in answer_headers.items()})
