"""Built-in OpenAI-compatible endpoints: one row of data per vendor or local server.

``PRESETS`` maps a provider name (``groq``, ``llamacpp``…) to a :class:`Preset`; ``preset(name)``
looks one up. ``OpenAICompatProvider(name=...)`` takes its base URL, key variables, reasoning
history mode, effort style and headers from here; routing registers every name as a provider.
A name that is not here is a *custom* endpoint (``"type": "openai-compatible"`` in the config),
which gets :data:`CUSTOM`'s defaults and must be given a ``base_url``.

Fields, in the order the table uses them:

* ``base_url`` — the API root the SDK appends ``/chat/completions`` to.
* ``env`` — API key variables, first one set wins; empty for local servers, which need no key
  (a server started with one takes ``api_key``/``api_key_env`` like a custom endpoint).
* ``reasoning_history`` — how this provider's own reasoning is sent back on later turns:
  ``field`` (``reasoning_content`` on the assistant message), ``inline`` (``<think>…</think>``
  at the start of the content) or ``strip`` (dropped). Only ever for the same provider and model.
* ``effort`` — how ``Request.effort`` is sent: ``reasoning_effort`` (the Chat Completions
  parameter), ``openrouter`` (``reasoning: {effort}``) or ``none`` (never sent).
* ``stream_usage`` — send ``stream_options: {include_usage: true}`` (off for APIs that reject
  unknown parameters and report usage on their own).
* ``prober`` — which local-server endpoint reports the loaded context window (ModelProber):
  ``llamacpp`` (``/props``), ``vllm`` (``/v1/models``), ``lmstudio`` (``/api/v0/models/{id}``),
  ``auto`` (try each) or ``none``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..errors import ResolveError

__all__ = ["CUSTOM", "PRESETS", "Preset", "ReasoningHistory", "EffortStyle", "preset"]

ReasoningHistory = Literal["field", "inline", "strip"]
EffortStyle = Literal["reasoning_effort", "openrouter", "none"]
Prober = Literal["llamacpp", "vllm", "lmstudio", "auto", "none"]


@dataclass(frozen=True, slots=True)
class Preset:
    name: str
    base_url: str
    env: tuple[str, ...] = ()
    reasoning_history: ReasoningHistory = "strip"
    local: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    effort: EffortStyle = "reasoning_effort"
    stream_usage: bool = True
    prober: Prober = "none"

    @property
    def needs_key(self) -> bool:
        return bool(self.env) and not self.local


_ROWS = [
    Preset(
        "openrouter",
        "https://openrouter.ai/api/v1",
        ("OPENROUTER_API_KEY",),
        headers={"X-Title": "Larik"},
        effort="openrouter",
    ),
    Preset("groq", "https://api.groq.com/openai/v1", ("GROQ_API_KEY",)),
    Preset(
        "deepseek",
        "https://api.deepseek.com",
        ("DEEPSEEK_API_KEY",),
        reasoning_history="field",
        effort="none",
    ),
    Preset("nvidia-nim", "https://integrate.api.nvidia.com/v1", ("NVIDIA_API_KEY",), effort="none"),
    Preset("together", "https://api.together.xyz/v1", ("TOGETHER_API_KEY",)),
    Preset("fireworks", "https://api.fireworks.ai/inference/v1", ("FIREWORKS_API_KEY",)),
    Preset("cerebras", "https://api.cerebras.ai/v1", ("CEREBRAS_API_KEY",)),
    Preset(
        "mistral",
        "https://api.mistral.ai/v1",
        ("MISTRAL_API_KEY",),
        effort="none",
        stream_usage=False,
    ),
    Preset("xai", "https://api.x.ai/v1", ("XAI_API_KEY",), effort="none"),
    Preset(
        "lmstudio",
        "http://127.0.0.1:1234/v1",
        reasoning_history="inline",
        local=True,
        prober="lmstudio",
    ),
    Preset(
        "llamacpp",
        "http://127.0.0.1:8080/v1",
        reasoning_history="field",
        local=True,
        prober="llamacpp",
    ),
    Preset(
        "vllm",
        "http://127.0.0.1:8000/v1",
        reasoning_history="field",
        local=True,
        prober="vllm",
    ),
]

PRESETS: dict[str, Preset] = {p.name: p for p in _ROWS}

CUSTOM = Preset("openai-compatible", "", reasoning_history="field", prober="auto")
"""Defaults for an endpoint that is not a preset: no key unless ``api_key``/``api_key_env`` is
given, reasoning replayed in the ``reasoning_content`` field, every probe tried."""


def preset(name: str) -> Preset:
    """The preset called ``name``; ResolveError naming the known ones if there is none."""
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(sorted(PRESETS))
        raise ResolveError(f"unknown openai-compatible preset {name!r} (known: {known})") from None
