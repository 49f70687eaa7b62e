"""A session's modes and settings as ACP shows them: session modes and config options.

The permission modes (``larik.modes.Mode``) are the
session's ACP *modes* (``session/set_mode``) and also a config option of category ``mode``;
the model is a config option of category ``model`` — Larik's catalog models that can be used
here (``larik.session.models``), grouped by provider, after the roles the user's routing sets
(``smart``, ``worker``, …: choosing one switches to its model, as ``/model smart`` does); the
reasoning effort is one of category ``thought_level``. The SDK this is built on has no
``session/set_model``, so config options are how a client switches models
(``session/set_config_option``).
"""

from __future__ import annotations

from typing import Any

from acp.schema import (
    SessionConfigOptionSelect,
    SessionConfigSelectGroup,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)

from ..llm.effort import Effort
from ..modes import Mode
from ..refusal import Phrasing

__all__ = ["EFFORTS", "MODE", "MODEL", "EFFORT", "REFUSALS", "config_options", "modes"]

MODE, MODEL, EFFORT = "mode", "model", "effort"
#: the effort selector's values, the provider's default first, and what each means
EFFORTS = {e.word: e.value or "the model's own default" for e in sorted(Effort, key=bool)}
#: How an editor is told a refused call's remedy (larik/refusal.py): the mode, by its name
REFUSALS = Phrasing(lambda mode: f"switch to the {mode.label} mode")


def modes(current: str) -> SessionModeState:
    return SessionModeState(
        current_mode_id=current,
        available_modes=[SessionMode(id=m, name=m.label, description=m.description) for m in Mode],
    )


def _select(
    option_id: str, name: str, category: Any, current: str, options: list[Any]
) -> SessionConfigOptionSelect:
    return SessionConfigOptionSelect(
        type="select", id=option_id, name=name, category=category, current_value=current,
        options=options,
    )  # fmt: skip


def config_options(session: Any, models: list[tuple[str, str, str]]) -> list[Any]:
    """The mode, model and effort selectors of ``session``; ``models``: ``(value, name,
    group)`` of each model choice (:func:`model_choices`)."""
    mode = session.permission_mode or Mode.ASK
    mode_opts = [SessionConfigSelectOption(value=m, name=m.label, description=m.description)
                 for m in Mode]  # fmt: skip
    current = session.spec
    groups: dict[str, list[SessionConfigSelectOption]] = {}
    if current and current not in {v for v, _, _ in models}:
        models = [(current, current, "In use"), *models]
    for value, name, group in models:
        groups.setdefault(group, []).append(SessionConfigSelectOption(value=value, name=name))
    model_opts = [
        SessionConfigSelectGroup(group=g.lower().replace(" ", "-"), name=g, options=opts)
        for g, opts in groups.items()
    ]
    effort = session.status.effort
    effort_opts = [SessionConfigSelectOption(value=v, name=v, description=d)
                   for v, d in EFFORTS.items()]  # fmt: skip
    return [
        _select(MODE, "Mode", "mode", mode, mode_opts),
        _select(MODEL, "Model", "model", current, model_opts),
        _select(EFFORT, "Reasoning effort", "thought_level", effort, effort_opts),
    ]


def model_choices(config: Any) -> list[tuple[str, str, str]]:
    """``(value, name, group)`` of every model the session can switch to: the roles the
    user's routing sets, then each usable model (``larik.session.models``) by provider."""
    from ..session.models import picker_entries

    out: list[tuple[str, str, str]] = []
    try:
        roles = config.routing().roles
    except Exception:  # a config without routing (tests): no roles
        roles = {}
    for role, spec in roles.items():
        if spec:
            out.append((role, f"{role} → {spec}", "Roles"))
    for e in picker_entries(config):
        if e.spec.endswith("/"):
            continue  # "type the model id": a list cannot take one
        provider = e.spec.partition("/")[0]
        out.append((e.spec, e.spec.partition("/")[2], provider))
    return out
