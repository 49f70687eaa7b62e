"""Servers on this machine: which local providers answer now, and the models they list.

The one discovery for the ``/model`` picker and the no-model screen, ``larik models``,
``larik routing`` and ``suggest_routing``:

* ``servers(config)`` lists the local providers — every provider whose endpoint is loopback
  (the Ollama, LM Studio, llama.cpp and vLLM presets, a configured ``base_url`` on 127.0.0.1, …)
  and whose kind says where a server lists its models — at the address their requests go to (the
  endpoint: the config's ``base_url``, ``OLLAMA_HOST`` for Ollama, else the default).
* ``scan(config)`` asks each address once, all at once (loopback only, no proxy, a short
  timeout): a server that answers at all is *up*; what it lists on a 200 is its models, each
  under a provider whose requests reach the server that lists it. ``discover`` (async) and
  ``reachable_local_providers`` are views of the same scan.
* ``scan_ports(ports)``: on request only (``larik models --scan``), every port of a range on
  127.0.0.1 asked once — a TCP connect first, then, where something listens, the model lists
  of Ollama (``/api/tags``) and of an OpenAI-compatible server (``/v1/models``): a server on a
  port no provider names, and the config lines that would name it.
* ``pulled(config)``: the models Larik runs itself (``larik local pull``), as ``local/NAME``;
  the scan lists them with the servers' (nothing is started to list them), and the ``local``
  provider is *up* while one is pulled — the picker and ``larik models`` treat them as they
  treat Ollama's.

Nothing here runs at import time, and the TUI calls it from a worker, never a widget.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..llm.net import is_loopback_url
from ..llm.others_parse import json_value

__all__ = [
    "FoundServer",
    "LocalModel",
    "LocalServer",
    "Scan",
    "ENGINE_PROVIDER",
    "discover",
    "engine_running",
    "parse_ports",
    "pulled",
    "reachable_local_providers",
    "scan",
    "scan_ports",
    "served_window",
    "servers",
]

TIMEOUT = 0.5
_LABELS = {"ollama": "Ollama", "lmstudio": "LM Studio", "llamacpp": "llama.cpp", "vllm": "vLLM"}
ENGINE_LABEL = "Larik's engine"
ENGINE_PROVIDER = "local"  # the provider of the models Larik runs itself


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
    window: int | None = None  # the context window the listing gives, if it gives one

    @property
    def spec(self) -> str:
        return f"{self.provider}/{self.model}"


@dataclass
class Scan:
    """What one look at the local servers found."""

    up: set[str] = field(default_factory=set)
    """Providers whose server answered (any HTTP response)."""
    models: list[LocalModel] = field(default_factory=list)
    """Models the servers listed, one per spec, under the provider of one address each."""


def servers(config: Any = None, *, one_per_address: bool = True) -> tuple[LocalServer, ...]:
    """Each local provider and the address its requests go to. ``one_per_address``: one
    provider per address, a configured name before a built-in preset (what the picker offers)."""
    from ..config import Config
    from ..llm import registry
    from ..llm.endpoint import resolve_endpoint
    from ..llm.errors import LarikError
    from .providers import provider_names

    cfg = config if config is not None else Config()
    names = provider_names(cfg)
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
        out.setdefault(server.url if one_per_address else name, server)
    return tuple(out.values())


async def _ask(client: Any, server: LocalServer) -> list[LocalModel] | None:
    """The server's models ([] when it answers without a usable list); None when it is down."""
    try:
        resp = await client.get(server.url)
    except Exception:  # any transport failure means "not running"
        return None
    if resp.status_code != 200:
        return []
    return _parse(server, resp.content)


def _parse(server: LocalServer, body: bytes) -> list[LocalModel]:
    try:
        data = json_value(body)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    items = data.get("models") if "models" in data else data.get("data")
    raw = data.get("data")
    listed: list[Any] = raw if isinstance(raw, list) else []
    windows = {d.get("id"): _window(d) for d in listed if isinstance(d, dict)}  # llama.cpp
    out: list[LocalModel] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        name = item.get("name") or item.get("model") or item.get("id")
        if isinstance(name, str) and name.strip():
            window = _window(item) or windows.get(name)
            out.append(LocalModel(server.provider, name.strip(), server.label, window))
    return out


def _window(item: dict[str, Any]) -> int | None:
    """vLLM's ``max_model_len``, else llama.cpp's ``meta`` (``n_ctx``, else ``n_ctx_train``)."""
    meta = item.get("meta")
    meta = meta if isinstance(meta, dict) else {}
    for value in (item.get("max_model_len"), meta.get("n_ctx"), meta.get("n_ctx_train")):
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


async def _scan(targets: tuple[LocalServer, ...], timeout: float) -> Scan:
    import httpx2

    for s in targets:
        if not is_loopback_url(s.base_url):
            raise ValueError(f"{s.label}: local server discovery is for loopback only")
    result = Scan()
    if not targets:
        return result
    urls = list(dict.fromkeys(s.url for s in targets))  # each address asked once
    by_url = {s.url: s for s in reversed(targets)}  # the first provider of an address lists it
    async with httpx2.AsyncClient(timeout=timeout, trust_env=False) as client:
        found = await asyncio.gather(*(_ask(client, by_url[u]) for u in urls))
    answers = dict(zip(urls, found, strict=True))
    result.up = {s.provider for s in targets if answers[s.url] is not None}
    seen: set[str] = set()
    for models in found:
        for m in models or ():
            if m.spec not in seen:
                seen.add(m.spec)
                result.models.append(m)
    return result


