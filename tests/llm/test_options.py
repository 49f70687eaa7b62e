"""A bad adapter option is a one-line ConfigError when the adapter is built, for every adapter."""

import pytest

from larik.llm.endpoint import resolve_endpoint
from larik.llm.errors import ConfigError
from larik.llm.providers.anthropic import AnthropicProvider
from larik.llm.providers.gemini import GeminiProvider
from larik.llm.providers.ollama import OllamaProvider
from larik.llm.providers.openai_compat import OpenAICompatProvider
from larik.llm.providers.openai_responses import OpenAIResponsesProvider

ADAPTERS = [
    lambda **kw: AnthropicProvider(resolve_endpoint("anthropic"), **kw),
    lambda **kw: OpenAIResponsesProvider(resolve_endpoint("openai"), **kw),
    lambda **kw: GeminiProvider(resolve_endpoint("gemini"), **kw),
    lambda **kw: OllamaProvider(resolve_endpoint("ollama"), **kw),
    lambda **kw: OpenAICompatProvider(resolve_endpoint("groq"), **kw),
]


@pytest.mark.parametrize("make", ADAPTERS)
@pytest.mark.parametrize("bad", ["soon", 0, -5, True])
def test_a_bad_timeout_is_refused_when_the_adapter_is_built(make, bad):
    with pytest.raises(ConfigError, match="timeout must be a positive number"):
        make(timeout=bad)


@pytest.mark.parametrize("make", ADAPTERS)
def test_a_good_timeout_is_accepted(make):
    make(timeout=30)
