"""The provider registry: provider name -> how to build it and which secrets it needs.

``register(name, factory, credential_env_names)`` is the one way in, for built-ins and
third-party providers alike. The credential list is a *required* argument: a provider cannot be
registered without declaring its secrets (an empty list says "needs none", e.g. a local server).
An empty name, a missing factory or a duplicate name raises :class:`RegistryError` — these are
programming errors.

A factory is a callable or an import path ``"package.module:Class"`` imported only when the
provider is first built, so importing this module (and ``larik --help``) imports no SDK. Every
factory is called with keywords only::

    factory(name=..., api_key=... | None, base_url=... | None, headers=... | None, **options)

Built-ins: ``anthropic``, ``openai``, ``gemini``, ``ollama``, every openai-compatible preset in
:mod:`larik.llm.providers.presets` (``openrouter``, ``groq``, ``deepseek``, ``nvidia-nim``, … and
the local ``lmstudio``, ``llamacpp``, ``vllm``) and ``scripted`` (``scripted/PATH.json`` plays a script file; one
instance per absolute path per process).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .errors import ResolveError

if TYPE_CHECKING:
    from .provider import Provider
    from .providers.scripted import ScriptedProvider

__all__ = [
    "ADAPTERS",
    "ProviderSpec",
    "RegistryError",
    "get",
    "load_factory",
    "names",
    "register",
    "scripted_provider",
    "unregister",
]

Factory = Callable[..., "Provider"]

#: Adapter type (the ``type`` key of ``[providers.NAME]``) -> factory import path.
ADAPTERS: dict[str, str] = {
    "anthropic": "larik.llm.providers.anthropic:AnthropicProvider",
    "openai": "larik.llm.providers.openai_responses:OpenAIResponsesProvider",
    "gemini": "larik.llm.providers.gemini:GeminiProvider",
    "ollama": "larik.llm.providers.ollama:OllamaProvider",
    "openai-compatible": "larik.llm.providers.openai_compat:OpenAICompatProvider",
}


class RegistryError(ValueError):
    """A provider was registered wrongly (empty name, no factory, duplicate)."""


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    """What the registry knows about one provider."""

    name: str
    factory: Factory | str
    credential_env_names: tuple[str, ...]
    type: str = ""
    """Adapter type, one of ADAPTERS (or "" for a third-party factory)."""
    base_url: str = ""
    """Default endpoint ("" = the adapter's own default)."""
    local: bool = False
    """Runs on this machine: no key, no price."""
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Extra keyword arguments always passed to the factory."""

    @property
    def needs_key(self) -> bool:
        return bool(self.credential_env_names)


_lock = threading.RLock()
_registry: dict[str, ProviderSpec] = {}


def register(
    name: str,
    factory: Factory | str | None,
    credential_env_names: list[str] | tuple[str, ...],
    /,
    *,
    type: str = "",
    base_url: str = "",
    local: bool = False,
    options: Mapping[str, Any] | None = None,
) -> ProviderSpec:
    """Register a provider. ``credential_env_names`` lists the environment variables that may
    hold its key, in order of preference; pass ``[]`` for a provider that needs none."""
    if not isinstance(name, str) or not name.strip():
        raise RegistryError("a provider needs a non-empty name")
    if "/" in name:
        raise RegistryError(f"provider name {name!r} must not contain '/'")
    if factory is None or not (callable(factory) or isinstance(factory, str)):
        raise RegistryError(f"provider {name!r} needs a factory (a callable or 'module:attr')")
    if isinstance(credential_env_names, str) or credential_env_names is None:
        raise RegistryError(
            f"provider {name!r}: credential_env_names must be a list of variable names"
        )
    spec = ProviderSpec(
        name=name,
        factory=factory,
        credential_env_names=tuple(credential_env_names),
        type=type,
        base_url=base_url,
        local=local,
        options=MappingProxyType(dict(options or {})),
    )
    with _lock:
        if name in _registry:
            raise RegistryError(f"provider {name!r} is already registered")
        _registry[name] = spec
    return spec


def unregister(name: str) -> None:
    """Remove a provider (for plugins and tests). Unknown names are ignored."""
    with _lock:
        _registry.pop(name, None)


def get(name: str) -> ProviderSpec | None:
    with _lock:
        return _registry.get(name)


def names() -> list[str]:
    """Registered provider names, in registration order."""
    with _lock:
        return list(_registry)


def load_factory(factory: Factory | str) -> Factory:
    """Turn ``"module:attr"`` into the object it names (importing the module now)."""
    if not isinstance(factory, str):
        return factory
    module_name, _, attr = factory.partition(":")
    try:
        module = importlib.import_module(module_name)
        return getattr(module, attr)
    except (ImportError, AttributeError) as e:
        raise ResolveError(f"provider adapter {factory} is not available ({e})") from None


# -------------------------------------------------------------------------------- scripted

_scripted: dict[Path, ScriptedProvider] = {}
_scripted_lock = threading.Lock()


def scripted_provider(path: str | Path) -> ScriptedProvider:
    """The ScriptedProvider playing ``path``: one instance per absolute path per process, so a
    conversation (and its subagents) consumes one script in order."""
    from .providers.scripted import ScriptedProvider

    key = Path(path).expanduser().absolute()
    with _scripted_lock:
        provider = _scripted.get(key)
        if provider is None:
            provider = ScriptedProvider.from_file(key)
            _scripted[key] = provider
        return provider


def _scripted_factory(*, name: str = "scripted", path: str = "", **_: Any) -> ScriptedProvider:
    return scripted_provider(path)


# ------------------------------------------------------------------------------- built-ins


def _register_builtins() -> None:
    register("anthropic", ADAPTERS["anthropic"], ["ANTHROPIC_API_KEY"], type="anthropic")
    register("openai", ADAPTERS["openai"], ["OPENAI_API_KEY"], type="openai")
    register("gemini", ADAPTERS["gemini"], ["GEMINI_API_KEY", "GOOGLE_API_KEY"], type="gemini")
    register(
        "ollama",
        ADAPTERS["ollama"],
        [],
        type="ollama",
        base_url="http://127.0.0.1:11434",
        local=True,
    )
    from .providers.presets import PRESETS  # data only: imports no SDK

    for pname, preset in PRESETS.items():
        if pname in _registry:
            continue
        register(
            pname,
            ADAPTERS["openai-compatible"],
            list(preset.env),
            type="openai-compatible",
            base_url=preset.base_url,
            local=preset.local,
            options={"reasoning_history": preset.reasoning_history},
        )
    register("scripted", _scripted_factory, [], type="scripted", local=True)


_register_builtins()
