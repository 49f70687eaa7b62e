"""``OLLAMA_HOST`` as a base URL (data only: imports nothing heavy; the ollama kind's
``base_url_parser``)."""

from __future__ import annotations

from urllib.parse import urlsplit

from ..errors import ConfigError

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "parse_host"]

DEFAULT_HOST = "http://127.0.0.1:11434"
DEFAULT_PORT = 11434


def parse_host(value: str) -> str:
    """``OLLAMA_HOST`` as a base URL, read the way Ollama's own clients read it: a bare host or
    ``host:port`` gets ``http://`` (port 11434 when none is given; 80/443 after an explicit
    scheme); ``0.0.0.0`` (a bind address) means this host."""
    value = value.strip().rstrip("/")
    if not value:
        return DEFAULT_HOST
    explicit = "://" in value
    parts = urlsplit(value if explicit else "http://" + value)
    try:
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"OLLAMA_HOST: bad port in {value!r}") from exc
    if port is None:
        port = (443 if parts.scheme == "https" else 80) if explicit else DEFAULT_PORT
    host = parts.hostname or "127.0.0.1"
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}:{port}{parts.path}"
