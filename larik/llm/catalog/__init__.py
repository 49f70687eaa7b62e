"""The model catalog: context window, max output, prices and capabilities of known models.

The data lives in ``models.toml`` beside this file (it says when its prices were taken). It
drives the context percentage, the compaction threshold and cost reporting. Unknown models get a
128k window, an 8k output cap and no price; local models (Ollama, LM Studio, llama.cpp, vLLM, any
provider on a loopback URL) cost nothing, and so do the models of a sign-in provider (``chatgpt``,
``copilot``: ``subscription``, paid by the plan). The ``[models."provider/model"]`` config tables add or
override entries.

``lookup("claude-sonnet-4-5-20250929")`` finds ``anthropic/claude-sonnet-4-5`` (dated snapshots,
aliases and Ollama's ``:latest`` tag are folded); ``lookup(model, provider)`` looks only at that
provider's entries, then at the same model id under another provider (window and capabilities,
but no price: a different host charges differently).
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..settings import LlmSettings, ModelSettings
    from ..types import Usage

__all__ = [
    "DEFAULT_MAX_OUTPUT",
    "DEFAULT_WINDOW",
    "ModelInfo",
    "cost",
    "default_model",
    "entries",
    "is_local_provider",
    "is_plan_provider",
    "lookup",
    "prices_as_of",
]

DEFAULT_WINDOW = 128_000
DEFAULT_MAX_OUTPUT = 8_192
_DATA = Path(__file__).with_name("models.toml")
_DATED = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2})$")


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """One catalog entry. Prices are USD per million tokens; None means unknown."""

    id: str
    provider: str
    context_window: int = DEFAULT_WINDOW
    max_output: int = DEFAULT_MAX_OUTPUT
    input_price: float | None = None
    output_price: float | None = None
    cache_read_price: float | None = None
    cache_write_price: float | None = None
    tools: bool = True
    vision: bool = False
    known: bool = False
    """True when the catalog or the config describes this model."""
    window_known: bool = False
    """True when the catalog or the config states ``context_window`` (else it is a guess:
    ``DEFAULT_WINDOW``, never to be called "the model's" window)."""
    local: bool = False
    """Served on this machine: free, and ranked first by suggest_routing."""
    subscription: bool = False
    """Paid by a flat-rate plan (a sign-in provider's models, or set in config): ranked right
    after local models, and free per token."""
    params_b: float | None = None
    """Size in billions of parameters, when known or guessable from the name."""
    note: str = ""

    @property
    def spec(self) -> str:
        return f"{self.provider}/{self.id}" if self.provider else self.id

    @property
    def priced(self) -> bool:
        return self.input_price is not None and self.output_price is not None


# ---------------------------------------------------------------------------------- data


@functools.cache
def _load() -> tuple[dict[str, Any], tuple[ModelInfo, ...], dict[tuple[str, str], ModelInfo]]:
    data = tomllib.loads(_DATA.read_text(encoding="utf-8"))
    infos: list[ModelInfo] = []
    index: dict[tuple[str, str], ModelInfo] = {}
    for raw in data.get("models", []):
        info = ModelInfo(
            id=raw["id"],
            provider=raw["provider"],
            context_window=int(raw.get("context_window", DEFAULT_WINDOW)),
            max_output=int(raw.get("max_output", DEFAULT_MAX_OUTPUT)),
            input_price=raw.get("input"),
            output_price=raw.get("output"),
            cache_read_price=raw.get("cache_read"),
            cache_write_price=raw.get("cache_write"),
            tools=bool(raw.get("tools", True)),
            vision=bool(raw.get("vision", False)),
            known=True,
            window_known="context_window" in raw,
            subscription=bool(raw.get("subscription", False)),
            params_b=raw.get("params_b"),
            note=raw.get("note", ""),
        )
        infos.append(info)
        for name in (info.id, *raw.get("aliases", [])):
            index.setdefault((info.provider, name.lower()), info)
    meta = {k: v for k, v in data.items() if k != "models"}
    return meta, tuple(infos), index


def prices_as_of() -> str:
    """The date the catalog's prices were taken (YYYY-MM-DD)."""
    return str(_load()[0].get("prices_as_of", ""))


def default_model(name: str) -> str:
    """The catalog's default for a provider (its main model id) or a Claude role
    (``opus``/``sonnet``/``haiku`` -> "anthropic/…"); "" when it has none."""
    return str(_load()[0].get("defaults", {}).get(name, ""))


# -------------------------------------------------------------------------------- lookups


def entries(config: LlmSettings | None = None) -> list[ModelInfo]:
    """Every catalog model, then models the config adds, with config overrides applied."""
    _, infos, _ = _load()
    out = [lookup(i.id, i.provider, config) for i in infos]
    seen = {i.spec for i in out}
    if config is not None:
        for key in config.models:
            if "/" in key:
                provider, _, model = key.partition("/")
                info = lookup(model, provider, config)
                if info.spec not in seen:
                    seen.add(info.spec)
                    out.append(info)
    return out


def lookup(model: str, provider: str | None = None, config: LlmSettings | None = None) -> ModelInfo:
    """What is known about ``model`` (optionally as served by ``provider``)."""
    if provider is None and "/" in model and _find(None, model) is None:
        head, _, rest = model.partition("/")
        if _provider_known(head, config):
            provider, model = head, rest
    found = _find(provider, model)
    if found is not None:
        info = found
        if provider is not None and found.provider != provider:
            same_vendor = _provider_type(provider, config) == found.provider
            info = replace(found, provider=provider, id=model)
            if not same_vendor:
                info = replace(
                    info,
                    input_price=None,
                    output_price=None,
                    cache_read_price=None,
                    cache_write_price=None,
                )
    else:
        info = ModelInfo(id=model, provider=provider or "", params_b=_guess_params(model))
    if config is not None:
        override = config.models.get(f"{info.provider}/{model}") or config.models.get(model)
        if override is not None:
            info = _apply(info, override)
    if info.provider and is_plan_provider(info.provider, config):
        info = replace(
            info,
            subscription=True,
            input_price=0.0,
            output_price=0.0,
            cache_read_price=0.0,
            cache_write_price=0.0,
        )
    elif info.provider and is_local_provider(info.provider, config):
        info = replace(
            info,
            local=True,
            input_price=0.0 if info.input_price is None else info.input_price,
            output_price=0.0 if info.output_price is None else info.output_price,
        )
    return info


def _find(provider: str | None, model: str) -> ModelInfo | None:
    """The entry for ``model`` (id or alias, dated snapshot or ``:latest`` folded): under
    ``provider`` if given and present there, else the first in file order under any provider."""
    _, _, index = _load()
    lowered = model.lower()
    names = [lowered, _DATED.sub("", lowered), lowered.removesuffix(":latest")]
    if provider is not None:
        for name in names:
            if (provider, name) in index:
                return index[(provider, name)]
    for name in names:
        for (_, key), info in index.items():
            if key == name:
                return info
    return None


def _apply(info: ModelInfo, o: ModelSettings) -> ModelInfo:
    changes: dict[str, Any] = {"known": True}
    for key in (
        "context_window",
        "max_output",
        "input_price",
        "output_price",
        "cache_read_price",
        "cache_write_price",
        "tools",
        "vision",
        "subscription",
    ):
        value = getattr(o, key)
        if isinstance(value, list):  # tools = [...] names the tools offered: it calls tools
            value = True
        if value is not None:
            changes[key] = value
    if o.context_window is not None:
        changes["window_known"] = True
    return replace(info, **changes)


def _guess_params(model: str) -> float | None:
    m = re.search(
        r"(?<![\w.])(\d+(?:\.\d+)?)b\b", model.lower().replace(":", " ").replace("-", " ")
    )
    return float(m.group(1)) if m else None


def _provider_known(name: str, config: LlmSettings | None) -> bool:
    from .. import registry

    return registry.get(name) is not None or (config is not None and name in config.providers)


def _provider_type(name: str, config: LlmSettings | None) -> str:
    from ..endpoint import kind_of

    return kind_of(name, config)


def is_plan_provider(name: str, config: LlmSettings | None = None) -> bool:
    """Whether provider ``name`` is reached through a sign-in (a plan pays its models)."""
    from .. import registry

    entry = registry.kind(_provider_type(name, config))
    return entry is not None and bool(entry.signin)


def is_local_provider(name: str, config: LlmSettings | None = None) -> bool:
    """Whether provider ``name`` runs on this machine (its endpoint is loopback)."""
    from ..endpoint import is_local

    return is_local(name, config)


# ----------------------------------------------------------------------------------- cost


def cost(
    usage: Usage, model: str, provider: str | None = None, config: LlmSettings | None = None
) -> float | None:
    """USD for ``usage`` on ``model``; None when the model's price is unknown. Cache tokens
    without a cache price are charged at the input price."""
    info = lookup(model, provider, config)
    if not info.priced:
        return None
    assert info.input_price is not None and info.output_price is not None
    read = info.cache_read_price if info.cache_read_price is not None else info.input_price
    write = info.cache_write_price if info.cache_write_price is not None else info.input_price
    total = (
        usage.input * info.input_price
        + usage.output * info.output_price
        + usage.cache_read * read
        + usage.cache_write * write
    )
    return total / 1_000_000
