"""From a user's words to a Provider and a model id.

``resolve(spec, config)`` accepts, in this order:

1. ``""`` -> the config's ``model`` -> else the first of Anthropic, OpenAI, Gemini with a key
   (config ``api_key``/``api_key_env`` or the environment), with the catalog's default model;
2. ``scripted/PATH.json`` -> a ScriptedProvider playing that file (one per path per process);
3. ``head/rest`` where ``head`` is a configured or registered provider -> that provider, model
   ``rest`` (so ``openrouter/anthropic/claude-sonnet-4.5`` works); an unknown ``head`` is an error
   listing the known providers and the closest match (unless the whole spec is a catalog id);
4. a role name (smart, worker, explore, compact, opus, sonnet, haiku or one from ``[roles]``) ->
   the role's spec. Unset built-in roles resolve to the main model (``main=`` when given: the
   model in use); opus/sonnet/haiku default to the current Claude models. A role must name a provider/model, never another role;
5. a bare model id -> the catalog's provider, else by naming convention (claude-* -> anthropic,
   gemini-* -> gemini, gpt-*, o1*/o3*/o4*, *codex* -> openai, deepseek-* -> deepseek).

The adapter is then built with its key (config ``api_key``, config ``api_key_env``, else the
provider's declared variables; a missing one raises MissingKeyError naming them) and its base URL
(validated again: https, or http for loopback only). It is wrapped in stall timeouts, then
retries, then — when ``fallbacks[role]`` or else ``fallbacks[spec]`` is configured — a fallback
chain; candidates that cannot be built (no key, say) are skipped and listed in ``Resolved.skipped``.

Reads of model/roles/fallbacks go through ``Config.routing()``, one snapshot per resolve.
"""

from __future__ import annotations

import difflib
import json
import re
import socket
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .config import (
    BUILTIN_ROLES,
    CLAUDE_ROLES,
    Config,
    RoutingSnapshot,
    load_config,
    save_user_config,
    state_dir,
)
from .llm import catalog, registry
from .llm.endpoint import kind_of, resolve_endpoint
from .llm.errors import ConfigError, LarikError, MissingKeyError, ResolveError

if TYPE_CHECKING:
    from .llm.catalog import ModelInfo
    from .llm.provider import Provider

__all__ = [
    "CLAUDE_ROLES",
    "ROLES",
    "Evidence",
    "NoModelError",
    "Ranked",
    "Resolved",
    "RoutePlan",
    "RoutingSuggestion",
    "Target",
    "all_roles",
    "api_key_for",
    "available_models",
    "base_url_for",
    "build_provider",
    "load_evidence",
    "plan",
    "provider_names",
    "reachable_local_providers",
    "resolve",
    "save_routing",
    "suggest_routing",
    "target",
]

ROLES = BUILTIN_ROLES
#: Providers tried, in order, when no model is configured.
KEY_ORDER = ("anthropic", "openai", "gemini")
#: Retry attempts for a model on its own, and for a non-last candidate of a fallback chain
#: (fewer, so the chain moves on sooner).
RETRY_ATTEMPTS = 4
CHAIN_RETRY_ATTEMPTS = 2
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


@dataclass
class Resolved:
    """What ``resolve`` returns: a ready Provider and the model id to ask it for."""

    provider: Provider
    model: str
    provider_name: str
    role: str | None
    spec: str
    """"provider/model" of the primary model."""
    fallbacks: tuple[str, ...] = ()
    """Specs of the fallback candidates in the chain, in order."""
    skipped: tuple[str, ...] = ()
    """Fallback candidates left out, each as "spec: reason"."""


def all_roles(config: Config | RoutingSnapshot | None = None) -> tuple[str, ...]:
    """Every role name: the built-in ones, opus/sonnet/haiku, then the config's own."""
    roles = (
        config.routing().roles if isinstance(config, Config) else (config.roles if config else {})
    )
    extra = tuple(r for r in roles if r not in ROLES and r not in CLAUDE_ROLES)
    return (*ROLES, *CLAUDE_ROLES, *extra)


# ------------------------------------------------------------------------------ targets


def target(spec: str = "", config: Config | None = None) -> Target:
    """Resolve ``spec`` to a provider name and model without building anything."""
    config = config if config is not None else load_config()
    return _target(spec, config, config.routing())


