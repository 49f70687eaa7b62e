"""Building a provider: its adapter from its endpoint, wrapped in timeouts and retries."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..config import Config
from ..llm import registry
from ..llm.endpoint import kind_of, resolve_endpoint
from ..llm.errors import ConfigError, ResolveError
from .providers import unknown_provider

if TYPE_CHECKING:
    from ..llm.provider import Provider

__all__ = ["CHAIN_RETRY_ATTEMPTS", "RETRY_ATTEMPTS", "build_provider", "wrap"]

#: Retry attempts for a model on its own, and for a non-last candidate of a fallback chain
#: (fewer, so the chain moves on sooner).
RETRY_ATTEMPTS = 4
CHAIN_RETRY_ATTEMPTS = 2


def build_provider(name: str, model: str, config: Config, **extra: Any) -> Provider:
    """The bare adapter for provider ``name`` (no timeouts, retries or fallbacks); ``extra``
    options go to its factory (``fresh=True`` for a ``fresh_per_run`` kind)."""
    spec = registry.get(name)
    pc = config.providers.get(name)
    if spec is None and pc is None:
        raise ResolveError(unknown_provider(name, f"{name}/{model}", config))
    endpoint = resolve_endpoint(name, config)
    endpoint.require_key()
    kind = registry.kind(endpoint.kind)
    if spec is not None and (endpoint.kind == spec.type or kind is None):
        factory = spec.factory
    else:
        assert kind is not None  # resolve_endpoint refuses a table with no known kind
        factory = kind.adapter
    options: dict[str, Any] = dict(spec.options) if spec is not None else {}
    if kind is None or not kind.reasoning_history:
        options.pop("reasoning_history", None)
        if pc is not None and pc.reasoning_history:
            raise ConfigError(
                f"providers.{name}.reasoning_history: only openai-compatible providers take it"
            )
    elif pc is not None and pc.reasoning_history:
        options["reasoning_history"] = pc.reasoning_history
    if pc is not None:
        options.update(pc.options)
    if kind is not None and kind.per_model:
        options["model"] = model
    options.update(extra)
    build = registry.load_factory(factory)
    try:
        return build(endpoint, **options)
    except TypeError as e:
        what = endpoint.kind or name
        raise ConfigError(f"providers.{name}: the {what} adapter rejected {e}") from None


def wrap(
    provider: Provider, name: str, config: Config, attempts: int, *, hand_over: bool = False
) -> Provider:
    """Stall timeouts, then retries (``hand_over``: a later fallback candidate takes a long
    Retry-After instead of waiting it out)."""
    from ..llm.retry import with_retry
    from ..llm.timeout import with_timeouts

    wrapped: Provider = with_timeouts(
        provider, first_chunk=config.first_chunk_timeout, idle=config.idle_timeout
    )
    kind = registry.kind(kind_of(name, config))
    if kind is None or kind.retry:
        wrapped = with_retry(wrapped, attempts=attempts, hand_over=hand_over)
    return wrapped
