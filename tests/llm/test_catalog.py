"""Model catalog: lookups, unknown models, config overrides, cost."""

from __future__ import annotations

import datetime as dt
import tomllib

import pytest

from larik.config import Config, ModelOverride
from larik.llm import catalog, registry
from larik.llm.catalog import DEFAULT_WINDOW, cost, lookup
from larik.llm.types import Usage

M = 1_000_000


def test_the_data_file_says_when_its_prices_were_taken():
    raw = tomllib.loads(catalog._DATA.read_text())
    assert dt.date.fromisoformat(raw["prices_as_of"]) == dt.date.fromisoformat(
        catalog.prices_as_of()
    )
    assert raw["source"]


def test_every_entry_is_sane_and_served_by_a_registered_provider():
    for info in catalog.entries():
        assert registry.get(info.provider) is not None, info.spec
        assert 0 < info.max_output <= info.context_window, info.spec
        for price in (info.input_price, info.output_price, info.cache_read_price):
            assert price is None or price >= 0, info.spec


@pytest.mark.parametrize(
    "provider", ["anthropic", "openai", "gemini", "deepseek", "groq", "openrouter", "ollama"]
)
def test_the_catalog_covers_each_major_provider(provider):
    assert sum(1 for i in catalog.entries() if i.provider == provider) >= 2


def test_defaults_name_catalog_models():
    for key in ("anthropic", "openai", "gemini"):
        assert lookup(catalog.default_model(key), key).known
    for role in ("opus", "sonnet", "haiku"):
        provider, _, model = catalog.default_model(role).partition("/")
        assert provider == "anthropic" and lookup(model, provider).known


def test_a_known_model_has_its_window_prices_and_capabilities():
    info = lookup("claude-sonnet-4-5")
    assert (info.provider, info.context_window, info.max_output) == ("anthropic", 200_000, 64_000)
    assert (info.input_price, info.output_price) == (3.0, 15.0)
    assert (info.cache_read_price, info.cache_write_price) == (0.3, 3.75)
    assert info.tools and info.vision and info.known


def test_dated_snapshots_and_aliases_find_their_entry():
    assert lookup("claude-sonnet-4-5-20250929").id == "claude-sonnet-4-5"
    assert lookup("gpt-5.5-2026-04-23").id == "gpt-5.5"
    assert lookup("qwen3-coder", "ollama").id == "qwen3-coder:30b"
    assert lookup("qwen3-coder:latest", "ollama").known


def test_provider_slash_model_is_split_when_not_itself_an_id():
    assert lookup("anthropic/claude-opus-5").provider == "anthropic"
    assert lookup("openai/gpt-oss-120b").provider == "groq"  # a groq model id with a slash


def test_an_unknown_model_gets_128k_and_no_price():
    info = lookup("mystery-model-9", "openrouter")
    assert info.context_window == DEFAULT_WINDOW == 128_000
    assert info.input_price is None and info.output_price is None
    assert not info.known
    assert cost(Usage(input=10, output=10), "mystery-model-9", "openrouter") is None


def test_the_same_model_on_another_host_keeps_its_window_but_not_its_price():
    info = lookup("claude-opus-5-5", "some-gateway")
    assert info.context_window == 1_000_000 and info.input_price is None


def test_a_custom_provider_of_a_vendor_type_keeps_the_vendor_price():
    config = Config.model_validate(
        {"providers": {"work": {"type": "anthropic", "base_url": "https://proxy.example"}}}
    )
    assert lookup("claude-opus-5-5", "work", config).input_price == 4.0


def test_local_models_cost_nothing_even_when_unknown():
    info = lookup("homebrew-7b:q4", "ollama")
    assert info.local and not info.known
    assert cost(Usage(input=M, output=M), "homebrew-7b:q4", "ollama") == 0.0


def test_a_custom_provider_on_loopback_is_local():
    config = Config.model_validate(
        {"providers": {"box": {"type": "openai-compatible", "base_url": "http://localhost:9/v1"}}}
    )
    assert lookup("anything", "box", config).local


def test_config_overrides_a_catalog_entry():
    config = Config(models={"anthropic/claude-opus-5": ModelOverride(context_window=500_000)})
    info = lookup("claude-opus-5", "anthropic", config)
    assert info.context_window == 500_000 and info.input_price == 5.0


def test_config_adds_an_unknown_model():
    config = Config(
        models={
            "openrouter/acme/coder-1": ModelOverride(
                context_window=64_000, input_price=1.0, output_price=2.0, tools=False
            )
        }
    )
    info = lookup("acme/coder-1", "openrouter", config)
    assert info.known and info.context_window == 64_000 and not info.tools
    assert cost(Usage(input=M, output=M), "acme/coder-1", "openrouter", config) == 3.0
    assert "openrouter/acme/coder-1" in {i.spec for i in catalog.entries(config)}


def test_cost_prices_all_four_token_tiers():
    usage = Usage(input=M, output=M, cache_read=M, cache_write=M)
    assert cost(usage, "claude-opus-5-5", "anthropic") == pytest.approx(4 + 20 + 0.2 + 5)


def test_cache_tokens_without_a_cache_price_are_charged_as_input():
    usage = Usage(cache_write=M)
    assert cost(usage, "gpt-5.5", "openai") == pytest.approx(5.0)  # no cache-write price
    assert cost(Usage(cache_read=M), "qwen/qwen3-coder", "openrouter") == pytest.approx(0.22)


def test_guessing_the_size_of_an_unknown_model_from_its_name():
    assert lookup("llama3.2:1b", "ollama").params_b == 1
    assert lookup("qwen2.5-coder:1.5b-instruct", "ollama").params_b == 1.5
    assert lookup("mystery", "ollama").params_b is None
