"""Saving ``/routing``'s roles and fallbacks to the user config (and the live config)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..config import Config, save_user_config

__all__ = ["save_routing"]


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
