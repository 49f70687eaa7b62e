"""What ``larik acp`` answers to ``initialize``: the protocol version and Larik's capabilities.

A plain dict in the protocol's own JSON shape, built without pydantic or the SDK, because the
answer goes out before the SDK is imported (its schema takes most of a second to build, and an
editor waits for this answer before it shows the agent; :mod:`larik.acp.server`). The SDK path
(:meth:`larik.acp.agent.LarikAgent.initialize`) validates the same dict with the SDK's
``InitializeResponse``, and tests/acp/test_handshake.py holds the two to each other, so the
SDK's schema stays the judge of the shape.

What Larik offers: ``session/load`` (a Larik session's history replayed as updates),
``session/list``, ``session/resume`` and ``session/close``; prompts with images and embedded
context (an image goes to a model that cannot take one as a line of text instead:
larik/agent/images.py); MCP servers over stdio and streamable HTTP (not SSE). Authentication is
Larik's own configuration: a key in the environment or in config.toml, or a local model server.
With a provider's key in the environment no method is listed; otherwise the methods say which
variables to set, and ``session/new`` answers "authentication required" only when no model can
be reached (a key in config.toml or a local server is found there, not here: this answer
reads no config).
"""

from __future__ import annotations

import os
from typing import Any

from .. import __version__

__all__ = ["AUTH_METHOD", "PROTOCOL_VERSION", "initialize_result", "negotiate"]

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


def initialize_result(protocol_version: int) -> dict[str, Any]:
    """The ``initialize`` result, as the protocol's JSON (camelCase keys, no nulls). No auth
    method when a provider's key is in the environment: there is nothing to set."""
    variables = key_variables()
    shown = ", ".join(variables[:4]) + (", …" if len(variables) > 4 else "")
    keyed = any(os.environ.get(v) for v in variables)
    return {
        "protocolVersion": negotiate(protocol_version),
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
            "mcpCapabilities": {"http": True, "sse": False},
            "sessionCapabilities": {"list": {}, "resume": {}, "close": {}},
        },
        "authMethods": []
        if keyed
        else [
            {
                "id": AUTH_METHOD,
                "name": "Larik's configuration",
                "description": (
                    f"Give Larik a model: set a provider's key ({shown}) in the environment "
                    "the editor starts Larik with, or in Larik's config.toml, or start a local "
                    "model server (Ollama, LM Studio, llama.cpp, vLLM); then try again."
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
