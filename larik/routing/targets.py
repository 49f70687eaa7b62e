"""From a spec to a provider name and model id (``Target``), building nothing.

``target(spec, config)`` accepts, in this order:

1. ``""`` -> the default model (:func:`default_model`, the one rule every face starts on): the
   config's ``model`` -> else the model remembered as the default (``routing/remembered.py``)
   when it can start here -> else the first of Anthropic, OpenAI, Gemini with a key (config
   ``api_key``/``api_key_env`` or the environment), with the catalog's default model -> else
   the model pulled last for Larik's own engine (``local/NAME``: ``larik local pull``);
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
    "SOURCES",
    "Default",
    "NoModelError",
    "ROLES",
    "Target",
    "all_roles",
    "default_model",
    "role_default",
    "target",
    "target_in",
]

ROLES = BUILTIN_ROLES
#: Providers tried, in order, when no model is configured.
KEY_ORDER = registry.KEY_ORDER
#: Where the default model comes from, in the rule's order (``-m`` comes before all of them).
SOURCES = ("config", "remembered", "key", "pulled")
_CONVENTIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^claude-"), "anthropic"),
    (re.compile(r"^gemini-"), "gemini"),
    (re.compile(r"^gpt-(?!oss)"), "openai"),
    (re.compile(r"^o[134](-|$)"), "openai"),
    (re.compile(r"codex"), "openai"),
    (re.compile(r"^deepseek-"), "deepseek"),
)


class NoModelError(MissingKeyError):
    """No model was asked for or configured, none remembered can start, no provider has a key
    and none is pulled. ``passed_over``: what was found and could not be used, each said."""

    def __init__(self, env_names: Iterable[str], passed_over: Iterable[str] = ()) -> None:
        self.provider = ""
        self.env_names = tuple(env_names)
        self.passed_over = tuple(passed_over)
        ResolveError.__init__(
            self,
            "no model chosen and no API key found: set "
            + ", ".join(self.env_names[:-1])
            + f" or {self.env_names[-1]}, or pass --model (e.g. ollama/qwen3-coder)"
            + "".join(f"; {line}" for line in self.passed_over),
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


@dataclass(frozen=True, slots=True)
class Default:
    """The model a session starts on when none is asked for, and why (for a face to say)."""

    target: Target
    source: str  # one of SOURCES
    why: str  # "the one you picked last, remembered in …"
    passed_over: tuple[str, ...] = ()  # what came earlier in the rule and could not start

    @property
    def spec(self) -> str:
        return self.target.spec


def default_model(
    config: Config | None = None, snap: RoutingSnapshot | None = None, *, remembered: bool = True
) -> Default:
    """The one rule for the model every face starts on when none is asked for (``-m`` comes
    first, and is the face's): walks :data:`SOURCES`. A remembered model counts only when it
    can start here (it resolves, its key is set, a pulled one is still there); one that cannot
    is passed over and said. ``remembered=False``: as if none were (after it failed to start).
    NoModelError, naming the keys to set and what was passed over, when nothing is found."""
    config = config if config is not None else load_config()
    snap = snap if snap is not None else config.routing()
    if snap.model.strip():
        return Default(target_in(snap.model, config, snap), "config", "the model in your config")
    passed: list[str] = []
    picked = _remembered(config, snap, passed) if remembered else None
    if picked is not None:
        return Default(
            picked, "remembered", f"the one you picked last, remembered in {picked_at()}"
        )
    for name in KEY_ORDER:
        if has_key(name, config):
            why = f"the first provider with a key ({name})"
            return Default(Target(name, catalog.default_model(name)), "key", why, tuple(passed))
    local = _pulled_default(config)
    if local:
        why = "the model pulled last (larik local pull)"
        return Default(Target("local", local), "pulled", why, tuple(passed))
    env: list[str] = []
    for name in KEY_ORDER:
        spec = registry.get(name)
        env.extend(spec.credential_env_names if spec else ())
    raise NoModelError(env, passed)


def picked_at() -> str:
    """Where the remembered model is kept, for messages."""
    from .remembered import path

    return str(path())


def _remembered(config: Config, snap: RoutingSnapshot, passed: list[str]) -> Target | None:
    """The remembered model when it can start here; else None (and why, in ``passed``)."""
    from ..llm.errors import LarikError
    from .remembered import read

    spec = read()
    if not spec:
        return None
    try:
        found = target_in(spec, config, snap)
        _startable(found, config)
    except LarikError as e:
        passed.append(f"the model you picked last, {spec}, cannot start: {e}")
        return None
    return found


def _startable(t: Target, config: Config) -> None:
    """LarikError when ``t`` cannot start here without the network: its key is not set, or it
    is a pulled model that is gone."""
    from ..llm.endpoint import resolve_endpoint

    resolve_endpoint(t.provider_name, config).require_key()
    if kind_of(t.provider_name, config) == "local":
        from ..llm.local.store import Store

        Store(config.local_dir).find(t.model)


def _main(config: Config, snap: RoutingSnapshot) -> Target:
    return default_model(config, snap).target


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
