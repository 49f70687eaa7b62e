"""What ``larik acp`` answers to ``initialize``: the protocol version and Larik's capabilities.

A plain dict in the protocol's own JSON shape, built without pydantic or the SDK, because the
answer goes out before the SDK is imported (its schema takes most of a second to build, and an
editor waits for this answer before it shows the agent; :mod:`larik.acp.server`). The SDK path
(:meth:`larik.acp.agent.LarikAgent.initialize`) validates the same dict with the SDK's
``InitializeResponse``, and tests/acp/test_handshake.py holds the two to each other, so the
SDK's schema stays the judge of the shape.

What Larik offers: ``session/load`` (a Larik session's history replayed as updates),
``session/list``, ``session/resume``, ``session/close`` and (unstable in ACP)
``session/fork``; prompts with images and embedded context (an image goes to a model that
cannot take one as a line of text instead: larik/agent/images.py); MCP servers over stdio and streamable HTTP (not SSE). Authentication is
Larik's own configuration: a model asked for (``larik acp -m``), then the sources of the one
rule every face starts on (``routing.targets.default_model``): a ``model`` in the user's
config.toml (a local server's, ``ollama/qwen3``, as any other), the model remembered as the
default, a key — in the environment or in config.toml — for a provider a session starts on
unasked (``registry.KEY_ORDER``), a pulled model. When one of those holds, :func:`model_within_reach` says so and no method is listed: ``session/new``
finds the model by the same rule (routing.targets; a test holds the two together). Otherwise
the methods say which variables to set, and ``session/new`` answers "authentication
required". The config is read as plain TOML (no pydantic: this answer comes before it is
imported); a config that cannot be read lists the methods, and ``session/new`` says what is
wrong with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__

__all__ = [
    "AUTH_METHOD",
    "PROTOCOL_VERSION",
    "initialize_result",
    "model_within_reach",
    "negotiate",
]

#: The ACP version Larik speaks (the SDK's ``acp.PROTOCOL_VERSION``; a test holds them equal).
PROTOCOL_VERSION = 1
AUTH_METHOD = "larik-config"  # the one method: Larik's own configuration


def negotiate(asked: int) -> int:
    """The version to answer: the client's when Larik speaks it, else Larik's latest (the
    client then decides whether it can go on)."""
    return asked if asked == PROTOCOL_VERSION else PROTOCOL_VERSION


def key_variables() -> list[str]:
    """Every registered provider's key variables, in registry order (llm/registry.py)."""
    from ..llm import registry

    names: list[str] = []
    for name in registry.names():
        spec = registry.get(name)
        names += [n for n in (spec.credential_env_names if spec else ()) if n not in names]
    return names


@dataclass
class _Provider:
    """A ``[providers.NAME]`` table as plain TOML, read as llm/settings.py's ProviderSettings."""

    type: str | None = None
    base_url: str = ""
    api_key: str = ""
    api_key_env: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass
class _Settings:
    """The user's config.toml as llm/settings.py's LlmSettings (what the endpoint rules read)."""

    providers: Mapping[str, _Provider]
    models: Mapping[str, Any] = field(default_factory=dict)
    accounts_dir: Path = Path()
    local_dir: Path = Path()


def _user_config() -> dict[str, Any] | None:
    """The user's config.toml as TOML (an empty table when there is none); None when it cannot
    be read or parsed."""
    import tomllib

    from ..locations import MAX_CONFIG_BYTES, user_config_path

    path = user_config_path()
    try:
        if not path.exists():
            return {}
        if path.stat().st_size > MAX_CONFIG_BYTES:
            return None
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None


def _settings(raw: dict[str, Any]) -> _Settings:
    from ..locations import accounts_dir, local_dir

    tables = raw.get("providers")
    providers: dict[str, _Provider] = {}
    for name, t in tables.items() if isinstance(tables, dict) else ():
        if isinstance(t, dict):
            providers[name] = _Provider(
                type=t["type"] if isinstance(t.get("type"), str) else None,
                base_url=str(t.get("base_url") or ""),
                api_key=str(t.get("api_key") or ""),
                api_key_env=str(t.get("api_key_env") or ""),
            )
    return _Settings(providers, accounts_dir=accounts_dir(), local_dir=local_dir())


def model_within_reach(model: str = "") -> bool:
    """Whether ``session/new`` finds a model without being told more: ``model`` (``larik acp
    -m``), a ``model`` in the user's config.toml, the model remembered as the default when it
    can start, a key for one of ``KEY_ORDER``'s providers — from the config (``api_key``,
    ``api_key_env``) or the environment, by the endpoint rules (``larik.llm.endpoint``)
    themselves — or a pulled model: ``routing.targets.default_model``'s sources."""
    if model.strip():
        return True
    raw = _user_config()
    if raw is None:
        return False
    if isinstance(raw.get("model"), str) and raw["model"].strip():
        return True
    from ..llm.endpoint import resolve_endpoint
    from ..llm.errors import LarikError
    from ..llm.registry import KEY_ORDER

    settings = _settings(raw)
    if _remembered_starts(settings) or _pulled(settings):
        return True
    for name in KEY_ORDER:
        try:
            if resolve_endpoint(name, settings).api_key:
                return True
        except LarikError:  # a bad base URL: session/new says so
            continue
    return False


def _remembered_starts(settings: _Settings) -> bool:
    """Whether the model remembered as the default can start (routing.targets' rule, read
    without pydantic): its provider is known, its key is set, a pulled one is still there."""
    from ..llm import registry
    from ..llm.endpoint import resolve_endpoint
    from ..llm.errors import LarikError
    from ..llm.local.store import Store
    from ..routing.remembered import read

    head, _, model = read().partition("/")
    if not model or (registry.get(head) is None and head not in settings.providers):
        return False
    try:
        endpoint = resolve_endpoint(head, settings)
        endpoint.require_key()
        if endpoint.kind == "local":
            Store(settings.local_dir).find(model)
    except LarikError:
        return False
    return True


def _pulled(settings: _Settings) -> bool:
    """Whether a model is pulled for Larik's own engine (``larik local pull``)."""
    from ..llm.errors import LarikError
    from ..llm.local.store import Store

    try:
        return Store(settings.local_dir).default() is not None
    except LarikError:
        return False


def initialize_result(protocol_version: int, model: str = "") -> dict[str, Any]:
    """The ``initialize`` result, as the protocol's JSON (camelCase keys, no nulls). No auth
    method when a model is within reach (``model``: the one ``larik acp -m`` asked for): there
    is nothing to set."""
    variables = key_variables()
    shown = ", ".join(variables[:4]) + (", …" if len(variables) > 4 else "")
    keyed = model_within_reach(model)
    return {
        "protocolVersion": negotiate(protocol_version),
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
            "mcpCapabilities": {"http": True, "sse": False},
            "sessionCapabilities": {"list": {}, "resume": {}, "close": {}, "fork": {}},
        },
        "authMethods": []
        if keyed
        else [
            {
                "id": AUTH_METHOD,
                "name": "Larik's configuration",
                "description": (
                    f"Give Larik a model: set a provider's key ({shown}) in the environment "
                    "the editor starts Larik with, or in Larik's config.toml; or name a model "
                    "in the command the editor runs (larik acp -m ollama/qwen3 — a local "
                    "server's, which session/new names when one answers), or pick one once in "
                    "larik (it is remembered for every face); then try again."
                ),
            },
            {
                "type": "env_var",
                "id": "env",
                "name": "A provider's API key",
                "vars": [{"name": n, "optional": True} for n in variables],
            },
        ],
        "agentInfo": {"name": "larik", "title": "Larik", "version": __version__},
    }
