"""From a user's words to a Provider and a model id — and what to route where.

``resolve(spec, config)`` is the entry point (the agent, print mode, bench); the package is
split by job:

* :mod:`.targets` — a spec (``""``, ``provider/model``, a role, a bare model id) to a
  ``Target`` (provider name, model, role), building nothing;
* :mod:`.providers` — which providers exist and can be used (keys and base URLs come from
  ``larik.llm.endpoint``, the only code reading the environment for providers);
* :mod:`.build` — the adapter from its endpoint, wrapped in timeouts and retries;
* :mod:`.resolve` — ``resolve`` (with fallback chains) and ``plan`` (for ``larik routing``);
* :mod:`.save` — ``/routing``'s roles and fallbacks to the user config;
* :mod:`.local` — the one discovery of servers on this machine (picker, ``larik models``,
  suggestions);
* :mod:`.evidence` and :mod:`.suggest` — bench results as evidence, and a suggested model per
  role (the role policy is data: ``ROLE_POLICIES``).

docs/routing.md has the rules.
"""

from __future__ import annotations

from ..config import CLAUDE_ROLES
from .build import build_provider
from .evidence import Evidence, load_evidence
from .local import reachable_local_providers
from .providers import api_key_for, base_url_for, provider_names
from .resolve import Resolved, RoutePlan, plan, resolve
from .save import save_routing
from .suggest import (
    ROLE_POLICIES,
    Ranked,
    RolePolicy,
    RoutingSuggestion,
    available_models,
    suggest_routing,
)
from .targets import ROLES, NoModelError, Target, all_roles, target

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
    "save_routing",
    "suggest_routing",
    "target",
]
