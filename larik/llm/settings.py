"""What the llm layer reads of the user's configuration, as protocols.

:mod:`larik.config` is a layer above this one (it imports llm's errors, URL checks and
registry), so llm never imports it, not even for a type: the endpoint rules and the catalog are
typed against these protocols, and ``Config``, ``ProviderConfig`` and ``ModelOverride``
satisfy them (mypy checks it wherever a Config is passed in). A field llm starts reading is
added here first.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

__all__ = ["LlmSettings", "ModelSettings", "ProviderSettings"]


class ProviderSettings(Protocol):
    """One ``[providers.NAME]`` table (``larik.config.ProviderConfig``)."""

    @property
    def type(self) -> str | None: ...
    @property
    def base_url(self) -> str: ...
    @property
    def api_key(self) -> str: ...
    @property
    def api_key_env(self) -> str: ...
    @property
    def headers(self) -> Mapping[str, str]: ...


class ModelSettings(Protocol):
    """One ``[models."provider/model"]`` table (``larik.config.ModelOverride``)."""

    @property
    def context_window(self) -> int | None: ...
    @property
    def max_output(self) -> int | None: ...
    @property
    def input_price(self) -> float | None: ...
    @property
    def output_price(self) -> float | None: ...
    @property
    def cache_read_price(self) -> float | None: ...
    @property
    def cache_write_price(self) -> float | None: ...
    @property
    def tools(self) -> bool | list[str] | None: ...
    @property
    def vision(self) -> bool | None: ...
    @property
    def subscription(self) -> bool | None: ...


class LlmSettings(Protocol):
    """The configuration as llm reads it (``larik.config.Config``)."""

    @property
    def providers(self) -> Mapping[str, ProviderSettings]: ...
    @property
    def models(self) -> Mapping[str, ModelSettings]: ...
    @property
    def accounts_dir(self) -> Path:
        """Where signed-in accounts are kept (``<state>/accounts``)."""
        ...

    @property
    def local_dir(self) -> Path:
        """Where the local engine keeps its models' index, logs and run files
        (``<state>/local``)."""
        ...