def _target(spec: str, config: Config, snap: RoutingSnapshot) -> Target:
    spec = spec.strip()
    if not spec:
        return _main(config, snap)
    if "/" in spec:
        head, _, rest = spec.partition("/")
        if _known_provider(head, config):
            if not rest:
                kind = registry.kind(kind_of(head, config))
                what = kind.model_hint if kind is not None and kind.model_hint else "a model"
                raise ResolveError(f"{spec!r} names the provider {head} but not {what}")
            return Target(head, rest)
        info = catalog.lookup(spec)
        if info.known and info.provider:
            return Target(info.provider, spec)
        raise ResolveError(_unknown_provider(head, spec, config))
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
    if _known_provider(spec, config):
        raise ResolveError(f"{spec!r} names a provider but no model: use {spec}/MODEL")
    raise ResolveError(_unknown_model(spec, config, roles))


def _role(role: str, config: Config, snap: RoutingSnapshot, roles: tuple[str, ...]) -> Target:
    value = (snap.roles.get(role) or "").strip()
    if not value:
        value = catalog.default_model(role) if role in CLAUDE_ROLES else ""
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
    return replace(_target(value, config, snap), role=role)


def _main(config: Config, snap: RoutingSnapshot) -> Target:
    if snap.model.strip():
        return _target(snap.model, config, snap)
    for name in KEY_ORDER:
        if _has_key(name, config):
            return Target(name, catalog.default_model(name))
    env: list[str] = []
    for name in KEY_ORDER:
        spec = registry.get(name)
        env.extend(spec.credential_env_names if spec else ())
    raise NoModelError(env)


def _known_provider(name: str, config: Config) -> bool:
    return name in config.providers or registry.get(name) is not None


def provider_names(config: Config) -> list[str]:
    """Providers to offer: registered ones whose kind is listed, then configured ones."""
    names = [n for n in registry.names() if _listed(n, config)]
    return names + [n for n in config.providers if n not in names]


def _listed(name: str, config: Config) -> bool:
    kind = registry.kind(kind_of(name, config))
    return kind is None or kind.listed


def _unknown_provider(head: str, spec: str, config: Config) -> str:
    known = provider_names(config)
    close = difflib.get_close_matches(head, known, n=1, cutoff=0.5)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"unknown provider {head!r} in {spec!r}{hint}; known providers: {', '.join(known)}"


