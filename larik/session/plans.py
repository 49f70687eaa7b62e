"""A signed-in plan's usage windows, as a session sees them: what every face shows.

The ChatGPT backend reports the plan's windows with every answer; the adapter keeps the latest
figures per provider in this process (:mod:`larik.llm.signin.quota`: they are the account's,
not one conversation's). A session's plans are the providers its agent used — the model in
use and every model that answered (a fallback, a subagent's role) — and
:func:`plan_usage` gives their figures; :func:`describe_current` the one the status line shows
(``plus 5h 37% · wk 12%``, for the model in use). ``Session.status`` carries both
(``plan_usage``, ``plan``); the session says ``CHANGED("plan")`` when new figures
arrive with a reply, so a status line redraws.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..llm.signin.quota import Quota
    from .port import AgentPort

__all__ = ["describe_current", "plan_json", "plan_usage", "plan_version", "stored_usage"]


def _providers(agent: AgentPort) -> list[str]:
    used = list(agent.usage.providers.values())
    return [p for p in dict.fromkeys([agent.provider_name, *used]) if p]


def plan_usage(agent: AgentPort | None) -> dict[str, Quota]:
    """The latest figures of the plans the agent used, by provider ({} for keyed models)."""
    if agent is None:
        return {}
    from ..llm.signin.quota import latest

    seen = latest()
    return {p: seen[p] for p in _providers(agent) if p in seen}


def describe_current(plans: Mapping[str, Quota], provider: str) -> str:
    """The status line's figure: ``provider``'s plan (``plus 5h 37% · wk 12%``), else ""."""
    found = plans.get(provider)
    if found is None:
        return ""
    from ..llm.signin.quota import describe

    return describe(found)


def plan_version(plans: Mapping[str, Quota]) -> tuple[tuple[str, float], ...]:
    """Changes whenever new figures arrive (the session compares it after each reply)."""
    return tuple((p, q.seen_at) for p, q in plans.items())


def plan_json(plans: Mapping[str, Quota]) -> dict[str, Any]:
    """The figures as JSON (print mode's result, bench rows): provider -> plan and windows."""
    return {
        provider: {
            "plan": q.plan,
            "windows": [
                {"window": w.label, "used_percent": w.used_percent, "resets_at": w.resets_at}
                for w in q.windows
            ],
        }
        for provider, q in plans.items()
    }


def stored_usage(config: Any) -> dict[str, Quota]:
    """The figures kept beside each signed-in account (the latest any Larik process saw), by
    sign-in name: a bench run's baseline before its first answer."""
    from ..llm.signin import SIGNINS
    from ..llm.signin import quota as quotas
    from ..llm.signin.store import AccountStore

    store = AccountStore(config.accounts_dir)
    out: dict[str, Quota] = {}
    for name in SIGNINS:
        account = store.current(name)
        found = quotas.load(store, account) if account is not None else None
        if found is not None:
            out[name] = found
    return out
