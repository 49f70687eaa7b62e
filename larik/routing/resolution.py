"""``resolve(spec, config)``: a ready Provider (timeouts -> retry -> fallback) and a model id.

The spec becomes a target (:mod:`.targets`); the adapter is built from its endpoint
(:mod:`.build`: key and base URL from ``larik.llm.endpoint``) and wrapped in stall timeouts,
then retries, then — when ``fallbacks[role]`` or else ``fallbacks[spec]`` is configured — a
fallback chain; candidates that cannot be built (no key, say) are skipped and listed in
``Resolved.skipped``. A role that prefers a subscription (``[prefer] ROLE = "subscription"``,
:mod:`.prefer`) goes to a signed-in plan's model first, its own model and fallbacks after it.
``plan(spec, config)`` says the same without building anything.

Reads of model/roles/fallbacks go through ``Config.routing()``, one snapshot per resolve.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..config import Config, RoutingSnapshot, load_config
from ..llm.endpoint import remember_known
from ..llm.errors import ConfigError, ResolveError
from .build import CHAIN_RETRY_ATTEMPTS, RETRY_ATTEMPTS, build_provider, wrap
from .prefer import plan_choice
from .providers import api_key_for
from .targets import Target, target_in

if TYPE_CHECKING:
    from ..llm.provider import Provider

__all__ = ["Resolved", "RoutePlan", "plan", "resolve"]


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


def _route(
    spec: str, config: Config, snap: RoutingSnapshot
) -> tuple[Target, tuple[str, ...], tuple[str, ...]]:
    """The target to try first, the specs after it, and the plans left out (as reasons).

    Without a preference: ``spec``'s target and its fallbacks. A role preferring a
    subscription: the plan's model, then the role's own target and its fallbacks (the role's
    own target may fail to resolve, with no key anywhere: the plan's model alone)."""
    role = spec.strip() or snap.model.strip()
    try:
        t: Target | None = target_in(spec, config, snap)
    except ResolveError:
        t = None
        if role not in snap.prefer:
            raise
    if t is not None and t.role:
        role = t.role
    choice = plan_choice(role, config, snap) if role else None
    if choice is None or choice.spec is None:
        if t is None:
            raise ResolveError(f"role {role!r} prefers a subscription, but no plan is signed in")
        return t, _fallback_specs(spec, t, snap), choice.skipped if choice else ()
    first = replace(target_in(choice.spec, config, snap), role=role)
    rest = () if t is None else (t.spec, *_fallback_specs(spec, t, snap))
    return first, rest, choice.skipped


def plan(spec: str = "", config: Config | None = None) -> RoutePlan:
    """Where ``spec`` goes and which fallbacks are usable, checking keys but building nothing."""
    config = config if config is not None else load_config()
    snap = config.routing()
    out = RoutePlan(spec=spec)
    after: tuple[str, ...] = ()
    try:
        out.target, after, left_out = _route(spec, config, snap)
        out.fallbacks.extend((p, why) for p, _, why in (s.partition(": ") for s in left_out))
        api_key_for(out.target.provider_name, config)
    except (ResolveError, ConfigError) as e:
        out.error = str(e)
        if out.target is None:
            return out
    seen = {out.target.spec}
    for cand in after:
        try:
            t = target_in(cand, config, snap)
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
    from ..llm.fallback import Candidate, with_fallback

    config = config if config is not None else load_config()
    remember_known(config)  # every key it could read is masked wherever text leaves Larik
    snap = config.routing()
    if main.strip():
        snap = replace(snap, model=main.strip())
    t, after, left_out = _route(spec, config, snap)
    primary = build_provider(t.provider_name, t.model, config)

    built: list[tuple[Target, Provider]] = []
    skipped: list[str] = list(left_out)
    seen = {t.spec}
    for cand in after:
        try:
            ct = target_in(cand, config, snap)
            if ct.spec in seen:
                continue
            seen.add(ct.spec)
            built.append((ct, build_provider(ct.provider_name, ct.model, config)))
        except (ResolveError, ConfigError) as e:
            skipped.append(f"{cand}: {e}")

    if not built:
        provider = wrap(primary, t.provider_name, config, RETRY_ATTEMPTS)
    else:
        chain = [(t, primary), *built]
        last = len(chain) - 1
        provider = with_fallback(
            [
                Candidate(
                    wrap(
                        p,
                        ct.provider_name,
                        config,
                        RETRY_ATTEMPTS if i == last else CHAIN_RETRY_ATTEMPTS,
                        hand_over=i < last,
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
