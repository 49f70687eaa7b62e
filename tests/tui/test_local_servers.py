"""Finding models on local servers: loopback only, silent when nothing answers."""

from __future__ import annotations

import json

import pytest

from larik.tui.local_servers import LocalServer, discover
from tests.loopback import Reply


async def test_models_of_answering_servers_are_listed_and_silent_ones_skipped(loopback):
    loopback.route(
        "/api/tags",
        Reply(body=json.dumps({"models": [{"name": "qwen3:8b"}]}), content_type="application/json"),
    )
    loopback.route(
        "/v1/models",
        Reply(body=json.dumps({"data": [{"id": "local-model"}]}), content_type="application/json"),
    )
    servers = (
        LocalServer("ollama", "Ollama", loopback.url.rstrip("/"), "/api/tags"),
        LocalServer("vllm", "vLLM", loopback.url.rstrip("/"), "/v1/models"),
        LocalServer("llamacpp", "llama.cpp", "http://127.0.0.1:9", "/v1/models"),  # nothing there
    )
    found = await discover(servers, timeout=0.5)
    assert [m.spec for m in found] == ["ollama/qwen3:8b", "vllm/local-model"]


async def test_a_server_answering_garbage_lists_nothing(loopback):
    loopback.route("/v1/models", Reply(body="not json", content_type="text/plain"))
    servers = (LocalServer("lmstudio", "LM Studio", loopback.url.rstrip("/"), "/v1/models"),)
    assert await discover(servers) == []


async def test_only_loopback_addresses_are_probed():
    with pytest.raises(ValueError, match="loopback only"):
        await discover((LocalServer("x", "X", "http://10.0.0.1:11434", "/api/tags"),))
