"""How to reach a provider: the one place that reads the config and the environment for it.

``resolve_endpoint(name, config)`` turns a provider name into an :class:`Endpoint` — the
adapter kind, the base URL (checked), the key and the variable it came from, the headers, and
whether the provider runs on this machine. Adapters are built from an Endpoint and read nothing
themselves (no ``os.environ``, no config), so every rule below holds for all of them:

* **Kind**: the ``type`` of ``[providers.NAME]``, else the registered provider's kind. A name
  that is neither registered nor configured is a ResolveError; a configured one without a type
  that Larik does not know is a ConfigError naming ``providers.NAME.type``.
* **Base URL**: ``providers.NAME.base_url``; else, for a provider on its kind's default
  address, the kind's environment variable (``ANTHROPIC_BASE_URL``, ``OPENAI_BASE_URL``,
  ``GOOGLE_GEMINI_BASE_URL``, ``OLLAMA_HOST``); else the provider's or the kind's default. Every
  one — from the config, the environment or a default — goes through
  :func:`larik.llm.net.validate_base_url` (https, or http for a literal loopback host); a bad
  one is a one-line ConfigError naming the config key or the variable, raised before anything
  is sent. The SDKs are always given the URL, so they never read their own variables.
* **Key**: ``providers.NAME.api_key``; else the first set variable of ``api_key_env``, else of
  the provider's declared ``credential_env_names`` (a custom table: its kind's), else of the
  kind's optional ones (``OLLAMA_API_KEY``). ``Endpoint.require_key()`` raises MissingKeyError
  naming the variables when a required key is missing.
* **Local**: the base URL is loopback (or the kind runs in-process, ``scripted``, or starts its
  own server on this machine, ``local``: no base URL needed; ``Endpoint.local_dir`` is where it
  keeps its files).
* **Sign-in kinds** (``chatgpt``, ``copilot``: :attr:`~larik.llm.registry.Kind.signin`): the
  key is the signed-in account's access token (``Endpoint.account``, read from
  ``config.accounts_dir``; ``require_key()`` raises NotSignedIn naming ``larik login NAME``).
  ``Endpoint.auth_url`` is the sign-in server: its default, or the user's environment variable
  :attr:`~larik.llm.signin.SignIn.auth_url_env`, checked like a base URL (read here and
  nowhere else). Copilot's base URL, when neither the config nor the environment sets one, is
  the API URL the account's token exchange named (checked at sign-in).

Every key and header value an endpoint carries is registered with :mod:`larik.llm.secrets`,
so it is masked by value wherever text leaves the process.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from . import registry
from .errors import ConfigError, LarikError, MissingKeyError, NotSignedIn, ResolveError
from .net import is_loopback_url, validate_base_url

if TYPE_CHECKING:
    from .settings import LlmSettings, ProviderSettings
    from .signin import SignIn
    from .signin.store import Account

__all__ = [
    "Endpoint",
    "is_local",
    "kind_of",
    "plays_a_file",
    "remember_known",
    "resolve_endpoint",
]

_EMPTY: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Everything about reaching one provider. Adapters take one of these."""

    name: str
    """The provider name (``groq``, ``my-box``)."""
    kind: str
    """The adapter kind (a registered :class:`~larik.llm.registry.Kind`; "" for a third-party
    factory with none)."""
    base_url: str = ""
    """Checked base URL ("" only for a kind that needs none)."""
    api_key: str | None = field(default=None, repr=False)
    key_env: str = ""
    """The variable the key came from ("" for a config ``api_key`` or no key)."""
    key_names: tuple[str, ...] = ()
    """Variables that may hold the key, in order (to name in messages)."""
    key_required: bool = False
    headers: Mapping[str, str] = field(default_factory=lambda: _EMPTY, repr=False)
    """Extra HTTP headers from ``providers.NAME.headers``."""
    auth_url: str = ""
    """A sign-in kind's sign-in server (checked); "" for other kinds."""
    account: Account | None = field(default=None, repr=False)
    """A sign-in kind's signed-in account (None: not signed in)."""
    accounts_dir: Path | None = None
    """Where the account is kept (a sign-in kind's adapter refreshes it there)."""
    local_dir: Path | None = None
    """A kind that starts its own server (``local``): where its models' index, logs and run
    files are (``config.local_dir``)."""

    @property
    def local(self) -> bool:
        """On this machine: a loopback base URL, or (with none) a kind that runs in-process."""
        if self.base_url:
            return is_loopback_url(self.base_url)
        entry = registry.kind(self.kind)
        spec = registry.get(self.name)
        return bool((entry is not None and entry.in_process) or (spec is not None and spec.local))

    @property
    def signin(self) -> SignIn | None:
        """The sign-in of a sign-in kind (None for a keyed one)."""
        from .signin import signin

        entry = registry.kind(self.kind)
        return signin(entry.signin) if entry is not None and entry.signin else None

    @property
    def key_hint(self) -> str:
        """What to set to give this provider a key, for messages (never the key)."""
        sign = self.signin
        if sign is not None:
            return f"`{sign.command}`"
        if self.key_env:
            return self.key_env
        if self.key_names:
            return " or ".join(self.key_names)
        return f"api_key in [providers.{self.name}]"

    def require_key(self) -> str | None:
        """The key; MissingKeyError naming the variables when a required one is missing."""
        sign = self.signin
        if sign is not None and self.account is None:
            raise NotSignedIn(self.name, sign.command)
        if self.key_required and not self.api_key:
            raise MissingKeyError(self.name, self.key_names)
        return self.api_key


