"""The tables of what reaches a model: ``[providers.NAME]`` (an endpoint: its kind, URL, key
and headers) and ``[models."provider/model"]`` (a catalog entry added or overridden: window,
prices, sampling, and how the edit workflow treats the model).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, field_validator

from ..llm.net import validate_base_url
from .tables import Strict

__all__ = ["MAX_PRICE", "ModelOverride", "ProviderConfig", "ReasoningHistory"]

ReasoningHistory = Literal["inline", "field", "strip"]


class ProviderConfig(Strict):
    """One ``[providers.NAME]`` table: settings for a built-in provider or a custom one."""

    type: str | None = None
    """Adapter kind (a registered one); required for a new provider, optional for a built-in one."""
    base_url: str = ""
    """Endpoint; https, or http for 127.0.0.1/::1/localhost only. Empty: the default."""
    api_key: str = Field(default="", repr=False)
    """The key itself (the file is then written mode 0600). Prefer ``api_key_env``."""
    api_key_env: str = ""
    """Environment variable holding the key, instead of the provider's usual one."""
    headers: dict[str, str] = Field(default_factory=dict, repr=False)
    """Extra HTTP headers sent with every request."""
    reasoning_history: ReasoningHistory | None = None
    """openai-compatible only: send earlier reasoning back inline (<think>), as a field, or strip it."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Extra keyword arguments passed to the adapter as is."""

    @field_validator("type")
    @classmethod
    def _check_type(cls, v: str | None) -> str | None:
        from ..llm import registry

        known = [k.name for k in registry.kinds() if k.listed]
        if v is not None and v not in known:
            raise ValueError(f"must be one of {', '.join(known)}")
        return v

    @field_validator("base_url")
    @classmethod
    def _check_base_url(cls, v: str) -> str:
        return validate_base_url(v) if v else v

    @field_validator("api_key_env")
    @classmethod
    def _check_env_name(cls, v: str) -> str:
        if v and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v):
            raise ValueError("must be an environment variable name, not the key itself")
        return v


#: USD per million tokens no model costs: a cost stays a number JSON can hold (1e308 per
#: million tokens made a reply's cost infinite, and print mode's result no JSON).
MAX_PRICE = 1_000_000.0


class ModelOverride(Strict):
    """One ``[models."provider/model"]`` table: adds a model to the catalog or overrides it."""

    context_window: int | None = Field(default=None, gt=0)
    """Tokens the model can take in (prompt + reply)."""
    max_output: int | None = Field(default=None, gt=0)
    """Most tokens the model can write in one reply."""
    input_price: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    """USD per million uncached input tokens."""
    output_price: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    """USD per million output tokens."""
    cache_read_price: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    """USD per million input tokens read from the prompt cache."""
    cache_write_price: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    """USD per million input tokens written to the prompt cache."""
    tools: bool | list[str] | None = None
    """Whether the model can call tools; a list names the built-in tools it is offered."""
    vision: bool | None = None
    """Whether the model can read images."""
    subscription: bool | None = None
    """Paid by a flat-rate plan: ranked right after local models by suggest_routing."""
    max_turns: int | None = Field(default=None, gt=0)
    """At most this many model calls per turn with this model (lowers max_turns, never raises it)."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    """Sampling temperature sent with every request to this model."""
    top_p: float | None = Field(default=None, gt=0, le=1)
    """Nucleus sampling: the share of probability mass sampled from."""
    repeat_penalty: float | None = Field(default=None, gt=0, le=2)
    """Penalty on tokens repeated recently (llama.cpp, Ollama, vLLM; 1: none)."""
    line_numbers: bool | None = None
    """Whether read_file shows line numbers (default: yes)."""
    cancel_runaway: bool | None = None
    """Cancel a reply that keeps repeating itself as it streams (default: small models)."""
    constrained_tools: bool | None = None
    """Ask a llama.cpp or vLLM server for grammar-constrained tool calls (default: small models)."""
    workflow: Literal["loop", "edit"] | None = None
    """How a turn runs: "loop" (tool calls) or "edit" (Larik finds files, runs tests)."""
    edit_format: Literal["whole", "diff"] | None = None
    """The edit workflow's reply: "whole" files or "diff" (search/replace blocks)."""
    review: bool | None = None
    """The edit workflow asks once for a check against the request when the tests cannot."""
    prefill: bool | None = None
    """The edit workflow begins the model's reply with the file's path and fence."""
    own_tests: bool | None = None
    """The edit workflow asks for tests of the request first when the project's pass."""

    @field_validator("tools")
    @classmethod
    def _known_tools(cls, v: bool | list[str] | None) -> bool | list[str] | None:
        from ..tool_names import ALL_TOOLS

        if isinstance(v, list):
            for name in v:
                if name not in ALL_TOOLS:
                    raise ValueError(f"unknown tool {name!r} (the tools: {', '.join(ALL_TOOLS)})")
        return v
