"""Find models served on this machine: Ollama, LM Studio, llama.cpp and vLLM.

Only 127.0.0.1, on each server's default port, with a short timeout, all at once; a server
that does not answer is simply absent. Used by the ``/model`` picker and the no-model screen,
always from a worker, never from a widget.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

__all__ = ["LOCAL_SERVERS", "LocalModel", "LocalServer", "discover"]


@dataclass(frozen=True, slots=True)
class LocalServer:
    provider: str  # the provider name models are switched to with ("ollama/qwen3")
    label: str
    base_url: str
    path: str  # where the model list is

    @property
    def url(self) -> str:
        return self.base_url + self.path


LOCAL_SERVERS: tuple[LocalServer, ...] = (
    LocalServer("ollama", "Ollama", "http://127.0.0.1:11434", "/api/tags"),
    LocalServer("lmstudio", "LM Studio", "http://127.0.0.1:1234", "/v1/models"),
    LocalServer("llamacpp", "llama.cpp", "http://127.0.0.1:8080", "/v1/models"),
    LocalServer("vllm", "vLLM", "http://127.0.0.1:8000", "/v1/models"),
)


@dataclass(frozen=True, slots=True)
class LocalModel:
    provider: str
    model: str
    server: str  # label

    @property
    def spec(self) -> str:
        return f"{self.provider}/{self.model}"


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
        if isinstance(name, str) and name:
            out.append(LocalModel(server.provider, name, server.label))
    return out


async def _probe(client: object, server: LocalServer) -> list[LocalModel]:
    try:
        resp = await client.get(server.url)  # type: ignore[attr-defined]
    except Exception:  # any transport failure means "not running"
        return []
    if resp.status_code != 200:
        return []
    return _parse(server, resp.content)


async def discover(
    servers: tuple[LocalServer, ...] = LOCAL_SERVERS, timeout: float = 0.5
) -> list[LocalModel]:
    """Models of every server that answers within ``timeout`` seconds (loopback only)."""
    import httpx2

    for s in servers:
        if not s.base_url.startswith(("http://127.0.0.1:", "http://[::1]:", "http://localhost:")):
            raise ValueError(f"{s.label}: local server discovery is for loopback only")
    async with httpx2.AsyncClient(timeout=timeout, trust_env=False) as client:
        found = await asyncio.gather(*(_probe(client, s) for s in servers))
    return [m for group in found for m in group]
