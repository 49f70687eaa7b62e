"""Find models served on this machine, under the provider name a request for them goes to.

``servers(config)`` lists the local providers (the Ollama, LM Studio, llama.cpp and vLLM
presets, and every configured provider whose ``base_url`` is loopback) with the address
routing would send their requests to: the config's ``base_url``, ``OLLAMA_HOST`` for Ollama,
else the preset's default port. ``discover`` asks each of those addresses for its model list
(loopback only, a short timeout, all at once); a server that does not answer is simply absent,
and a model is only ever listed under a provider whose requests reach the server that lists it.
Used by the ``/model`` picker and the no-model screen, always from a worker, never a widget.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..llm.net import is_loopback_url

__all__ = ["LocalModel", "LocalServer", "discover", "servers"]

_LABELS = {"ollama": "Ollama", "lmstudio": "LM Studio", "llamacpp": "llama.cpp", "vllm": "vLLM"}


@dataclass(frozen=True, slots=True)
class LocalServer:
    provider: str  # the provider name models are switched to with ("ollama/qwen3")
    label: str
    base_url: str
    path: str  # where the model list is, under base_url

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + self.path

    @property
    def address(self) -> str:
        """``127.0.0.1:8080``: host and port, for messages."""
        parts = urlsplit(self.base_url)
        return parts.netloc or self.base_url


@dataclass(frozen=True, slots=True)
class LocalModel:
    provider: str
    model: str
    server: str  # label

    @property
    def spec(self) -> str:
        return f"{self.provider}/{self.model}"


def servers(config: Any = None) -> tuple[LocalServer, ...]:
    """Each local provider and the address its requests go to (its endpoint), one provider per
    address: a configured name is preferred to a built-in preset."""
    from .. import routing
    from ..config import Config
    from ..llm import registry
    from ..llm.endpoint import resolve_endpoint
    from ..llm.errors import LarikError

    cfg = config if config is not None else Config()
    names = routing.provider_names(cfg)
    names.sort(key=lambda n: n not in cfg.providers)  # stable: configured names first
    out: dict[str, LocalServer] = {}
    for name in names:
        try:
            endpoint = resolve_endpoint(name, cfg)
        except LarikError:  # a bad OLLAMA_HOST or base_url: not probed
            continue
        kind = registry.kind(endpoint.kind)
        if kind is None or not kind.list_models_path or not endpoint.base_url:
            continue
        if not endpoint.local:
            continue
        url = endpoint.base_url.rstrip("/")
        server = LocalServer(name, _LABELS.get(name, name), url, kind.list_models_path)
        out.setdefault(server.url, server)
    return tuple(out.values())


def _parse(server: LocalServer, body: bytes) -> list[LocalModel]:
    try:
        data = json.loads(body)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    items = data.get("models") if "models" in data else data.get("data")
    out: list[LocalModel] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        name = item.get("name") or item.get("model") or item.get("id")
        if isinstance(name, str) and name.strip():
            out.append(LocalModel(server.provider, name.strip(), server.label))
    return out


async def _probe(client: Any, server: LocalServer) -> list[LocalModel]:
    try:
        resp = await client.get(server.url)
    except Exception:  # any transport failure means "not running"
        return []
    if resp.status_code != 200:
        return []
    return _parse(server, resp.content)


async def discover(
    config: Any = None,
    *,
    probe: tuple[LocalServer, ...] | None = None,
    timeout: float = 0.5,
) -> list[LocalModel]:
    """Models of every local server that answers within ``timeout`` seconds (loopback only):
    the servers of ``config`` (see ``servers``), or the ones in ``probe``."""
    import httpx2

    targets = servers(config) if probe is None else probe
    for s in targets:
        if not is_loopback_url(s.base_url):
            raise ValueError(f"{s.label}: local server discovery is for loopback only")
    if not targets:
        return []
    async with httpx2.AsyncClient(timeout=timeout, trust_env=False) as client:
        found = await asyncio.gather(*(_probe(client, s) for s in targets))
    seen: set[str] = set()
    out: list[LocalModel] = []
    for m in (m for group in found for m in group):
        if m.spec not in seen:
            seen.add(m.spec)
            out.append(m)
    return out