def _unknown_model(spec: str, config: Config, roles: tuple[str, ...]) -> str:
    ids = [i.id for i in catalog.entries()] + list(roles)
    close = difflib.get_close_matches(spec, ids, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return (
        f"unknown model {spec!r}{hint}: write it as provider/model, e.g. ollama/{spec}; "
        f"known providers: {', '.join(provider_names(config))}"
    )


# ---------------------------------------------------------------------------- credentials


def api_key_for(name: str, config: Config) -> str | None:
    """The key for provider ``name``; MissingKeyError when it needs one and none is set."""
    return resolve_endpoint(name, config).require_key()


def _has_key(name: str, config: Config) -> bool:
    try:
        return api_key_for(name, config) is not None
    except MissingKeyError:
        return False


# ------------------------------------------------------------------------------- building


def base_url_for(name: str, config: Config) -> str:
    """The provider's checked base URL (see ``larik.llm.endpoint``)."""
    return resolve_endpoint(name, config).base_url


def build_provider(name: str, model: str, config: Config) -> Provider:
    """The bare adapter for provider ``name`` (no timeouts, retries or fallbacks)."""
    spec = registry.get(name)
    pc = config.providers.get(name)
    if spec is None and pc is None:
        raise ResolveError(_unknown_provider(name, f"{name}/{model}", config))
    endpoint = resolve_endpoint(name, config)
    endpoint.require_key()
    kind = registry.kind(endpoint.kind)
    if spec is not None and (endpoint.kind == spec.type or kind is None):
        factory = spec.factory
    else:
        assert kind is not None  # resolve_endpoint refuses a table with no known kind
        factory = kind.adapter
    options: dict[str, Any] = dict(spec.options) if spec is not None else {}
    if endpoint.kind != "openai-compatible":
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
    build = registry.load_factory(factory)
    try:
        return build(endpoint, **options)
    except TypeError as e:
        what = endpoint.kind or name
        raise ConfigError(f"providers.{name}: the {what} adapter rejected {e}") from None


def _wrap(provider: Provider, name: str, config: Config, attempts: int) -> Provider:
    from .llm.retry import with_retry
    from .llm.timeout import with_timeouts

    wrapped: Provider = with_timeouts(
        provider, first_chunk=config.first_chunk_timeout, idle=config.idle_timeout
    )
    kind = registry.kind(kind_of(name, config))
    if kind is None or kind.retry:
        wrapped = with_retry(wrapped, attempts=attempts)
    return wrapped


# --------------------------------------------------------------------------------- resolve


@dataclass
class RoutePlan:
    """How a spec routes right now, without building anything (for ``larik routing``)."""

    spec: str
    target: Target | None = None
    error: str = ""
    fallbacks: list[tuple[str, str]] = field(default_factory=list)
    """(spec, "") for a usable candidate, (spec, reason) for one that would be skipped."""


def _fallback_specs(original: str, t: Target, snap: RoutingSnapshot) -> tuple[str, ...]:
    if t.role and snap.fallbacks.get(t.role):
        return snap.fallbacks[t.role]
    for key in (original.strip(), t.spec, t.model):
        if key and snap.fallbacks.get(key):
            return snap.fallbacks[key]
    return ()


def plan(spec: str = "", config: Config | None = None) -> RoutePlan:
    """Where ``spec`` goes and which fallbacks are usable, checking keys but building nothing."""
    config = config if config is not None else load_config()
    snap = config.routing()
    out = RoutePlan(spec=spec)
    try:
        out.target = _target(spec, config, snap)
        api_key_for(out.target.provider_name, config)
    except (ResolveError, ConfigError) as e:
        out.error = str(e)
        if out.target is None:
            return out
    seen = {out.target.spec}
    for cand in _fallback_specs(spec, out.target, snap):
        try:
            t = _target(cand, config, snap)
            if t.spec in seen:
                continue
            seen.add(t.spec)
            api_key_for(t.provider_name, config)
            out.fallbacks.append((t.spec, ""))
        except (ResolveError, ConfigError) as e:
            out.fallbacks.append((cand, str(e)))
    return out


def resolve(spec: str = "", config: Config | None = None, *, main: str = "") -> Resolved:
    """A ready Provider (timeouts -> retry -> fallback) and the model id for ``spec``.

    ``main``: the model in use when it is not the configured one (``larik -m``, ``/model``, a
    bench run). Unset roles stand for the main model, so ``compact``, ``worker``… then go to it
    rather than to the config's ``model`` (or the first provider with a key)."""
    from .llm.fallback import Candidate, with_fallback

    config = config if config is not None else load_config()
    snap = config.routing()
    if main.strip():
        snap = replace(snap, model=main.strip())
    t = _target(spec, config, snap)
    primary = build_provider(t.provider_name, t.model, config)

    built: list[tuple[Target, Provider]] = []
    skipped: list[str] = []
    seen = {t.spec}
    for cand in _fallback_specs(spec, t, snap):
        try:
            ct = _target(cand, config, snap)
            if ct.spec in seen:
                continue
            seen.add(ct.spec)
            built.append((ct, build_provider(ct.provider_name, ct.model, config)))
        except (ResolveError, ConfigError) as e:
            skipped.append(f"{cand}: {e}")

    if not built:
        provider = _wrap(primary, t.provider_name, config, RETRY_ATTEMPTS)
    else:
        chain = [(t, primary), *built]
        last = len(chain) - 1
        provider = with_fallback(
            [
                Candidate(
                    _wrap(
                        p,
                        ct.provider_name,
                        config,
                        RETRY_ATTEMPTS if i == last else CHAIN_RETRY_ATTEMPTS,
                    ),
                    ct.model,
                )
                for i, (ct, p) in enumerate(chain)
            ]
        )
    return Resolved(
        provider=provider,
        model=t.model,
        provider_name=t.provider_name,
        role=t.role,
        spec=t.spec,
        fallbacks=tuple(ct.spec for ct, _ in built),
        skipped=tuple(skipped),
    )


# ------------------------------------------------------------------------------ /routing


def save_routing(
    roles: Mapping[str, str | None],
    fallbacks: Mapping[str, list[str] | None] | None = None,
    *,
    config: Config | None = None,
) -> Path:
    """Save roles (and fallbacks) to the user config, as ``/routing`` does.

    Each role given is set; ``""`` or ``None`` unsets it. Fallback lists likewise (``[]`` or
    ``None`` removes the entry). Other keys in the file are kept. When ``config`` is given, the
    live config is updated too, atomically for concurrent resolves."""
    updates: dict[str, Any] = {"roles": {k: (v.strip() if v else None) for k, v in roles.items()}}
    if fallbacks is not None:
        updates["fallbacks"] = {k: (list(v) if v else None) for k, v in fallbacks.items()}
    path = save_user_config(updates)
    if config is not None:
        snap = config.routing()
        new_roles = {k: v for k, v in snap.roles.items() if k not in roles}
        new_roles.update({k: v.strip() for k, v in roles.items() if v and v.strip()})
        new_fallbacks = {k: list(v) for k, v in snap.fallbacks.items()}
        for k, v in (fallbacks or {}).items():
            if v:
                new_fallbacks[k] = list(v)
            else:
                new_fallbacks.pop(k, None)
        config.set_routing(roles=new_roles, fallbacks=new_fallbacks)
    return path


def reachable_local_providers(config: Config | None = None, timeout: float = 0.25) -> set[str]:
    """Local providers whose server answers a TCP connect on 127.0.0.1 right now.

    Only loopback URLs are probed, and only at 127.0.0.1 (never a name lookup), in parallel with
    a short timeout."""
    config = config if config is not None else load_config()
    ports: dict[str, int] = {}
    for name in provider_names(config):
        try:
            endpoint = resolve_endpoint(name, config)
        except LarikError:  # a bad base URL: not probed
            continue
        if not endpoint.local or not endpoint.base_url:
            continue
        parts = urlsplit(endpoint.base_url)
        ports[name] = parts.port or (443 if parts.scheme == "https" else 80)

    def probe(port: int) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=timeout):
                return True
        except OSError:
            return False

    if not ports:
        return set()
    with ThreadPoolExecutor(max_workers=min(8, len(ports))) as pool:
        results = dict(zip(ports, pool.map(probe, ports.values()), strict=True))
    return {name for name, up in results.items() if up}


