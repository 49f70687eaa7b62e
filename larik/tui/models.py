"""What the ``/model`` picker and ``/routing`` list: models that can actually be used here.

``picker_entries(config, local)`` gathers catalog models whose provider has a key, models added
in the config, and models found on local servers, each with its context window and price. A
configured remote provider with no model listed is offered as ``name/`` (the user types the
model id); a local one is not: its server was asked, and only what it lists is offered.
``fuzzy_filter`` ranks them against what the user types. Pure functions: the network part
(finding local servers) is done by the caller, in a worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..config import Config
    from ..routing.local import LocalModel

__all__ = [
    "ModelEntry",
    "looked_text",
    "format_price",
    "format_window",
    "fuzzy_filter",
    "has_key",
    "picker_entries",
]


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
        info = catalog.lookup(m.model, m.provider, config)
        window = info.context_window if info.known else m.window
        out[m.spec] = ModelEntry(m.spec, window, 0.0, 0.0, "local", m.server)
    for name in config.providers if config is not None else {}:
        if any(spec.startswith(f"{name}/") for spec in out) or not has_key(name, config):
            continue
        if catalog.is_local_provider(name, config):
            continue  # its server was asked for its models: none answered, nothing to offer
        out[f"{name}/"] = ModelEntry(f"{name}/", source="config", note="type the model id")
    return list(out.values())


def _in_config(spec: str, config: Config | None) -> bool:
    return config is not None and spec in config.models


def _score(query: str, text: str) -> int | None:
    """Subsequence match score (higher is better); None when ``query`` is not a subsequence."""
    if not query:
        return 0
    t = text.lower()
    q = query.lower()
    if q in t:
        return 1000 - t.index(q) - len(t) // 10
    pos = -1
    score = 0
    for ch in q:
        nxt = t.find(ch, pos + 1)
        if nxt == -1:
            return None
        score -= nxt - pos - 1  # gaps cost
        pos = nxt
    return score - len(t) // 10


def fuzzy_filter(query: str, entries: list[ModelEntry]) -> list[ModelEntry]:
    scored = [
        (s, i, e) for i, e in enumerate(entries) if (s := _score(query.strip(), e.spec)) is not None
    ]
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [e for _, _, e in scored]


def format_window(tokens: int | None) -> str:
    if not tokens:
        return "?"
    if tokens >= 1_000_000:  # 1,048,576 is "1M", not "1.04858M": five columns at most
        return f"{tokens / 1_000_000:.1f}".removesuffix(".0") + "M"
    return f"{tokens // 1000}k"


def format_price(inp: float | None, out: float | None) -> str:
    """``$3/$15`` per million tokens in/out; ``free`` for local; ``—`` when unknown."""
    if inp is None or out is None:
        return "—"
    if inp == 0 and out == 0:
        return "free"
    return f"${inp:g}/${out:g}"


def looked_text(local: list[Any]) -> str:
    """The model picker's footer once the search for local servers is over."""
    return f"{len(local)} local model(s) found" if local else "no local server answered"
