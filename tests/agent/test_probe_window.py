"""The probe's warning compares the window a server loaded with the one the catalog or the
config *states*: a model the config describes without a window (``[models."llamacpp/…"]
tools = true``) has no stated window, and the default guess (128,000) is never called "the
model's" — a real llama.cpp-shaped server on loopback says what it loaded."""

from __future__ import annotations

import json

import pytest

from larik.agent.probe import capabilities, probe
from larik.config import Config
from larik.llm.providers.openai_compat import OpenAICompatProvider
from larik.routing import Resolved
from tests.llm.helpers import endpoint
from tests.loopback import Reply

PROPS = {"default_generation_settings": {"n_ctx": 8192}, "chat_template_caps": {}}


async def _probed(loopback, model_table: dict) -> tuple[int, list[str]]:
    loopback.route("/props", Reply(body=json.dumps(PROPS), content_type="application/json"))
    config = Config.model_validate({"models": {"llamacpp/tiny.gguf": model_table}})
    p = OpenAICompatProvider(endpoint("llamacpp", f"{loopback.url}/v1", None, name="llamacpp"))
    resolved = Resolved(p, "tiny.gguf", "llamacpp", None, "llamacpp/tiny.gguf")
    caps = await probe(resolved, capabilities(resolved, config))
    return caps.window, caps.warnings


async def test_no_window_stated_no_warning_about_the_default_guess(loopback):
    window, warnings = await _probed(loopback, {"tools": True})
    assert window == 8192
    assert not any("128,000" in w for w in warnings), warnings


@pytest.mark.parametrize("stated", [32_000])
async def test_a_stated_window_larger_than_the_loaded_one_is_warned_about(loopback, stated):
    window, warnings = await _probed(loopback, {"context_window": stated})
    assert window == 8192
    assert any(f"smaller than the model's {stated:,}" in w for w in warnings), warnings
