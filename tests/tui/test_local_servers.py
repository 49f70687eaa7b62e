"""Finding models on local servers: loopback only, silent when nothing answers, and each model
listed under the provider whose requests reach the server that lists it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from larik.config import Config
from larik.llm import registry
from larik.routing import local
from larik.tui.app import LarikApp
from larik.tui.local_servers import LocalServer, discover, servers
from larik.tui.screens.model_picker import ModelPickerScreen
from tests.loopback import LoopbackServer, Reply
from tests.patience import WAIT

from .conftest import ready, send, turn_done, wait_for


def models_reply(*ids: str) -> Reply:
    """What llama.cpp's ``/v1/models`` answers: the model both under "models" and "data"."""
    body = {
        "models": [{"name": i, "model": i} for i in ids],
        "object": "list",
        "data": [{"id": i, "object": "model"} for i in ids],
    }
    return Reply(body=json.dumps(body), content_type="application/json")


def chat_reply(text: str) -> Reply:
    chunks = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return Reply(body=body)


async def test_models_of_answering_servers_are_listed_and_silent_ones_skipped(loopback):
    loopback.route(
        "/api/tags",
        Reply(body=json.dumps({"models": [{"name": "qwen3:8b"}]}), content_type="application/json"),
    )
    loopback.route(
        "/v1/models",
        Reply(body=json.dumps({"data": [{"id": "local-model"}]}), content_type="application/json"),
    )
    probe = (
        LocalServer("ollama", "Ollama", loopback.url, "/api/tags"),
        LocalServer("vllm", "vLLM", loopback.url, "/v1/models"),
        LocalServer("llamacpp", "llama.cpp", "http://127.0.0.1:9", "/v1/models"),  # nothing there
    )
    found = await discover(probe=probe, timeout=WAIT)
    assert [m.spec for m in found] == ["ollama/qwen3:8b", "vllm/local-model"]


async def test_a_server_answering_garbage_or_empty_ids_lists_nothing(loopback):
    loopback.route("/v1/models", Reply(body="not json", content_type="text/plain"))
    loopback.route("/v2/models", models_reply("", "  "))
    probe = (
        LocalServer("lmstudio", "LM Studio", loopback.url + "/v1", "/models"),
        LocalServer("llamacpp", "llama.cpp", loopback.url + "/v2", "/models"),
    )
    assert await discover(probe=probe) == []


async def test_only_loopback_addresses_are_probed():
    with pytest.raises(ValueError, match="loopback only"):
        await discover(probe=(LocalServer("x", "X", "http://10.0.0.1:11434", "/api/tags"),))


