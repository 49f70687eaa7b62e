"""Conformance kit for the copilot kind: Chat Completions bodies, on a signed-in account."""

from __future__ import annotations

from typing import Any

from larik.llm.providers.copilot import CopilotProvider
from tests.llm.providers.conformance import kit_endpoint
from tests.llm.providers.kits import openai_compat as compat
from tests.llm.providers.kits.chatgpt import sign_in


class Kit(compat.Kit):
    name = "copilot"
    env_var = ""  # a 401 names `larik login copilot`, not a variable

    def make(self, base_url: str) -> Any:
        sign_in("copilot", host="github.com")
        return CopilotProvider(kit_endpoint("copilot", base_url))


KIT = Kit()
