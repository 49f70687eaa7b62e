"""From a user's words to a Provider and a model id — and what to route where.

``resolve(spec, config)`` is the entry point (the agent, print mode, bench); the package is
split by job:

* :mod:`.targets` — a spec (``""``, ``provider/model``, a role, a bare model id) to a
  ``Target`` (provider name, model, role), building nothing; ``default_model``, the one rule
  for the model every face starts on when none is asked for;
* :mod:`.remembered` — the model remembered as the default (the TUI writes it, every face
  reads it through the rule); :mod:`.no_model` — what a face says when the rule finds none;
* :mod:`.providers` — which providers exist and can be used (keys and base URLs come from
  ``larik.llm.endpoint``, the only code reading the environment for providers);
* :mod:`.build` — the adapter from its endpoint, wrapped in timeouts and retries;
* :mod:`.resolution` — ``resolve`` (with fallback chains) and ``plan`` (for ``larik routing``);
* :mod:`.save` — ``/routing``'s roles and fallbacks to the user config;
* :mod:`.local` — the one discovery of servers on this machine (picker, ``larik models``,
  suggestions);
* :mod:`.evidence` and :mod:`.suggest` — bench results as evidence, and a suggested model per
  role (the role policy is data: ``ROLE_POLICIES``).

docs/routing.md has the rules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..config import CLAUDE_ROLES
    from .build import build_provider
    from .evidence import Evidence, load_evidence
    from .local import reachable_local_providers
    from .providers import api_key_for, base_url_for, provider_names
    from .resolution import Resolved, RoutePlan, plan, resolve
    from .save import save_routing
    from .suggest import (
        ROLE_POLICIES,
        Ranked,
        RolePolicy,
        RoutingSuggestion,
        available_models,
        suggest_routing,
    )
    from .targets import ROLES, NoModelError, Target, all_roles, role_default, target

# Public name -> the module defining it. Loaded on first use, so that importing a light part
# (``larik.routing.local`` for the TUI) does not import the config, pydantic and the catalog.
_WHERE = {
    "CLAUDE_ROLES": "larik.config",
    "build_provider": ".build",
    "Evidence": ".evidence",
    "load_evidence": ".evidence",
    "reachable_local_providers": ".local",
    "api_key_for": ".providers",
    "base_url_for": ".providers",
    "provider_names": ".providers",
    "Resolved": ".resolution",
    "RoutePlan": ".resolution",
    "plan": ".resolution",
    "resolve": ".resolution",
    "save_routing": ".save",
    "ROLE_POLICIES": ".suggest",
    "Ranked": ".suggest",
    "RolePolicy": ".suggest",
    "RoutingSuggestion": ".suggest",
    "available_models": ".suggest",
    "suggest_routing": ".suggest",
    "ROLES": ".targets",
    "NoModelError": ".targets",
    "Target": ".targets",
    "all_roles": ".targets",
    "role_default": ".targets",
    "target": ".targets",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "CLAUDE_ROLES",
    "ROLES",
    "ROLE_POLICIES",
    "Evidence",
    "NoModelError",
    "Ranked",
    "Resolved",
    "RolePolicy",
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
    "role_default",
    "save_routing",
    "suggest_routing",
    "target",
]