# -------------------------------------------------------------------------- suggestions

#: Weight of the input price in the ranking price (the rest goes to output): an agent's
#: prompts are far larger than its replies.
INPUT_WEIGHT = 0.75
#: A model passes the bench when its measured pass rate reaches this.
PASS_BAR = 0.8
#: Without evidence, ``smart`` is the dearest candidate at or under this weighted price
#: (so a "pro" tier at many times the price is not suggested by default).
SMART_PRICE_CAP = 20.0
_CHEAP = re.compile(r"mini|nano|flash|lite|haiku|small|tiny|instant|fast|\b[1-9](\.\d)?b\b")
_DEAR = re.compile(r"opus|fable|mythos|\bpro\b|-pro|ultra|large|\bmax\b|-max")


@dataclass(frozen=True, slots=True)
class Evidence:
    """What ``larik bench`` measured for one model spec."""

    pass_rate: float
    """Fraction of bench runs whose check passed (0..1)."""
    runs: int
    """How many runs that rate is over."""
    cost_per_pass: float | None = None
    """USD spent per passing run (None when the price is unknown)."""

    @classmethod
    def from_results(cls, rows: Iterable[Mapping[str, Any]]) -> dict[str, Evidence]:
        """Aggregate bench result rows ``{"model": spec, "passed": bool, "cost": float|None}``."""
        runs: dict[str, int] = {}
        passes: dict[str, int] = {}
        costs: dict[str, float | None] = {}
        for row in rows:
            spec = str(row.get("model", ""))
            if not spec:
                continue
            runs[spec] = runs.get(spec, 0) + 1
            passes[spec] = passes.get(spec, 0) + (1 if row.get("passed") else 0)
            c = row.get("cost")
            prev = costs.get(spec, 0.0)
            costs[spec] = None if c is None or prev is None else prev + float(c)
        out: dict[str, Evidence] = {}
        for spec, n in runs.items():
            p = passes[spec]
            total = costs.get(spec)
            out[spec] = cls(
                pass_rate=p / n,
                runs=n,
                cost_per_pass=(total / p) if total is not None and p else None,
            )
        return out

    def describe(self) -> str:
        passed = round(self.pass_rate * self.runs)
        money = f", ${self.cost_per_pass:.3f}/pass" if self.cost_per_pass is not None else ""
        return f"bench {passed}/{self.runs} passed ({self.pass_rate:.0%}){money}"


def load_evidence(path: Path | None = None) -> dict[str, Evidence]:
    """Evidence from bench results (``<state dir>/bench/results.jsonl`` by default): one JSON
    object per line with ``model``, ``passed`` and ``cost``. Missing file: no evidence; bad lines
    are skipped."""
    path = path or state_dir() / "bench" / "results.jsonl"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    rows = []
    for line in lines:
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return Evidence.from_results(rows)