def resolve_endpoint(
    name: str, config: LlmSettings | None = None, *, environ: Mapping[str, str] | None = None
) -> Endpoint:
    """The :class:`Endpoint` of provider ``name`` (see the module docstring for the rules)."""
    env = os.environ if environ is None else environ
    spec = registry.get(name)
    pc = config.providers.get(name) if config is not None else None
    kind = _kind(name, spec, pc)
    headers = MappingProxyType(dict(pc.headers)) if pc is not None and pc.headers else _EMPTY
    from .secrets import remember

    remember(*headers.values())
    if kind is not None and kind.signin:
        return _signed_in(name, kind, pc, config, env, headers)
    base_url = _base_url(name, spec, pc, kind, env)
    key, key_env, names, required = _key(spec, pc, kind, env)
    remember(key)
    starts = kind is not None and kind.starts_server
    return Endpoint(
        name=name,
        kind=kind.name if kind is not None else (spec.type if spec is not None else ""),
        base_url=base_url,
        api_key=key,
        key_env=key_env,
        key_names=names,
        key_required=required,
        headers=headers,
        local_dir=config.local_dir if starts and config is not None else None,
    )


def remember_known(
    config: LlmSettings | None = None, *, environ: Mapping[str, str] | None = None
) -> None:
    """Record every key Larik could read (see :mod:`larik.llm.secrets`): the values of the
    variables registered providers and kinds declare, and the config's keys and headers."""
    from .secrets import remember

    env = os.environ if environ is None else environ
    names: set[str] = set()
    for name in registry.names():
        spec = registry.get(name)
        names.update(spec.credential_env_names if spec is not None else ())
    for entry in registry.kinds():
        names.update((*entry.credential_env_names, *entry.optional_key_env))
    values: list[str] = []
    for pc in config.providers.values() if config is not None else ():
        names.update((pc.api_key_env,) if pc.api_key_env else ())
        values.extend((pc.api_key, *pc.headers.values()))
    remember(*values, *(env.get(n, "") for n in sorted(names)))
    if config is not None:  # reading an account registers its tokens
        from .signin import SIGNINS
        from .signin.store import AccountStore

        store = AccountStore(config.accounts_dir)
        for name in SIGNINS:
            store.all(name)


def kind_of(name: str, config: LlmSettings | None = None) -> str:
    """The adapter kind of provider ``name`` ("" when it has none or is unknown); no checks."""
    pc = config.providers.get(name) if config is not None else None
    if pc is not None and pc.type:
        return str(pc.type)
    spec = registry.get(name)
    return spec.type if spec is not None else ""


def plays_a_file(spec: str, config: LlmSettings | None = None) -> bool:
    """Whether the model spec ``spec`` makes a file on this machine the model: its provider's
    kind takes a path after ``NAME/`` (:attr:`~larik.llm.registry.Kind.model_file`,
    ``scripted/PATH.json``). A project must not name one: the repository's own file would
    answer as the model (``larik.config.load_config``)."""
    head, slash, _ = spec.strip().partition("/")
    kind = registry.kind(kind_of(head, config)) if slash else None
    return kind is not None and kind.model_file


def is_local(name: str, config: LlmSettings | None = None) -> bool:
    """Whether provider ``name`` runs on this machine; False when it cannot be resolved."""
    try:
        return resolve_endpoint(name, config).local
    except LarikError:
        return False


# ------------------------------------------------------------------------------- the rules


