"""A sixth adapter kind is its module, its kit and one registry entry — nothing else.

``tests/llm/providers/kits/azure_like.py`` holds all three for ``azure-like`` (an
OpenAI-compatible variant). With only its entry registered, every part of Larik that used to
need an edit per kind picks it up: config's ``type``, routing (key, base URL, build), the TUI
warm-up, the no-model screen, the provider lists and the conformance suite.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from larik import routing
from larik.config import Config
from larik.llm import registry
from larik.llm.endpoint import resolve_endpoint
from larik.llm.errors import MissingKeyError
from larik.llm.types import Message, Request, Usage
from larik.tui.warmup import sdk_modules
from tests.llm.providers import test_conformance
from tests.llm.providers.kits import azure_like


@pytest.fixture
def sixth() -> Iterator[registry.Kind]:
    registry.register_kind(azure_like.KIND)
    try:
        yield azure_like.KIND
    finally:
        registry.unregister_kind(azure_like.KIND.name)


def test_the_conformance_suite_runs_over_it():
    assert "azure-like" in test_conformance.KIND_NAMES
    assert test_conformance.kit_for("azure-like") is azure_like.KIT


def test_config_accepts_its_type_only_while_it_is_registered(sixth):
    table = {"type": "azure-like", "base_url": "https://box.example/openai/v1"}
    assert Config(providers={"box": table}).providers["box"].type == "azure-like"
    registry.unregister_kind("azure-like")
    with pytest.raises(ValueError, match="must be one of"):
        Config(providers={"box": table})
    registry.register_kind(azure_like.KIND)


async def test_routing_builds_and_streams_it_with_its_key(sixth, loopback, monkeypatch):
    config = Config(providers={"azure-like": {"base_url": f"{loopback.url}/v1"}})
    with pytest.raises(MissingKeyError, match="AZURE_LIKE_KEY"):
        routing.resolve("azure-like/gpt-4o", config)
    monkeypatch.setenv("AZURE_LIKE_KEY", "azure-key-123456")
    resolved = routing.resolve("azure-like/gpt-4o", config)
    loopback.add(azure_like.KIT.text_reply(["Hi"], Usage(input=1, output=1)))
    request = Request(model=resolved.model, messages=[Message.user("hi")], max_tokens=16)
    events = [ev async for ev in resolved.provider.stream(request)]
    assert events[-1].message.text() == "Hi"
    assert loopback.requests[-1].headers["api-key"] == "azure-key-123456"


def test_its_endpoint_comes_from_the_entry(sixth):
    endpoint = resolve_endpoint("azure-like", Config())
    assert endpoint.base_url == "https://azure-like.example/openai/v1" and not endpoint.local
    assert endpoint.key_names == ("AZURE_LIKE_KEY",) and endpoint.key_required


def test_the_tui_warms_up_its_modules(sixth):
    assert sdk_modules("azure-like") == azure_like.KIND.warm_modules


def test_the_no_model_screen_and_the_provider_list_name_it(sixth):
    from larik.tui.screens.no_model import no_model_text

    assert "export AZURE_LIKE_KEY=..." in no_model_text(looked=())
    assert "azure-like" in routing.provider_names(Config())