@dataclass(frozen=True, slots=True)
class Ranked:
    """A candidate model in cheapness order."""

    spec: str
    info: ModelInfo
    tier: int
    """0 local, 1 subscription plan, 2 pay per token."""
    price: float
    """Weighted USD per million tokens (guessed from the name when ``guessed``)."""
    guessed: bool = False
    evidence: Evidence | None = None

    def describe(self) -> str:
        if self.tier == 0:
            base = "local"
        elif self.tier == 1:
            base = "subscription plan"
        else:
            base = f"~${self.price:.2f}/M" + (" (guessed from name)" if self.guessed else "")
        return base + (f"; {self.evidence.describe()}" if self.evidence else "")


@dataclass
class RoutingSuggestion:
    """Roles (and a fallback each) suggested for ``/routing``, with the ranking behind them."""

    roles: dict[str, str]
    fallbacks: dict[str, list[str]]
    reasons: dict[str, str]
    ranked: list[Ranked]
    skipped: list[str] = field(default_factory=list)
    """Candidates left out, as "spec: reason" (no tools, …)."""


def available_models(
    config: Config | None = None, reachable: Iterable[str] = (), extra: Iterable[str] = ()
) -> list[str]:
    """Specs of catalog models, configured models and ``extra`` specs that can be used now:
    their provider has a key, or is a local provider in ``reachable``."""
    config = config if config is not None else load_config()
    up = set(reachable)
    specs: list[str] = []
    snap = config.routing()
    extra = [snap.model, *snap.roles.values(), *extra]
    for info in catalog.entries(config):
        specs.append(info.spec)
    for s in extra:
        try:
            t = _target(s, config, snap)
        except (ResolveError, ConfigError):
            continue
        specs.append(t.spec)
    out: list[str] = []
    for s in dict.fromkeys(specs):
        provider = s.partition("/")[0]
        if not _listed(provider, config):
            continue
        if catalog.is_local_provider(provider, config):
            if provider in up:
                out.append(s)
        elif _has_key(provider, config):
            out.append(s)
    return out


def suggest_routing(
    models: Iterable[str] | None = None,
    *,
    config: Config | None = None,
    evidence: Mapping[str, Evidence] | None = None,
    reachable: Iterable[str] = (),
    pass_bar: float = PASS_BAR,
) -> RoutingSuggestion:
    """Suggest a model per role from ``models`` (default: ``available_models``).

    Cheapest first: local models, then subscription-plan models, then list price weighted
    towards input (unpriced models placed by a guess from their name). Tool-less models are
    skipped; local models under 7B are never ``worker``. Measured bench evidence outranks price:
    ``worker``/``explore`` get the cheapest model that passes, ``smart`` the best-measured one.
    Without evidence ``smart`` is the main model when it is a candidate, else the dearest
    candidate under SMART_PRICE_CAP, and ``compact`` the cheapest with at least a 128k window.
    """
    config = config if config is not None else load_config()
    evidence = _canonical_evidence(evidence or {}, config)
    specs = (
        list(models)
        if models is not None
        else available_models(config, reachable, extra=evidence.keys())
    )
    ranked: list[Ranked] = []
    skipped: list[str] = []
    for spec in dict.fromkeys(specs):
        provider, _, model = spec.partition("/")
        info = catalog.lookup(model, provider, config)
        if not info.tools:
            skipped.append(f"{spec}: cannot call tools")
            continue
        ranked.append(_rank(spec, info, evidence.get(spec)))
    # Equal prices (all local models cost nothing): the larger model first, then by name.
    ranked.sort(key=lambda r: (r.tier, r.price, -(r.info.params_b or 0), r.spec))
    if not ranked:
        return RoutingSuggestion({}, {}, {}, [], skipped)

    def worker_ok(r: Ranked) -> bool:
        return not (r.info.local and r.info.params_b is not None and r.info.params_b < 7)

    measured = [r for r in ranked if r.evidence is not None and r.evidence.runs > 0]
    roles: dict[str, Ranked] = {}
    reasons: dict[str, str] = {}

    def cheapest_passing(ok: Any = lambda r: True) -> tuple[Ranked | None, str]:
        passing = [r for r in measured if r.evidence.pass_rate >= pass_bar and ok(r)]  # type: ignore[union-attr]
        if passing:
            return passing[0], "cheapest model that passes the bench"
        unmeasured = [r for r in ranked if r.evidence is None and ok(r)]
        if measured and unmeasured:
            return unmeasured[0], "cheapest model not yet benched (none benched passes)"
        if not measured:
            pool = [r for r in ranked if ok(r)]
            return (pool[0], "cheapest") if pool else (None, "")
        best = _best(r for r in measured if ok(r))
        return best, "best bench result (none passes)"

    for role, ok in (("worker", worker_ok), ("explore", lambda r: True)):
        pick, why = cheapest_passing(ok)
        if pick is not None:
            roles[role], reasons[role] = pick, why

    best = _best(measured)
    if best is not None:
        roles["smart"], reasons["smart"] = best, "best bench result"
    else:
        main = _main_spec(config)
        by_spec = {r.spec: r for r in ranked}
        if main in by_spec:
            roles["smart"], reasons["smart"] = by_spec[main], "the main model"
        else:
            capped = [r for r in ranked if r.price <= SMART_PRICE_CAP]
            pick = (capped or ranked)[-1]
            roles["smart"], reasons["smart"] = (
                pick,
                "dearest candidate (price as a proxy for strength)",
            )

    wide = [r for r in ranked if r.info.context_window >= 128_000]
    if measured:
        pick, why = cheapest_passing(lambda r: r.info.context_window >= 128_000)
    else:
        pick, why = (wide or ranked)[0], "cheapest with a large window"
    if pick is not None:
        roles["compact"], reasons["compact"] = pick, why

    fallbacks: dict[str, list[str]] = {}
    for role, pick in roles.items():
        alt = next(
            (
                r
                for r in ranked
                if r.info.provider != pick.info.provider
                and (role != "worker" or worker_ok(r))
                and (r.evidence is None or r.evidence.pass_rate >= pass_bar or not measured)
            ),
            None,
        )
        if alt is not None:
            fallbacks[role] = [alt.spec]
    return RoutingSuggestion(
        roles={k: v.spec for k, v in roles.items()},
        fallbacks=fallbacks,
        reasons={k: f"{reasons[k]}: {v.describe()}" for k, v in roles.items()},
        ranked=ranked,
        skipped=skipped,
    )