def _kind(
    name: str, spec: registry.ProviderSpec | None, pc: ProviderSettings | None
) -> registry.Kind | None:
    if spec is None and pc is None:
        raise ResolveError(f"unknown provider {name!r}")
    kind_name = (pc.type if pc is not None and pc.type else "") or (spec.type if spec else "")
    if not kind_name:
        if spec is None:
            raise ConfigError(f"providers.{name}.type: required for a provider Larik does not know")
        return None  # a third-party factory with no kind
    kind = registry.kind(kind_name)
    if kind is None:
        known = ", ".join(k.name for k in registry.kinds())
        raise ConfigError(f"providers.{name}.type: unknown type {kind_name!r} (known: {known})")
    return kind


def _base_url(
    name: str,
    spec: registry.ProviderSpec | None,
    pc: ProviderSettings | None,
    kind: registry.Kind | None,
    env: Mapping[str, str],
) -> str:
    where = f"providers.{name}.base_url"
    url = pc.base_url if pc is not None else ""
    default = (spec.base_url if spec is not None else "") or (kind.base_url if kind else "")
    if not url and kind is not None and kind.base_url_env and default == kind.base_url:
        raw = env.get(kind.base_url_env, "").strip()
        if raw:
            where = f"environment variable {kind.base_url_env}"
            url = _parse_env_url(kind, raw)
    url = url or default
    if url:
        try:
            validate_base_url(url)
        except ValueError as e:
            raise ConfigError(f"{where}: {e}") from None
    elif kind is not None and not kind.in_process and not kind.starts_server:
        raise ConfigError(f"{where}: a {kind.name} provider needs one")
    return url


def _signed_in(
    name: str,
    kind: registry.Kind,
    pc: ProviderSettings | None,
    config: LlmSettings | None,
    env: Mapping[str, str],
    headers: Mapping[str, str],
) -> Endpoint:
    """The endpoint of a sign-in kind (see the module docstring)."""
    from .signin import signin
    from .signin.store import AccountStore

    sign = signin(kind.signin)
    if sign is None:
        raise ConfigError(f"kind {kind.name}: unknown sign-in {kind.signin!r}")
    auth_url, where = sign.auth_url, ""
    raw = env.get(sign.auth_url_env, "").strip()
    if raw:
        auth_url, where = raw, f"environment variable {sign.auth_url_env}"
    try:
        validate_base_url(auth_url)
    except ValueError as e:
        raise ConfigError(f"{where or 'the sign-in server'}: {e}") from None
    accounts = config.accounts_dir if config is not None else None
    account = AccountStore(accounts).current(sign.name) if accounts is not None else None
    configured = (pc.base_url if pc is not None else "") or env.get(kind.base_url_env, "").strip()
    stored = account.extra.get("base_url", "") if account is not None else ""
    base_url = _base_url(name, None, pc, kind, env) if configured or not stored else stored
    if not configured and stored:
        try:
            validate_base_url(stored)
        except ValueError as e:
            raise ConfigError(f"the {sign.title} API URL of the stored login: {e}") from None
    return Endpoint(
        name=name,
        kind=kind.name,
        base_url=base_url,
        api_key=account.access_token if account is not None else None,
        key_names=(),
        key_required=True,
        headers=headers,
        auth_url=auth_url,
        account=account,
        accounts_dir=accounts,
    )


def _parse_env_url(kind: registry.Kind, raw: str) -> str:
    parser: Any = kind.base_url_parser
    if parser is None:
        return raw
    if isinstance(parser, str):
        module, _, attr = parser.partition(":")
        parser = getattr(importlib.import_module(module), attr)
    return str(parser(raw))


def _key(
    spec: registry.ProviderSpec | None,
    pc: ProviderSettings | None,
    kind: registry.Kind | None,
    env: Mapping[str, str],
) -> tuple[str | None, str, tuple[str, ...], bool]:
    """(key, the variable it came from, the variables to name, whether one is required)."""
    if pc is not None and pc.api_key_env:
        names: tuple[str, ...] = (pc.api_key_env,)
        optional: tuple[str, ...] = ()
    else:
        names = spec.credential_env_names if spec is not None else ()
        if spec is None and kind is not None:
            names = kind.credential_env_names
        optional = kind.optional_key_env if kind is not None else ()
    everything = names + tuple(v for v in optional if v not in names)
    if pc is not None and pc.api_key:
        return pc.api_key, "", everything, bool(names)
    for var in everything:
        value = env.get(var, "").strip()
        if value:
            return value, var, everything, bool(names)
    return None, "", everything, bool(names)