def test_each_local_provider_is_probed_where_its_requests_go(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:11999")
    config = Config(
        providers={
            "llamacpp": {"base_url": "http://127.0.0.1:8081/v1"},
            "box": {"type": "openai-compatible", "base_url": "http://localhost:9000/v1"},
            "cloud": {"type": "openai-compatible", "base_url": "https://llm.example.com/v1"},
        }
    )
    urls = {s.provider: s.url for s in servers(config)}
    assert urls == {
        "llamacpp": "http://127.0.0.1:8081/v1/models",  # the config's address, not :8080
        "box": "http://localhost:9000/v1/models",
        "ollama": "http://127.0.0.1:11999/api/tags",
        "lmstudio": "http://127.0.0.1:1234/v1/models",
        "vllm": "http://127.0.0.1:8000/v1/models",
    }


def test_two_providers_on_one_address_are_probed_once_under_the_configured_name():
    config = Config(
        providers={"mine": {"type": "openai-compatible", "base_url": "http://127.0.0.1:8080/v1"}}
    )
    assert [s.provider for s in servers(config) if s.address == "127.0.0.1:8080"] == ["mine"]


# -- in the app, end to end: the picker lists, the request goes where the model is ------------
class TwoServers:
    """``configured`` is where the config points a provider; ``default`` stands in for a
    llama.cpp on the preset's default port (the preset is pointed at it)."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        real_scan = local._scan  # the app's scan gives a server 0.5 s: these are given longer
        monkeypatch.setattr(local, "_scan", lambda targets, timeout: real_scan(targets, WAIT))
        self.configured = LoopbackServer().start()
        self.default = LoopbackServer().start()
        self.configured.route("/v1/models", models_reply("configured-model"))
        self.configured.route("/v1/chat/completions", chat_reply("from the configured server"))
        self.default.route("/v1/models", models_reply("/models/SmolLM2-135M.gguf"))
        self.default.route("/v1/chat/completions", chat_reply("from the default port"))
        preset = registry.get("llamacpp")
        assert preset is not None
        moved = dataclasses.replace(preset, base_url=self.default.url + "/v1")
        monkeypatch.setitem(registry._registry, "llamacpp", moved)
        self.cwd = tmp_path / "project"
        self.cwd.mkdir()

    def stop(self) -> None:
        self.configured.stop()
        self.default.stop()

    def app(self, config: Config) -> LarikApp:
        from larik.agent import Agent

        async def factory(*, approver: Any, model: str = "", resume: str | None = None) -> Any:
            return await Agent.create(
                cwd=self.cwd, config=config, model=model, approver=approver, resume=resume
            )

        return LarikApp(factory, cwd=self.cwd, config=config)

    def chats(self, server: LoopbackServer) -> list[Any]:
        return [r for r in server.requests if r.path.endswith("/chat/completions")]


@pytest.fixture
def two(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    servers_ = TwoServers(tmp_path, monkeypatch)
    yield servers_
    servers_.stop()


def listed(app: LarikApp) -> list[str]:
    return [e.spec for e in app.screen.entries if e.spec.partition("/")[0] in ("llamacpp", "x")]


async def test_a_reconfigured_preset_lists_its_own_servers_model_and_not_the_default_ports(two):
    config = Config(providers={"llamacpp": {"base_url": two.configured.url + "/v1"}})
    app = two.app(config)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        # the default port's model is not offered: llamacpp/… requests go to the configured URL
        assert listed(app) == ["llamacpp/configured-model"]
        await pilot.press(*"configured", "enter")
        await ready(pilot)
        await send(pilot, "hi")
        await turn_done(pilot)
        assert [r.json()["model"] for r in two.chats(two.configured)] == ["configured-model"]
        assert two.chats(two.default) == []


async def test_each_found_model_is_listed_under_the_provider_that_serves_it(two):
    config = Config(
        providers={"x": {"type": "openai-compatible", "base_url": two.configured.url + "/v1"}}
    )
    app = two.app(config)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ModelPickerScreen))
        assert sorted(listed(app)) == ["llamacpp//models/SmolLM2-135M.gguf", "x/configured-model"]
        await pilot.press(*"SmolLM2", "enter")
        await ready(pilot)
        await send(pilot, "hi")
        await turn_done(pilot)
        assert [r.json()["model"] for r in two.chats(two.default)] == ["/models/SmolLM2-135M.gguf"]
        assert two.chats(two.configured) == []


async def test_the_window_a_listing_gives_is_kept_and_shown_by_the_picker(loopback):
    """issue 19 item 20: vLLM's max_model_len, llama.cpp's meta (under "data", beside "models")."""
    from larik.tui.models import picker_entries

    body = {
        "models": [{"name": "/m/SmolLM2-135M-Instruct.Q4_1.gguf"}],
        "data": [{"id": "/m/SmolLM2-135M-Instruct.Q4_1.gguf", "meta": {"n_ctx_train": 8192}}],
    }
    loopback.route("/v1/models", Reply(body=json.dumps(body), content_type="application/json"))
    loopback.route(
        "/v2/models",
        Reply(
            body=json.dumps({"data": [{"id": "Qwen/Qwen3-8B", "max_model_len": 32768}]}),
            content_type="application/json",
        ),
    )
    probe = (
        LocalServer("llamacpp", "llama.cpp", loopback.url + "/v1", "/models"),
        LocalServer("vllm", "vLLM", loopback.url + "/v2", "/models"),
    )
    found = await discover(probe=probe, timeout=WAIT)
    assert [(m.model, m.window) for m in found] == [
        ("/m/SmolLM2-135M-Instruct.Q4_1.gguf", 8192),
        ("Qwen/Qwen3-8B", 32768),
    ]
    assert [e.window for e in picker_entries(None, found)][-2:] == [8192, 32768]