def pulled(config: Any = None) -> list[LocalModel]:
    """The models pulled for Larik's own engine (``local/NAME``), as local models."""
    from ..config import Config
    from ..llm.errors import LarikError
    from ..llm.local.store import Store

    cfg = config if config is not None else Config()
    try:
        entries = Store(cfg.local_dir).entries()
    except LarikError:  # an unreadable index: nothing pulled, as far as a list goes
        return []
    return [LocalModel(ENGINE_PROVIDER, e.name, ENGINE_LABEL) for e in entries]


def engine_running(name: str, config: Any = None) -> bool:
    """Whether a ``larik local serve`` of the pulled model ``name`` answers now (a pulled
    model is listed as usable either way: the engine starts when it is first asked)."""
    from ..config import Config
    from ..llm.errors import LarikError
    from ..llm.local.engine import running
    from ..llm.local.store import Store

    store = Store((config if config is not None else Config()).local_dir)
    try:
        entry = store.get(name)
    except LarikError:
        return False
    return entry is not None and bool(running(store, entry)[0])


def served_window(model: LocalModel, config: Any = None) -> int | None:
    """A served model's context window: what its server says it loaded (what holds: a model
    that can do 32k loaded with 8k takes 8k), else the one the catalog or the config states
    (the ``/model`` picker, ``/routing`` and ``larik models`` show the same)."""
    from ..llm import catalog

    if model.window:
        return model.window
    info = catalog.lookup(model.model, model.provider, config)
    return info.context_window if info.window_known else None


def _with_pulled(result: Scan, config: Any) -> Scan:
    found = pulled(config)
    if found:
        result.up.add("local")
        seen = {m.spec for m in result.models}
        result.models.extend(m for m in found if m.spec not in seen)
    return result


async def discover(
    config: Any = None,
    *,
    probe: tuple[LocalServer, ...] | None = None,
    timeout: float = TIMEOUT,
) -> list[LocalModel]:
    """Models of every local server that answers within ``timeout`` seconds (loopback only):
    the servers of ``config`` (see ``servers``), or the ones in ``probe``."""
    targets = servers(config) if probe is None else probe
    result = await _scan(targets, timeout)
    return (_with_pulled(result, config) if probe is None else result).models


@dataclass(frozen=True, slots=True)
class FoundServer:
    """A model server ``scan_ports`` found: its kind and base URL as a config would name them."""

    port: int
    kind: str  # "ollama" or "openai-compatible"
    base_url: str
    models: tuple[str, ...]

    def config_lines(self, name: str) -> str:
        return f'[providers.{name}]\ntype = "{self.kind}"\nbase_url = "{self.base_url}"'


def parse_ports(text: str) -> list[int]:
    """``"8000-8100,11434"`` → the ports (1–65535); ValueError naming what is wrong."""
    out: list[int] = []
    for part in text.replace(" ", "").split(","):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            raise ValueError(f"--ports {text!r}: expected ports and ranges, e.g. 8000-8100,11434")
        a, b = int(lo), int(hi or lo)
        if not 1 <= a <= b <= 65535:
            raise ValueError(f"--ports {text!r}: {part} is not a range of ports 1–65535")
        out.extend(range(a, b + 1))
    return list(dict.fromkeys(out))


async def _listening(port: int, timeout: float, gate: asyncio.Semaphore) -> bool:
    async with gate:
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
        except (TimeoutError, OSError):
            return False
        writer.close()
        return True


async def _what_serves(client: Any, port: int) -> FoundServer | None:
    base = f"http://127.0.0.1:{port}"
    for kind, url, path in (
        ("ollama", base, "/api/tags"),
        ("openai-compatible", f"{base}/v1", "/models"),
    ):
        server = LocalServer(f"port{port}", kind, url, path)
        try:
            resp = await client.get(server.url)
        except Exception:  # not HTTP, or it hung up: not a model server
            return None
        if resp.status_code == 200:
            models = _parse(server, resp.content)
            if models or b'"models"' in resp.content[:200] or b'"data"' in resp.content[:200]:
                return FoundServer(port, kind, url, tuple(m.model for m in models))
    return None


async def _scan_ports(ports: list[int], timeout: float) -> list[FoundServer]:
    import httpx2

    gate = asyncio.Semaphore(256)
    open_ = [
        p
        for p, up in zip(
            ports, await asyncio.gather(*(_listening(p, timeout, gate) for p in ports)), strict=True
        )
        if up
    ]
    async with httpx2.AsyncClient(timeout=timeout * 4, trust_env=False) as client:
        found = await asyncio.gather(*(_what_serves(client, p) for p in open_))
    return [f for f in found if f is not None]


def scan_ports(ports: list[int], *, timeout: float = TIMEOUT) -> list[FoundServer]:
    """Model servers listening on 127.0.0.1 at any of ``ports`` (each asked once)."""
    return asyncio.run(_scan_ports(ports, timeout))


def scan(config: Any = None, *, timeout: float = TIMEOUT) -> Scan:
    """Which local providers are up and what they list (blocking: for the CLI and threads)."""
    return _with_pulled(asyncio.run(_scan(servers(config, one_per_address=False), timeout)), config)


def reachable_local_providers(config: Any = None, timeout: float = TIMEOUT) -> set[str]:
    """Local providers whose server answers on this machine right now."""
    from ..config import load_config

    return scan(config if config is not None else load_config(), timeout=timeout).up
