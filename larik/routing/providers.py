"""Which providers exist, which can be used now, and where they are (through their endpoint).

Everything here reads the config and environment only through
:func:`larik.llm.endpoint.resolve_endpoint`.
"""

from __future__ import annotations

import difflib

from ..config import Config
from ..llm import registry
from ..llm.endpoint import kind_of, resolve_endpoint
from ..llm.errors import MissingKeyError

__all__ = [
    "api_key_for",
    "base_url_for",
    "has_key",
    "known_provider",
    "listed",
    "provider_names",
    "unknown_provider",
]


def known_provider(name: str, config: Config) -> bool:
    return name in config.providers or registry.get(name) is not None


def provider_names(config: Config) -> list[str]:
    """Providers to offer: registered ones whose kind is listed, then configured ones."""
    names = [n for n in registry.names() if listed(n, config)]
    return names + [n for n in config.providers if n not in names]


def listed(name: str, config: Config) -> bool:
    kind = registry.kind(kind_of(name, config))
    return kind is None or kind.listed


def unknown_provider(head: str, spec: str, config: Config) -> str:
    known = provider_names(config)
    close = difflib.get_close_matches(head, known, n=1, cutoff=0.5)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"unknown provider {head!r} in {spec!r}{hint}; known providers: {', '.join(known)}"


def api_key_for(name: str, config: Config) -> str | None:
    """The key for provider ``name``; MissingKeyError when it needs one and none is set."""
    return resolve_endpoint(name, config).require_key()


def has_key(name: str, config: Config) -> bool:
    try:
        return api_key_for(name, config) is not None
    except MissingKeyError:
        return False


def base_url_for(name: str, config: Config) -> str:
    """The provider's checked base URL (see ``larik.llm.endpoint``)."""
    return resolve_endpoint(name, config).base_url
