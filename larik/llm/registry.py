"""The registry: adapter *kinds* and the named *providers* built on them.

A **kind** (:class:`Kind`) is one adapter and everything Larik must know about it, in one entry:
the adapter factory, the ``type`` a ``[providers.NAME]`` table names it by, the modules the TUI
warms up before the first request, the key variables and default base URL of a provider of this
kind, the environment variable that may move that URL, where a local server lists its models.
Adding a kind is its adapter module, its conformance kit (``tests/llm/providers/kits/``) and one
``register_kind(Kind(...))``: config's ``type``, routing, the warm-up, the no-model screen, local
discovery and the conformance suite all read the entry. ``warm_modules`` has no default, so a
kind cannot be registered without saying what to warm up.

A **provider** (:class:`ProviderSpec`) is a name users type (``groq/…``): a kind plus its
defaults. ``register(name, factory, credential_env_names)`` is the one way in, for built-ins and
third-party providers alike. The credential list is a *required* argument: a provider cannot be
registered without declaring its secrets (an empty list says "needs none", e.g. a local server).
An empty name, a missing factory or a duplicate name raises :class:`RegistryError` — these are
programming errors.

A factory is a callable or an import path ``"package.module:Class"`` imported only when the
provider is first built, so importing this module (and ``larik --help``) imports no SDK. Every
factory is called with the provider's :class:`~larik.llm.endpoint.Endpoint` (name, base URL,
key, headers — worked out by ``larik.llm.endpoint.resolve_endpoint``, the only code that reads
the environment for providers) and the adapter options as keywords::

    factory(endpoint, **options)                 # a kind with per_model=True: also model=...

Built-in kinds: ``anthropic``, ``openai``, ``gemini``, ``ollama``, ``openai-compatible``,
``chatgpt`` and ``copilot`` (sign-in kinds: a plan the user pays for, ``larik login NAME``),
``local`` (the embedded llama.cpp engine Larik starts itself: :mod:`larik.llm.local`) and
``scripted``. Built-in providers: one per kind of the same name (not ``openai-compatible``), and
every openai-compatible preset in :mod:`larik.llm.providers.presets` (``openrouter``, ``groq``,
``deepseek``, ``nvidia-nim``, … and the local ``lmstudio``, ``llamacpp``, ``vllm``).
``scripted/PATH.json`` plays a script file (one instance per absolute path per process).
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
    from .endpoint import Endpoint
    from .provider import Provider
    from .providers.scripted import ScriptedProvider

__all__ = [
    "KEY_ORDER",
    "Kind",
    "ProviderSpec",
    "RegistryError",
    "get",
    "kind",
    "kinds",
    "load_factory",
    "names",
    "register",
    "register_kind",
    "scripted_provider",
    "unregister",
    "unregister_kind",
]

#: The providers a session starts on when no model is asked for or configured: the first of
#: these with a key (``larik.routing.targets``; ``larik acp``'s ``initialize`` asks the same).
KEY_ORDER = ("anthropic", "openai", "gemini")

Factory = Callable[..., "Provider"]


class RegistryError(ValueError):
    """A provider or kind was registered wrongly (empty name, no factory, duplicate)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Kind:
    """One adapter kind. Every fact about it lives here; a test walks the registered kinds."""

    name: str
    """The ``type`` of a ``[providers.NAME]`` table."""
    adapter: Factory | str
    """``"module:Class"`` (imported when first built) or a callable: ``(endpoint, **options)``."""
    warm_modules: tuple[str, ...]
    """What the adapter imports when it first streams; the TUI imports these in a thread first."""
    credential_env_names: tuple[str, ...] = ()
    """Key variables of a provider of this kind that declares none (a custom ``type`` table)."""
    optional_key_env: tuple[str, ...] = ()
    """Variables read for a key when set, never required (``OLLAMA_API_KEY``)."""
    base_url: str = ""
    """Default endpoint ("" = a provider of this kind must give one)."""
    base_url_env: str = ""
    """Environment variable that replaces the default URL (checked like a config ``base_url``)."""
    base_url_parser: Callable[[str], str] | str | None = None
    """Turns ``base_url_env``'s value into a URL (``OLLAMA_HOST``'s ``host:port``); "module:attr"."""
    list_models_path: str = ""
    """``GET`` path under the base URL where a local server lists its models ("" = not probed)."""
    in_process: bool = False
    """Runs in this process: no URL, no wire, so no conformance kit (``scripted``)."""
    starts_server: bool = False
    """Larik starts the server itself, on this machine (``local``: the embedded engine): no
    base URL is needed, the adapter learns it when the engine is up."""
    per_model: bool = False
    """One adapter per model: the factory also gets ``model=`` (``scripted``: the script path)."""
    fresh_per_run: bool = False
    """Its adapter holds a run's state (``scripted``: where the script is): a bench run gets a
    new one, built with ``fresh=True``, so runs in turn or at once never share it."""
    model_file: bool = False
    """The part after ``NAME/`` is a file on this machine (``scripted``'s script): a bench run
    on another machine (Ray) gets the file as data."""
    retry: bool = True
    """Wrapped in retries (``scripted``'s error turns are meant to reach the agent as written)."""
    listed: bool = True
    """Offered in provider lists, the model picker and suggestions."""
    named_provider: bool = True
    """Registers a provider of the same name with these defaults."""
    model_hint: str = ""
    """What the part after ``NAME/`` is, for an error when it is missing."""
    reasoning_history: bool = False
    """Takes ``reasoning_history`` (from ``[providers.NAME]`` or a preset) as an option."""
    signin: str = ""
    """A row of :data:`larik.llm.signin.SIGNINS`: the provider is reached with a signed-in
    account (``larik login NAME``) instead of a key, and its models are paid by that plan."""


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    """What the registry knows about one provider."""

    name: str
    factory: Factory | str
    credential_env_names: tuple[str, ...]
    type: str = ""
    """Its kind's name (or "" for a third-party factory with no kind)."""
    base_url: str = ""
    """Default endpoint ("" = its kind's default)."""
    local: bool = False
    """Runs on this machine: no key, no price."""
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Extra keyword arguments always passed to the factory."""

    @property
    def needs_key(self) -> bool:
        return bool(self.credential_env_names)


_lock = threading.RLock()
_registry: dict[str, ProviderSpec] = {}
_kinds: dict[str, Kind] = {}


# ----------------------------------------------------------------------------------- kinds


def register_kind(entry: Kind) -> Kind:
    """Register an adapter kind (and, unless ``named_provider`` is False, a provider of the
    same name with the kind's key variables and base URL)."""
    if not isinstance(entry.name, str) or not entry.name.strip() or "/" in entry.name:
        raise RegistryError(f"a kind needs a non-empty name without '/', not {entry.name!r}")
    if not (callable(entry.adapter) or isinstance(entry.adapter, str)) or not entry.adapter:
        raise RegistryError(f"kind {entry.name!r} needs an adapter (a callable or 'module:attr')")
    if isinstance(entry.warm_modules, str):
        raise RegistryError(f"kind {entry.name!r}: warm_modules must be a tuple of module names")
    with _lock:
        if entry.name in _kinds:
            raise RegistryError(f"kind {entry.name!r} is already registered")
        if entry.named_provider and entry.name in _registry:
            raise RegistryError(f"provider {entry.name!r} is already registered")
        _kinds[entry.name] = entry
        if entry.named_provider:
            register(
                entry.name,
                entry.adapter,
                entry.credential_env_names,
                type=entry.name,
                base_url=entry.base_url,
                local=entry.in_process or entry.starts_server,
            )
    return entry


def unregister_kind(name: str) -> None:
    """Remove a kind and the provider of the same name it registered (plugins and tests)."""
    with _lock:
        entry = _kinds.pop(name, None)
        if entry is not None and entry.named_provider:
            _registry.pop(name, None)


def kind(name: str) -> Kind | None:
    with _lock:
        return _kinds.get(name)


def kinds() -> list[Kind]:
    """Registered kinds, in registration order."""
    with _lock:
        return list(_kinds.values())


# ------------------------------------------------------------------------------- providers


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


def _scripted_factory(
    endpoint: Endpoint, *, model: str, fresh: bool = False, **_: Any
) -> ScriptedProvider:
    if fresh:  # a bench run: its own player, from the script's first turn
        from .providers.scripted import ScriptedProvider

        return ScriptedProvider.from_file(Path(model).expanduser())
    return scripted_provider(model)


# ------------------------------------------------------------------------------- built-ins

#: What an httpx2 client imports when it opens its first connection (the transport, TLS).
HTTP_STACK = ("httpx2", "httpcore2", "h11", "anyio", "truststore")

BUILTIN_KINDS = (
    Kind(
        name="anthropic",
        adapter="larik.llm.providers.anthropic:AnthropicProvider",
        warm_modules=(*HTTP_STACK, "anthropic"),
        credential_env_names=("ANTHROPIC_API_KEY",),
        base_url="https://api.anthropic.com",
        base_url_env="ANTHROPIC_BASE_URL",
    ),
    Kind(
        name="openai",
        adapter="larik.llm.providers.openai_responses:OpenAIResponsesProvider",
        warm_modules=(*HTTP_STACK, "openai"),
        credential_env_names=("OPENAI_API_KEY",),
        base_url="https://api.openai.com/v1",
        base_url_env="OPENAI_BASE_URL",
        list_models_path="/models",
    ),
    Kind(
        name="gemini",
        adapter="larik.llm.providers.gemini:GeminiProvider",
        warm_modules=(*HTTP_STACK, "google.genai"),
        credential_env_names=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        base_url="https://generativelanguage.googleapis.com/",
        base_url_env="GOOGLE_GEMINI_BASE_URL",
    ),
    Kind(
        name="ollama",
        adapter="larik.llm.providers.ollama:OllamaProvider",
        warm_modules=HTTP_STACK,
        optional_key_env=("OLLAMA_API_KEY",),
        base_url="http://127.0.0.1:11434",
        base_url_env="OLLAMA_HOST",
        base_url_parser="larik.llm.providers.ollama_host:parse_host",
        list_models_path="/api/tags",
    ),
    Kind(
        name="openai-compatible",
        adapter="larik.llm.providers.openai_compat:OpenAICompatProvider",
        warm_modules=(*HTTP_STACK, "openai", "jiter"),
        list_models_path="/models",
        named_provider=False,
        reasoning_history=True,
    ),
    Kind(
        name="chatgpt",
        adapter="larik.llm.providers.chatgpt:ChatGPTProvider",
        warm_modules=(*HTTP_STACK, "openai"),
        base_url="https://chatgpt.com/backend-api/codex",
        base_url_env="LARIK_CHATGPT_BASE_URL",
        signin="chatgpt",
        model_hint="a ChatGPT plan's model, e.g. chatgpt/gpt-5.5",
    ),
    Kind(
        name="copilot",
        adapter="larik.llm.providers.copilot:CopilotProvider",
        warm_modules=(*HTTP_STACK, "openai", "jiter", "anthropic"),
        base_url="https://api.githubcopilot.com",
        base_url_env="LARIK_COPILOT_BASE_URL",
        signin="copilot",
        model_hint="a Copilot model, e.g. copilot/gpt-5.5",
    ),
    Kind(
        name="local",
        adapter="larik.llm.providers.local:LocalProvider",
        warm_modules=(*HTTP_STACK, "openai", "jiter"),
        starts_server=True,
        per_model=True,
        model_hint="a local model's name, e.g. local/qwen2.5-coder-1.5b (larik local list)",
    ),
    Kind(
        name="scripted",
        adapter=_scripted_factory,
        warm_modules=(),
        in_process=True,
        per_model=True,
        fresh_per_run=True,
        model_file=True,
        retry=False,
        listed=False,
        model_hint="a script path, e.g. scripted/demo.json",
    ),
)


def _register_builtins() -> None:
    for entry in BUILTIN_KINDS:
        register_kind(entry)
    from .providers.presets import PRESETS  # data only: imports no SDK

    compat = _kinds["openai-compatible"]
    for pname, preset in PRESETS.items():
        if pname in _registry:
            continue
        register(
            pname,
            compat.adapter,
            list(preset.env),
            type=compat.name,
            base_url=preset.base_url,
            local=preset.local,
            options={"reasoning_history": preset.reasoning_history},
        )


_register_builtins()