def _canonical_evidence(evidence: Mapping[str, Evidence], config: Config) -> dict[str, Evidence]:
    """Key evidence by "provider/model" (bench records the spec as the user typed it), merging
    runs of specs that name the same model."""
    snap = config.routing()
    out: dict[str, Evidence] = {}
    for key, ev in evidence.items():
        try:
            spec = _target(key, config, snap).spec
        except (ResolveError, ConfigError):
            spec = key
        prev = out.get(spec)
        if prev is None:
            out[spec] = ev
            continue
        runs = prev.runs + ev.runs
        passes = prev.pass_rate * prev.runs + ev.pass_rate * ev.runs
        spent = [
            e.cost_per_pass * e.pass_rate * e.runs
            for e in (prev, ev)
            if e.cost_per_pass is not None
        ]
        out[spec] = Evidence(
            pass_rate=passes / runs if runs else 0.0,
            runs=runs,
            cost_per_pass=sum(spent) / passes if len(spent) == 2 and passes else None,
        )
    return out


def _rank(spec: str, info: ModelInfo, ev: Evidence | None) -> Ranked:
    if info.local:
        return Ranked(spec, info, 0, 0.0, evidence=ev)
    guessed = not info.priced
    price = _weighted(info) if not guessed else _guess_price(info.id)
    return Ranked(spec, info, 1 if info.subscription else 2, price, guessed, ev)


def _weighted(info: ModelInfo) -> float:
    assert info.input_price is not None and info.output_price is not None
    return INPUT_WEIGHT * info.input_price + (1 - INPUT_WEIGHT) * info.output_price


def _guess_price(model: str) -> float:
    name = model.lower().replace(":", "-")
    if _CHEAP.search(name):
        return 0.5
    if _DEAR.search(name):
        return 10.0
    return 2.5


def _best(candidates: Iterable[Ranked]) -> Ranked | None:
    pool = [r for r in candidates if r.evidence is not None]
    if not pool:
        return None
    return max(pool, key=lambda r: (r.evidence.pass_rate, r.evidence.runs, -r.tier, -r.price))  # type: ignore[union-attr]


def _main_spec(config: Config) -> str:
    try:
        return _target("", config, config.routing()).spec
    except (ResolveError, ConfigError):
        return ""
