"""Where a key may be sent, and what counts as this machine: the one place for both rules.

``is_loopback_host`` is true only for the literal hosts ``127.0.0.1``, ``::1`` and ``localhost``
(names are never resolved: a name that happens to resolve to loopback is not loopback).
``is_loopback_url`` applies it to a URL. ``validate_base_url`` is the rule every base URL meets
before a key is sent to it, whether it came from the config or from the environment: http or
https, no ``user:pass@``, plain http only for a loopback host.
"""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["LOOPBACK_HOSTS", "is_loopback_host", "is_loopback_url", "validate_base_url"]

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
