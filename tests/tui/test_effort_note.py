"""``/effort LEVEL`` on a model a reasoning effort does nothing for says so — the status bar
alone changed — on the real Agent with the real adapters (a local engine's catalog model, a
preset that never sends the effort); a model that takes one is confirmed as before."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from larik.agent import Agent
from larik.config import Config
from larik.llm.providers.openai_compat import OpenAICompatProvider
from larik.routing import Resolved
from larik.tui.app import LarikApp
from tests.llm.helpers import endpoint

from .conftest import ready, screen_text, send, wait_for


def _app(tmp_path: Path, provider: Any, model: str) -> LarikApp:
    cwd = tmp_path / "project"
    cwd.mkdir()
    config = Config()

    def resolve(spec: str) -> Resolved:
        return Resolved(provider, model, provider.name, None, f"{provider.name}/{model}")

    async def factory(*, approver: Any, model: str = "", resume: str | None = None) -> Any:
        return await Agent.create(
            cwd=cwd, config=config, model=model, approver=approver, resume=resume, resolver=resolve
        )

    async def no_local(config: Any = None) -> list:
        return []

    return LarikApp(factory, cwd=cwd, config=config, discover_local=no_local)


def shown(app: Any) -> str:
    return " ".join(screen_text(app).split())


@pytest.mark.parametrize(("name", "effort"), [("mistral", "none"), ("groq", "reasoning_effort")])
async def test_effort_on_a_model_it_does_nothing_for_says_so(tmp_path, loopback, name, effort):
    p = OpenAICompatProvider(endpoint(name, f"{loopback.url}/v1", "k", name=name), effort=effort)
    app = _app(tmp_path, p, "some-model")
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/effort high")
        await wait_for(pilot, lambda: "effort: high (was default" in shown(app), timeout=60)
        said = "it has no effect on " in shown(app)
        assert said is (effort == "none")
        assert app.chat.session.agent.effort == "high"  # set all the same: a fallback may take it
        # a model whose reasoning Larik does not know (issue 43 item 10): one line says so
        unknown = f"Larik does not know whether {name}/some-model takes a reasoning effort"
        assert (unknown in shown(app)) is (effort != "none")


async def test_slash_effort_on_an_ollama_model_says_its_reasoning_is_unknown(tmp_path, loopback):
    """An Ollama model may or may not think: Larik sends ``think`` and cannot tell. The one
    line says so and what was kept; ``default`` says nothing of the kind."""
    from larik.llm.providers.ollama import OllamaProvider

    p = OllamaProvider(endpoint("ollama", loopback.url, None, name="ollama"))
    app = _app(tmp_path, p, "qwen3:8b")
    async with app.run_test(size=(140, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/effort high")
        line = "effort: high (was default) — kept, but Larik does not know whether ollama/qwen3:8b"
        await wait_for(pilot, lambda: line in shown(app), timeout=60)
        assert app.chat.session.agent.effort == "high"
        await send(pilot, "/effort default")
        await wait_for(pilot, lambda: "effort: default (was high" in shown(app), timeout=60)
        assert shown(app).count("does not know whether") == 1


async def test_effort_on_a_local_catalog_model_says_it_has_no_effect(tmp_path):
    from larik.llm.local.store import Entry, Store
    from larik.llm.providers.local import LocalProvider

    config = Config()
    gguf = tmp_path / "q.gguf"
    gguf.write_bytes(b"GGUF")
    Store(config.local_dir).add(Entry("qwen2.5-coder-0.5b", str(gguf), 4, "0" * 64, "file"))
    ep = endpoint("local", "", None, name="local")
    p = LocalProvider(replace(ep, local_dir=config.local_dir), model="qwen2.5-coder-0.5b")
    assert p.effort_applies("qwen2.5-coder-0.5b") is False
    assert p.effort_applies("someone-elses.gguf") is None
