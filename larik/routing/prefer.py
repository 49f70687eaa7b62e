"""``[prefer] ROLE = "subscription"``: a role tries a signed-in plan's model first.

:func:`plan_choice` picks the plan model for a role: among the catalog's ``subscription``
models whose provider is signed in (``larik login``), the one :func:`~.suggest.suggest_routing`
would give that role (its :data:`~.suggest.ROLE_POLICIES` row; a role of your own takes the
first in cheapness order). A plan whose usage window is spent, as last reported (the figures
kept beside the account), is left out until the window's reset time. The role's own model and
its fallbacks follow the plan's model in the fallback chain (:func:`~.resolution.resolve`), so
when the window runs out mid-session the chain moves on, and cools the plan down until the
reset time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..config import Config, RoutingSnapshot
from ..llm import catalog
from ..llm.endpoint import resolve_endpoint
from ..llm.errors import ConfigError, ResolveError
from .providers import has_key, listed

__all__ = ["PREFERENCES", "PlanChoice", "plan_choice", "signed_in_plans"]

#: What a role may prefer (``[prefer]``'s values).
PREFERENCES = ("subscription",)


@dataclass(frozen=True, slots=True)
class PlanChoice:
    spec: str | None
    """The plan model to try first (None: no signed-in plan can take the role now)."""
    skipped: tuple[str, ...] = field(default=())
    """Plans left out, as "provider: reason" (a spent window)."""


def signed_in_plans(config: Config, now: float | None = None) -> tuple[list[str], list[str]]:
    """Specs of the catalog's plan models whose provider is signed in and whose window is not
    known to be spent; and the plans left out, as "provider: reason"."""
    now = time.time() if now is None else now
    usable: dict[str, bool] = {}
    skipped: list[str] = []
    specs: list[str] = []
    for info in catalog.entries(config):
        if not info.subscription or info.local:
            continue
        provider = info.provider
        if provider not in usable:
            usable[provider] = listed(provider, config) and has_key(provider, config)
            until = _spent_until(provider, config, now) if usable[provider] else None
            if until is not None:
                usable[provider] = False
                skipped.append(f"{provider}: usage window spent until {_clock(until)}")
        if usable[provider]:
            specs.append(info.spec)
    return specs, skipped


def plan_choice(role: str, config: Config, snap: RoutingSnapshot) -> PlanChoice | None:
    """The plan model for ``role`` when the role prefers a subscription (None: it does not)."""
    if snap.prefer.get(role) != "subscription":
        return None
    from .suggest import suggest_routing

    specs, skipped = signed_in_plans(config)
    if not specs:
        return PlanChoice(None, tuple(skipped))
    try:
        suggestion = suggest_routing(specs, config=config)
    except (ResolveError, ConfigError):
        return PlanChoice(None, tuple(skipped))
    pick = suggestion.roles.get(role) or (suggestion.ranked[0].spec if suggestion.ranked else None)
    return PlanChoice(pick, tuple(skipped))


def _spent_until(provider: str, config: Config, now: float) -> float | None:
    """When the provider's signed-in plan refills, if its last figures say it is spent."""
    from ..llm.signin import quota
    from ..llm.signin.store import AccountStore

    try:
        account = resolve_endpoint(provider, config).account
    except (ResolveError, ConfigError):
        return None
    if account is None:
        return None
    seen = quota.load(AccountStore(config.accounts_dir), account)
    until = quota.reset_time(seen)
    return until if until is not None and until > now else None


def _clock(when: float) -> str:
    return time.strftime("%a %H:%M", time.localtime(when))
