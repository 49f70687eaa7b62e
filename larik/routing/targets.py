"""From a spec to a provider name and model id (``Target``), building nothing.

``target(spec, config)`` accepts, in this order:

1. ``""`` -> the config's ``model`` -> else the first of Anthropic, OpenAI, Gemini with a key
   (config ``api_key``/``api_key_env`` or the environment), with the catalog's default model
   -> else the model pulled last for Larik's own engine (``local/NAME``: ``larik local pull``);
2. ``head/rest`` where ``head`` is a configured or registered provider -> that provider, model
   ``rest`` (so ``openrouter/anthropic/claude-sonnet-4.5`` works, and ``scripted/PATH.json``
   plays a script); an unknown ``head`` is an error listing the known providers and the closest
   match (unless the whole spec is a catalog id);
3. a role name (smart, worker, explore, compact, opus, sonnet, haiku or one from ``[roles]``) ->
   the role's spec. Unset built-in roles resolve to the main model; opus/sonnet/haiku default to
   the current Claude models. A role must name a provider/model, never another role;
4. a bare model id -> the catalog's provider, else by naming convention (claude-* -> anthropic,
   gemini-* -> gemini, gpt-*, o1*/o3*/o4*, *codex* -> openai, deepseek-* -> deepseek).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from ..config import BUILTIN_ROLES, CLAUDE_ROLES, Config, RoutingSnapshot, load_config
from ..llm import catalog, registry
from ..llm.endpoint import kind_of
from ..llm.errors import MissingKeyError, ResolveError
from .providers import has_key, known_provider, provider_names, unknown_provider

__all__ = [
    "KEY_ORDER",
    "NoModelError",
    "ROLES",
    "Target",
    "all_roles",
    "role_default",
    "target",
    "target_in",
]

ROLES = BUILTIN_ROLES
#: Providers tried, in order, when no model is configured.
KEY_ORDER = registry.KEY_ORDER
_CONVENTIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^claude-"), "anthropic"),
    (re.compile(r"^gemini-"), "gemini"),
    (re.compile(r"^gpt-(?!oss)"), "openai"),
    (re.compile(r"^o[134](-|$)"), "openai"),
    (re.compile(r"codex"), "openai"),
    (re.compile(r"^deepseek-"), "deepseek"),
)


class NoModelError(MissingKeyError):
    """No model was asked for or configured, and no provider has a key."""

    def __init__(self, env_names: Iterable[str]) -> None:
        self.provider = ""
        self.env_names = tuple(env_names)
        ResolveError.__init__(
            self,
            "no model chosen and no API key found: set "
            + ", ".join(self.env_names[:-1])
            + f" or {self.env_names[-1]}, or pass --model (e.g. ollama/qwen3-coder)",
        )


@dataclass(frozen=True, slots=True)
class Target:
    """A spec resolved to a provider name and model id, before anything is built."""

    provider_name: str
    model: str
    role: str | None = None

    @property
    def spec(self) -> str:
        return f"{self.provider_name}/{self.model}"


def all_roles(config: Config | RoutingSnapshot | None = None) -> tuple[str, ...]:
    """Every role name: the built-in ones, opus/sonnet/haiku, then the config's own."""
    roles = (
        config.routing().roles if isinstance(config, Config) else (config.roles if config else {})
    )
    extra = tuple(r for r in roles if r not in ROLES and r not in CLAUDE_ROLES)
    return (*ROLES, *CLAUDE_ROLES, *extra)


def target(spec: str = "", config: Config | None = None) -> Target:
    """Resolve ``spec`` to a provider name and model without building anything."""
    config = config if config is not None else load_config()
    return target_in(spec, config, config.routing())


def target_in(spec: str, config: Config, snap: RoutingSnapshot) -> Target:
    spec = spec.strip()
    if not spec:
        return _main(config, snap)
    if "/" in spec:
        head, _, rest = spec.partition("/")
        if known_provider(head, config):
            if not rest:
                kind = registry.kind(kind_of(head, config))
                what = kind.model_hint if kind is not None and kind.model_hint else "a model"
                raise ResolveError(f"{spec!r} names the provider {head} but not {what}")
            return Target(head, rest)
        info = catalog.lookup(spec)
        if info.known and info.provider:
            return Target(info.provider, spec)
        raise ResolveError(unknown_provider(head, spec, config))
    roles = all_roles(snap)
    if spec in roles:
        return _role(spec, config, snap, roles)
    info = catalog.lookup(spec)
    if info.known and info.provider:
        return Target(info.provider, spec)
    lowered = spec.lower()
    for pattern, provider in _CONVENTIONS:
        if pattern.search(lowered):
            return Target(provider, spec)
    if known_provider(spec, config):
        raise ResolveError(f"{spec!r} names a provider but no model: use {spec}/MODEL")
    raise ResolveError(_unknown_model(spec, config, roles))


def role_default(role: str) -> str:
    """What a role the config leaves unset names: the catalog's current Claude model for
    ``opus``, ``sonnet`` and ``haiku``; "" (the main model) for every other role. The one
    rule ``larik routing``, ``/routing`` and resolving a role go by."""
    return catalog.default_model(role) if role in CLAUDE_ROLES else ""


def _role(role: str, config: Config, snap: RoutingSnapshot, roles: tuple[str, ...]) -> Target:
    value = (snap.roles.get(role) or "").strip() or role_default(role)
    if not value:
        if snap.model.strip() == role:
            raise ResolveError(
                f"model = {role!r} names the role {role}, which is not set: set [roles] {role} "
                "or model to a provider/model"
            )
        return replace(_main(config, snap), role=role)
    if value in roles:
        raise ResolveError(
            f"role {role!r} names the role {value!r}; a role must name a provider/model, "
            "not another role"
        )
    return replace(target_in(value, config, snap), role=role)


def _main(config: Config, snap: RoutingSnapshot) -> Target:
    if snap.model.strip():
        return target_in(snap.model, config, snap)
    for name in KEY_ORDER:
        if has_key(name, config):
            return Target(name, catalog.default_model(name))
    local = _pulled_default(config)
    if local:
        return Target("local", local)
    env: list[str] = []
    for name in KEY_ORDER:
        spec = registry.get(name)
        env.extend(spec.credential_env_names if spec else ())
    raise NoModelError(env)


def _pulled_default(config: Config) -> str:
    """The model pulled last for the embedded engine ("" when none is)."""
    from ..llm.errors import LarikError
    from ..llm.local.store import Store

    try:
        entry = Store(config.local_dir).default()
    except LarikError:
        return ""
    return entry.name if entry is not None else ""


def _unknown_model(spec: str, config: Config, roles: tuple[str, ...]) -> str:
    ids = [i.id for i in catalog.entries()] + list(roles)
    close = difflib.get_close_matches(spec, ids, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return (
        f"unknown model {spec!r}{hint}: write it as provider/model, e.g. ollama/{spec}; "
        f"known providers: {', '.join(provider_names(config))}"
    )
