"""Conformance kit for the ``local`` kind: the wire is llama.cpp's Chat Completions, as the
openai-compatible kit writes it. The adapter is pointed at the loopback server by
``base_url`` in ``[providers.local]`` (a server the user runs), so no engine is started; the
engine itself is tested with a real model in tests/llm/local/test_engine.py."""

from __future__ import annotations

from larik.llm.providers.local import LocalProvider
from tests.llm.providers.conformance import kit_endpoint
from tests.llm.providers.kits.openai_compat import Kit as CompatKit


class Kit(CompatKit):
    name = "local"
    model = "qwen2.5-coder-1.5b"
    env_var = "LARIK_LOCAL_KEY"

    def make(self, base_url: str) -> LocalProvider:  # type: ignore[override]
        endpoint = kit_endpoint("local", f"{base_url}/v1", api_key_env=self.env_var)
        return LocalProvider(endpoint, model=self.model)


KIT = Kit()
