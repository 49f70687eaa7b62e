"""The models a session can switch to: catalog models whose provider has a key, models added
in the config, models found on local servers, each with its context window and price.

Every face lists them from here: the TUI's ``/model`` picker and ``/routing``
(``larik/tui/models.py`` ranks them as the user types), an editor's model selector over ACP.
A configured remote provider with no model listed is offered as ``name/`` (the user types the
model id); a local one is not: its server was asked, and only what it lists is offered. Pure
functions: finding local servers (the network) is the caller's, in a worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config import Config
    from ..routing.local import LocalModel

__all__ = ["ModelEntry", "has_key", "picker_entries"]


@dataclass(frozen=True, slots=True)
class ModelEntry:
    spec: str
    window: int | None = None
    input_price: float | None = None
    output_price: float | None = None
    source: str = "catalog"  # catalog | config | local
    note: str = ""


def has_key(provider: str, config: Config | None) -> bool:
    """Whether ``provider`` can be used: it needs no key, or its key is set somewhere."""
    from ..llm.endpoint import resolve_endpoint
    from ..llm.errors import LarikError

    try:
        resolve_endpoint(provider, config).require_key()
    except LarikError:
        return False
    return True


def picker_entries(
    config: Config | None, local: list[LocalModel] | None = None
) -> list[ModelEntry]:
    from ..llm import catalog
    from ..routing.local import served_window

    out: dict[str, ModelEntry] = {}
    keyed: dict[str, bool] = {}
    for info in catalog.entries(config):
        if info.provider not in keyed:
            keyed[info.provider] = has_key(info.provider, config)
        if not keyed[info.provider] or (info.local and not _in_config(info.spec, config)):
            continue  # local catalog entries show up only when a server lists them
        source = "config" if _in_config(info.spec, config) else "catalog"
        out[info.spec] = ModelEntry(
            info.spec, info.context_window, info.input_price, info.output_price, source, info.note
        )
    for m in local or []:
        if m.spec in out or not m.model.strip():
            continue
        out[m.spec] = ModelEntry(m.spec, served_window(m, config), 0.0, 0.0, "local", m.server)
    for name in config.providers if config is not None else {}:
        if any(spec.startswith(f"{name}/") for spec in out) or not has_key(name, config):
            continue
        if catalog.is_local_provider(name, config):
            continue  # its server was asked for its models: none answered, nothing to offer
        out[f"{name}/"] = ModelEntry(f"{name}/", source="config", note="type the model id")
    return list(out.values())


def _in_config(spec: str, config: Config | None) -> bool:
    return config is not None and spec in config.models
