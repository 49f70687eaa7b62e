"""A signed-in plan's usage windows, as a session sees them: what every face shows.

The ChatGPT backend reports the plan's windows with every answer; the adapter keeps the latest
figures per provider in this process (:mod:`larik.llm.signin.quota`: they are the account's,
not one conversation's). A session's plans are the providers its agent used — the model in
use and every model that answered (a fallback, a subagent's role) — and
:func:`plan_usage` gives their figures; :func:`plan_status` the one the status line shows
(``plus 5h 37% · wk 12%``, for the model in use). ``Session.plan_usage`` and
``Session.plan_status`` are these; the session says ``CHANGED("plan")`` when new figures
arrive with a reply, so a status line redraws.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..llm.signin.quota import Quota

__all__ = ["plan_json", "plan_status", "plan_usage", "plan_version", "stored_usage"]


def _providers(agent: Any) -> list[str]:
    usage = getattr(agent, "usage", None)
    used = list(getattr(usage, "providers", {}).values()) if usage is not None else []
    current = str(getattr(agent, "provider_name", "") or "")
    return [p for p in dict.fromkeys([current, *used]) if p]


def plan_usage(agent: Any) -> dict[str, Quota]:
    """The latest figures of the plans the agent used, by provider ({} for keyed models)."""
    if agent is None:
        return {}
    from ..llm.signin.quota import latest

    seen = latest()
    return {p: seen[p] for p in _providers(agent) if p in seen}


def plan_status(agent: Any) -> str:
    """The status line's figure: the model in use's plan (``plus 5h 37% · wk 12%``), else ""."""
    from ..llm.signin.quota import describe

    current = str(getattr(agent, "provider_name", "") or "")
    found = plan_usage(agent).get(current)
    return describe(found) if found is not None else ""


def plan_version(agent: Any) -> tuple[tuple[str, float], ...]:
    """Changes whenever new figures arrive (the session compares it after each reply)."""
    return tuple((p, q.seen_at) for p, q in plan_usage(agent).items())


def plan_json(agent: Any) -> dict[str, Any]:
    """The figures as JSON (print mode's result, bench rows): provider -> plan and windows."""
    return {
        provider: {
            "plan": q.plan,
            "windows": [
                {"window": w.label, "used_percent": w.used_percent, "resets_at": w.resets_at}
                for w in q.windows
            ],
        }
        for provider, q in plan_usage(agent).items()
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
