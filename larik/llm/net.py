"""Where a key may be sent, and what counts as this machine: the one place for both rules.

``is_loopback_host`` is true only for the literal hosts ``127.0.0.1``, ``::1`` and ``localhost``
(names are never resolved: a name that happens to resolve to loopback is not loopback).
``is_loopback_url`` applies it to a URL. ``validate_base_url`` is the rule every base URL meets
before a key is sent to it, whether it came from the config or from the environment: http or
https, no ``user:pass@``, plain http only for a loopback host. ``unreachable`` says in one line
why a connection to a server failed.
"""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = [
    "LOOPBACK_HOSTS",
    "MAX_LOGIN_URL",
    "bare_url",
    "is_loopback_host",
    "is_loopback_url",
    "login_url_problem",
    "unreachable",
    "validate_base_url",
]

#: The longest URL a login requests or shows (a server supplies them: a megabyte is refused).
MAX_LOGIN_URL = 8192

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})


def is_loopback_host(host: str) -> bool:
    """True only for the literal loopback hosts 127.0.0.1, ::1 and localhost."""
    return host.strip("[]").lower() in LOOPBACK_HOSTS


def is_loopback_url(url: str) -> bool:
    """Whether ``url`` is http(s) to a literal loopback host (a malformed URL is not)."""
    try:
        parts = urlsplit(url)
        _ = parts.port  # a malformed port raises here
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and is_loopback_host(parts.hostname or "")


def validate_base_url(url: str) -> str:
    """Return ``url`` if it is safe to send a key to, else raise ``ValueError`` (one line).

    http or https only; no user:password@; plain http only for a literal loopback host."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        _ = parts.port  # a malformed port raises here
    except ValueError:
        raise ValueError("is not a valid URL") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError("must start with https:// (or http:// for a loopback host)")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise ValueError("must not contain a user name or password (user:pass@host)")
    if not host:
        raise ValueError("has no host")
    if parts.scheme == "http" and not is_loopback_host(host):
        raise ValueError(
            f"uses http for {host}: plain http is only allowed for 127.0.0.1, ::1 and "
            "localhost; use https"
        )
    return url


def bare_url(url: str) -> str:
    """``url`` to show in a message: no query, fragment or user name; at most 200 characters."""
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    bare = f"{parts.scheme}://{parts.hostname or ''}{port}{parts.path}"
    return bare if len(bare) <= 200 else bare[:199] + "…"


def login_url_problem(url: str, server_on_loopback: bool) -> str:
    """Why a login (a sign-in, an MCP server's OAuth) may not send a code, a token or the user
    to ``url`` ("" when it may): https, or plain http to a loopback host when the server itself
    is on loopback (a remote server cannot send a login to a port on this machine); no user
    name; at most :data:`MAX_LOGIN_URL` characters."""
    if len(url) > MAX_LOGIN_URL:
        return f"a URL of {len(url):,} characters (more than {MAX_LOGIN_URL:,}): {url[:80]!r}…"
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        _ = parts.port
    except ValueError:
        return f"{url[:80]!r} is not a valid URL"
    if parts.username is not None or "@" in parts.netloc:
        return f"{bare_url(url)} carries a user name"
    if parts.scheme == "https" and host:
        return ""
    if parts.scheme == "http" and is_loopback_host(host) and server_on_loopback:
        return ""
    return f"{bare_url(url)} is not https (plain http only on this machine, for a server on it)"


def unreachable(url: str, error: BaseException) -> str:
    """A connection to ``url`` that failed (``error``: the HTTP client's connect error), in
    one line: ``cannot reach HOST: offline?`` — or, when the failure was TLS's (a certificate,
    a handshake), that, for being offline is not the reason then."""
    import ssl

    try:
        parts = urlsplit(url)
        host = f"{parts.hostname or '?'}{f':{parts.port}' if parts.port else ''}"
    except ValueError:
        host = "the server"
    cause: BaseException | None = error
    for _ in range(8):  # the chain of causes, bounded
        if cause is None:
            break
        if isinstance(cause, ssl.SSLError | ssl.CertificateError):
            return f"cannot reach {host} securely: {' '.join(str(cause).split())[:200]}"
        cause = cause.__cause__ or cause.__context__
    return f"cannot reach {host}: offline?"
