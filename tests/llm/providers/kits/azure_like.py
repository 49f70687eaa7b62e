"""A sixth adapter kind that only the tests know: proof that a kind is its module, its kit and
one registry entry.

``azure-like`` is an OpenAI-compatible variant in the style of Azure OpenAI: Chat Completions,
with the key also in an ``api-key`` header. The adapter is a few lines composed on the
openai-compatible one; the kit reuses
that kind's wire bodies; ``KIND`` is the one entry. Nothing else in Larik is touched: config's
``type``, routing, the warm-up, the no-model screen and the conformance suite pick it up from the
entry (tests/llm/providers/test_sixth_kind.py shows each).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from larik.llm.endpoint import Endpoint
from larik.llm.providers.openai_compat import OpenAICompatProvider
from larik.llm.registry import HTTP_STACK, Kind
from tests.llm.providers.conformance import kit_endpoint
from tests.llm.providers.kits import openai_compat as compat

ENV_VAR = "AZURE_LIKE_KEY"


class AzureLikeProvider:
    """Chat Completions with the key in an ``api-key`` header as well (Azure's style)."""

    def __init__(self, endpoint: Endpoint, **options: Any) -> None:
        headers = {**endpoint.headers, "api-key": endpoint.api_key or ""}
        self._inner = OpenAICompatProvider(replace(endpoint, headers=headers), **options)
        self.name = endpoint.name
        self.stream = self._inner.stream


# The one registry entry (registered while tests use it; a real kind calls register_kind).
KIND = Kind(
    name="azure-like",
    adapter=AzureLikeProvider,
    warm_modules=(*HTTP_STACK, "openai", "jiter"),
    credential_env_names=(ENV_VAR,),
    base_url="https://azure-like.example/openai/v1",
)


class Kit(compat.Kit):
    name = "azure-like"
    env_var = ENV_VAR

    def make(self, base_url: str) -> Any:
        return AzureLikeProvider(kit_endpoint("azure-like", f"{base_url}/v1"))


KIT = Kit()
