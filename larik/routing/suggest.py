"""Suggested routing: a model per role, cheapest first, bench evidence over price.

The roles and how each is picked are data (:data:`ROLE_POLICIES`); ``suggest_routing`` applies
them to the ranked candidates. ``/routing``'s presets and ``larik routing --suggest`` use it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..config import Config, load_config
from ..llm import catalog
from ..llm.errors import ConfigError, ResolveError
from .evidence import Evidence, canonical_evidence
from .providers import has_key, listed
from .targets import target_in

if TYPE_CHECKING:
    from ..llm.catalog import ModelInfo

__all__ = [
    "INPUT_WEIGHT",
    "PASS_BAR",
    "ROLE_POLICIES",
    "SMART_PRICE_CAP",
    "Ranked",
    "RolePolicy",
    "RoutingSuggestion",
    "available_models",
    "suggest_routing",
]

#: Weight of the input price in the ranking price (the rest goes to output): an agent's
#: prompts are far larger than its replies.
INPUT_WEIGHT = 0.75
#: A model passes the bench when its measured pass rate reaches this.
PASS_BAR = 0.8
#: Without evidence, ``smart`` is the most expensive candidate at or under this weighted price
#: (so a "pro" tier at many times the price is not suggested by default).
SMART_PRICE_CAP = 20.0
_CHEAP = re.compile(r"mini|nano|flash|lite|haiku|small|tiny|instant|fast|\b[1-9](\.\d)?b\b")
_DEAR = re.compile(r"opus|fable|mythos|\bpro\b|-pro|ultra|large|\bmax\b|-max")


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
    window: int | None = None
    """The context window as known: measured (what its server reports it loaded), else the
    catalog's or the config's; None when nobody knows it (never the catalog's default)."""

    def describe(self) -> str:
        if self.tier == 0:
            base = "local"
        elif self.tier == 1:
            base = "subscription plan"
        else:
            base = f"~${self.price:.2f}/M" + (" (guessed from name)" if self.guessed else "")
        if self.window:
            base += f", {_k(self.window)} window"
        return base + (f"; {self.evidence.describe()}" if self.evidence else "")


def _k(tokens: int) -> str:
    return f"{tokens / 1_000_000:g}M" if tokens >= 1_000_000 else f"{tokens // 1000}k"


@dataclass
class RoutingSuggestion:
    """Roles (and a fallback each) suggested for ``/routing``, with the ranking behind them."""

    roles: dict[str, str]
    fallbacks: dict[str, list[str]]
    reasons: dict[str, str]
    ranked: list[Ranked]
    skipped: list[str] = field(default_factory=list)
    """Candidates left out, as "spec: reason" (no tools, …)."""
    unfilled: dict[str, str] = field(default_factory=dict)
    """Roles no candidate fits, and why (a preset does not change them)."""


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
            t = target_in(s, config, snap)
        except (ResolveError, ConfigError):
            continue
        specs.append(t.spec)
    out: list[str] = []
    for s in dict.fromkeys(specs):
        provider = s.partition("/")[0]
        if not listed(provider, config):
            continue
        if catalog.is_local_provider(provider, config):
            if provider in up:
                out.append(s)
        elif has_key(provider, config):
            out.append(s)
    return out


@dataclass(frozen=True, slots=True)
class RolePolicy:
    """How ``suggest_routing`` picks one role's model: a row of :data:`ROLE_POLICIES`."""

    role: str
    strongest: bool = False
    """Pick the strongest candidate (best bench result; else the main model; else the most
    expensive under SMART_PRICE_CAP, the largest among equals) rather than the cheapest."""
    min_window: int = 0
    """Only models with at least this context window."""
    min_local_params_b: float = 0.0
    """Local models known to have fewer billion parameters are left out (fallbacks too)."""
    any_if_none: bool = False
    """Without bench evidence, take the cheapest of all when no model qualifies."""
    reason: str = "cheapest"
    """Why, when the pick is made on price alone."""
    none: str = "no candidate fits"
    """Why, when no candidate fits the role."""

    def fits(self, r: Ranked) -> bool:
        """The size rule (applies to the role's fallback as well)."""
        small = r.info.params_b is not None and r.info.params_b < self.min_local_params_b
        return not (r.info.local and small)

    def accepts(self, r: Ranked) -> bool:
        """The size rule, and a window known to be large enough (an unknown one is not)."""
        big_enough = not self.min_window or (r.window or 0) >= self.min_window
        return self.fits(r) and big_enough


#: The roles ``suggest_routing`` fills, in order, and how.
ROLE_POLICIES = (
    RolePolicy(
        "worker",
        min_local_params_b=7,
        none="none suggested: local models under 7B are left out, and no other is usable",
    ),
    RolePolicy("explore"),
    RolePolicy("smart", strongest=True),
    RolePolicy(
        "compact",
        min_window=128_000,
        any_if_none=True,
        reason="cheapest with at least a 128k window",
    ),
)


def suggest_routing(
    models: Iterable[str] | None = None,
    *,
    config: Config | None = None,
    evidence: Mapping[str, Evidence] | None = None,
    reachable: Iterable[str] = (),
    pass_bar: float = PASS_BAR,
    windows: Mapping[str, int | None] | None = None,
) -> RoutingSuggestion:
    """Suggest a model per role (:data:`ROLE_POLICIES`) from ``models`` (default:
    ``available_models``). ``windows``: the context windows measured (a local server's
    loaded window, by spec): they beat the catalog's, and a window nobody knows is not taken
    for the catalog's default. Providers not offered in lists (``scripted``, a test double)
    are never suggested.

    Cheapest first: local models, then subscription-plan models, then list price weighted
    towards input (unpriced models placed by a guess from their name). Tool-less models are
    skipped. Measured bench evidence outranks price: a cheapest-pick role gets the cheapest
    model that passes, ``smart`` the best-measured one. Without evidence ``smart`` is the main
    model when it is a candidate, else the most expensive under SMART_PRICE_CAP. Each role
    also gets one fallback: the next candidate from a different provider.
    """
    config = config if config is not None else load_config()
    evidence = canonical_evidence(evidence or {}, config)
    specs = (
        list(models)
        if models is not None
        else available_models(config, reachable, extra=evidence.keys())
    )
    ranked: list[Ranked] = []
    skipped: list[str] = []
    measured_windows = windows or {}
    for spec in dict.fromkeys(specs):
        provider, _, model = spec.partition("/")
        if not listed(provider, config):
            skipped.append(f"{spec}: not a provider to suggest (a test double)")
            continue
        info = catalog.lookup(model, provider, config)
        if not info.tools:
            skipped.append(f"{spec}: cannot call tools")
            continue
        window = measured_windows.get(spec) or (info.context_window if info.known else None)
        ranked.append(_rank(spec, info, evidence.get(spec), window))
    # Equal prices (all local models cost nothing): the larger model first, then by name.
    ranked.sort(key=lambda r: (r.tier, r.price, -(r.info.params_b or 0), r.spec))
    if not ranked:
        return RoutingSuggestion({}, {}, {}, [], skipped)
    measured = [r for r in ranked if r.evidence is not None and r.evidence.runs > 0]
    roles: dict[str, Ranked] = {}
    reasons: dict[str, str] = {}
    unfilled: dict[str, str] = {}
    for policy in ROLE_POLICIES:
        if policy.strongest:
            pick, why = _strongest(ranked, measured, config)
        elif measured:
            pick, why = _cheapest_passing(ranked, measured, policy.accepts, pass_bar)
        else:
            pool = [r for r in ranked if policy.accepts(r)]
            why = policy.reason
            if not pool and policy.any_if_none:  # it said "a large window" of an 8k model
                pool, why = ranked, _none_has_window(ranked, policy.min_window)
            pick = pool[0] if pool else None
        if pick is not None:
            roles[policy.role], reasons[policy.role] = pick, why
        else:
            unfilled[policy.role] = policy.none
    policies = {p.role: p for p in ROLE_POLICIES}
    fallbacks: dict[str, list[str]] = {}
    for role, pick in roles.items():
        alt = next(
            (
                r
                for r in ranked
                if r.info.provider != pick.info.provider
                and policies[role].fits(r)
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
        unfilled=unfilled,
    )


def _none_has_window(ranked: list[Ranked], tokens: int) -> str:
    """Why the cheapest was taken for a role that wants a ``tokens`` window none has."""
    known = "" if all(r.window for r in ranked) else " is known to have"
    return f"cheapest (none{known or ' has'} a {_k(tokens)} window)"


def _cheapest_passing(
    ranked: list[Ranked], measured: list[Ranked], ok: Callable[[Ranked], bool], pass_bar: float
) -> tuple[Ranked | None, str]:
    passing = [r for r in measured if r.evidence.pass_rate >= pass_bar and ok(r)]  # type: ignore[union-attr]
    if passing:
        return passing[0], "cheapest model that passes the bench"
    unmeasured = [r for r in ranked if r.evidence is None and ok(r)]
    if unmeasured:
        return unmeasured[0], "cheapest model not yet benched (none benched passes)"
    return _best(r for r in measured if ok(r)), "best bench result (none passes)"


def _strongest(
    ranked: list[Ranked], measured: list[Ranked], config: Config
) -> tuple[Ranked | None, str]:
    best = _best(measured)
    if best is not None:
        return best, "best bench result"
    main = {r.spec: r for r in ranked}.get(_main_spec(config))
    if main is not None:
        return main, "the main model"
    capped = [r for r in ranked if r.price <= SMART_PRICE_CAP] or ranked
    # the priciest; among equal prices (local models: all free) the largest
    pick = max(capped, key=lambda r: (r.tier, r.price, r.info.params_b or 0))
    return pick, _strongest_guess(pick, capped)


def _strongest_guess(pick: Ranked, capped: list[Ranked]) -> str:
    """Why ``pick`` was taken as the strongest, without evidence: the most expensive; among
    equal prices the largest — said only when every size among them is known."""
    guess = "a guess at the strongest: larik bench measures it"
    equals = [r for r in capped if (r.tier, r.price) == (pick.tier, pick.price)]
    if len(capped) == 1:
        return "the only model (not measured: larik bench measures it)"
    if len(equals) == 1:
        return f"most expensive model ({guess})"
    if all(r.info.params_b is not None for r in equals):
        return f"largest model ({pick.info.params_b:g}B; {guess})"
    return "a guess (the models' sizes are not known: larik bench measures which is strongest)"


def _rank(spec: str, info: ModelInfo, ev: Evidence | None, window: int | None) -> Ranked:
    if info.local:
        return Ranked(spec, info, 0, 0.0, evidence=ev, window=window)
    guessed = not info.priced
    price = _weighted(info) if not guessed else _guess_price(info.id)
    return Ranked(spec, info, 1 if info.subscription else 2, price, guessed, ev, window)


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
        return target_in("", config, config.routing()).spec
    except (ResolveError, ConfigError):
        return ""
