"""What an OpenAI-compatible server says about a model it serves: the context window it loaded
and whether its chat template takes tools, asked of llama.cpp's ``/props``, vLLM's (and
llama.cpp's) ``/v1/models`` or LM Studio's ``/api/v0/models/{id}``; and a model's size in
parameters (llama.cpp's ``meta.n_params``). A probe that fails finds nothing, never raises.

:class:`~.openai_compat.OpenAICompatProvider` asks, and keeps the answers per model.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PROBE_TIMEOUT", "PROBES", "Found", "listed_params", "probe_server"]

PROBE_TIMEOUT = 5.0

#: (context window, supports tools): None where the server did not say
Found = tuple[int | None, bool | None]


async def probe_server(
    prober: str, base_url: str, key: str | None, model: str
) -> tuple[str, Found]:
    """The server kind that told ``model``'s window (``llamacpp``, ``vllm``, ``lmstudio``; ""
    none did) and what it found. ``prober`` is the preset's: one kind, or ``auto`` for each in
    turn."""
    import httpx2

    headers = {"Authorization": f"Bearer {key}"} if key else {}
    root = base_url.removesuffix("/v1")
    order = ("llamacpp", "vllm", "lmstudio") if prober == "auto" else (prober,)
    found: Found = (None, None)
    async with httpx2.AsyncClient(timeout=PROBE_TIMEOUT, headers=headers) as http:
        for kind in order:
            try:
                found = await PROBES[kind](http, root, base_url, model)
            except (httpx2.HTTPError, OSError, ValueError):
                continue
            if found[0] is not None:
                return kind, found
    return "", found


async def listed_params(base_url: str, key: str | None, model: str) -> float | None:
    """The model's size in billions of parameters, as llama.cpp's ``/v1/models`` reports it
    (``meta.n_params``); None when the server does not say. Never raises."""
    import httpx2

    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        async with httpx2.AsyncClient(timeout=PROBE_TIMEOUT, headers=headers) as http:
            listing = await _get_json(http, f"{base_url}/models")
    except (httpx2.HTTPError, OSError, ValueError):
        return None
    data = listing.get("data") if isinstance(listing, dict) else None
    entries = [m for m in data or () if isinstance(m, dict)]
    entry = next((m for m in entries if m.get("id") == model), None)
    entry = entry if entry is not None or len(entries) != 1 else entries[0]
    meta = entry.get("meta") if entry is not None else None
    n = meta.get("n_params") if isinstance(meta, dict) else None
    return n / 1e9 if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None


async def _get_json(http: Any, url: str) -> Any:
    response = await http.get(url)
    response.raise_for_status()
    return response.json()


async def _probe_llamacpp(http: Any, root: str, base: str, model: str):
    props = await _get_json(http, f"{root}/props")
    if not isinstance(props, dict):
        return None, None
    settings = props.get("default_generation_settings")
    n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
    n_ctx = n_ctx if isinstance(n_ctx, int) else props.get("n_ctx")
    caps = props.get("chat_template_caps")
    tools = caps.get("supports_tools") if isinstance(caps, dict) else None
    if not isinstance(tools, bool):
        template = props.get("chat_template")
        tools = True if isinstance(template, str) and "tools" in template else None
    return (n_ctx if isinstance(n_ctx, int) and n_ctx > 0 else None), tools


async def _probe_vllm(http: Any, root: str, base: str, model: str):
    listing = await _get_json(http, f"{base}/models")
    data = listing.get("data") if isinstance(listing, dict) else None
    entries = [m for m in data or () if isinstance(m, dict)]
    entry = next((m for m in entries if m.get("id") == model), None)
    if entry is None and len(entries) == 1:
        entry = entries[0]
    if entry is None:
        return None, None
    n_ctx = entry.get("max_model_len")
    meta = entry.get("meta")
    if not isinstance(n_ctx, int) and isinstance(meta, dict):  # llama.cpp's /v1/models
        n_ctx = meta.get("n_ctx")
    return (n_ctx if isinstance(n_ctx, int) and n_ctx > 0 else None), None


async def _probe_lmstudio(http: Any, root: str, base: str, model: str):
    info = await _get_json(http, f"{root}/api/v0/models/{model}")
    if not isinstance(info, dict):
        return None, None
    n_ctx = info.get("loaded_context_length")
    if not isinstance(n_ctx, int) or n_ctx <= 0:
        n_ctx = info.get("max_context_length")
    caps = info.get("capabilities")
    tools = True if isinstance(caps, list) and "tool_use" in caps else None
    return (n_ctx if isinstance(n_ctx, int) and n_ctx > 0 else None), tools


PROBES = {"llamacpp": _probe_llamacpp, "vllm": _probe_vllm, "lmstudio": _probe_lmstudio}
