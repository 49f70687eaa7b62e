"""Small URL facts the adapters share."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

__all__ = ["is_loopback_url"]


def is_loopback_url(url: str) -> bool:
    """Whether ``url`` points at this machine (localhost or a loopback address). Used to treat
    local servers differently (no proxy, no retry on a refused connection); the stricter rule
    for where plain http may go is ``larik.config.validate_base_url``."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
