"""What a model can actually do here: the catalog's word, corrected by the server for local models.

``capabilities`` looks the model up in the catalog (window, tools). ``probe`` asks a provider
that implements ``ModelProber`` (local servers) what it really loaded, and returns warnings when
that is less than expected: a smaller context window than the catalog's (compaction then
follows the loaded window), or no tool support (tools are then not sent).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..llm.errors import APIError, LarikError
from ..llm.provider import ModelProber

if TYPE_CHECKING:
    from ..config import Config
    from ..routing import Resolved

__all__ = ["Capabilities", "capabilities", "no_tools_warning", "probe"]


@dataclass
class Capabilities:
    window: int
    catalog_window: int  # 0 when the catalog does not know the model
    tools: bool
    warnings: list[str] = field(default_factory=list)
    params_b: float | None = None  # size in billions of parameters, when known (profile.py)
    images: bool | None = None  # takes images (None: unknown; larik/agent/images.py)
    unusable: str = ""  # why the model cannot answer at all, as its server said ("": it can)
    effort: bool | None = None  # a reasoning effort changes anything (None: not known)


class ModelLook:
    """Once per model: what its server says it loaded — asked at create within a bound, else
    when the first turn starts — and asked again at every turn while the model cannot answer at
    all (``Capabilities.unusable``: a model pulled meanwhile, the engine installed)."""

    def __init__(self) -> None:
        self.pending = True

    async def at_create(
        self, resolved: Resolved, caps: Capabilities, timeout: float
    ) -> Capabilities | None:
        """The capabilities to use (None: the server did not answer within ``timeout``)."""
        try:
            return self._seen(await asyncio.wait_for(probe(resolved, caps), timeout))
        except TimeoutError:
            return None

    async def at_turn(self, resolved: Resolved, caps: Capabilities) -> Capabilities | None:
        """The capabilities to use (None: create's look settled them)."""
        return self._seen(await probe(resolved, caps)) if self.pending else None

    def _seen(self, caps: Capabilities) -> Capabilities:
        self.pending = bool(caps.unusable)
        return caps


def _unusable(provider: object, e: BaseException) -> bool:
    """An error that every request to this model would get (a local engine not installed, a
    model not pulled: not retryable) and no fallback stands in for: the turn's one problem,
    said before anything of the turn runs (the edit workflow ran the project's tests first)."""
    if not isinstance(e, APIError) or e.retryable:
        return False
    return len(getattr(provider, "candidates", ())) <= 1


def _effort_applies(resolved: Resolved) -> bool | None:
    """What the provider knows without asking its server: whether an effort does anything."""
    ask = getattr(resolved.provider, "effort_applies", None)
    return ask(resolved.model) if ask is not None else None


def no_tools_warning(spec: str) -> str:
    return f"{spec} does not support tools: it can chat but not read, edit or run code"


def model_info(resolved: Resolved, config: Config) -> Any:
    from ..llm.catalog import lookup

    return lookup(resolved.model, resolved.provider_name, config)


def capabilities(resolved: Resolved, config: Config) -> Capabilities:
    info = model_info(resolved, config)
    caps = Capabilities(
        window=info.context_window,
        catalog_window=info.context_window if info.window_known else 0,  # not a guess
        tools=bool(info.tools) or not info.known,
        params_b=info.params_b,
        images=bool(info.vision) if info.known else None,
        effort=_effort_applies(resolved),
    )
    if not caps.tools:
        caps.warnings.append(no_tools_warning(resolved.spec))
    return caps


async def probe(resolved: Resolved, caps: Capabilities) -> Capabilities:
    """``caps`` corrected by what the server reports; unchanged when it cannot say."""
    provider = resolved.provider
    if not isinstance(provider, ModelProber):
        return caps
    try:
        window = await provider.context_window(resolved.model)
        tools = await provider.supports_tools(resolved.model)
        ask_images = getattr(provider, "supports_images", None)
        images = await ask_images(resolved.model) if ask_images is not None else None
    except (LarikError, OSError) as e:
        if _unusable(provider, e):
            return replace(caps, unusable=str(e), warnings=list(caps.warnings))
        return caps
    out = Capabilities(
        caps.window, caps.catalog_window, caps.tools, params_b=caps.params_b, effort=caps.effort
    )
    if out.params_b is None and (ask := getattr(provider, "model_params", None)) is not None:
        try:  # the server says how large the model is (profile.py: small models)
            out.params_b = await ask(resolved.model)
        except (LarikError, OSError):
            pass
    out.images = caps.images if images is None else images
    if window:
        if caps.catalog_window and window < caps.catalog_window:
            out.warnings.append(
                f"{resolved.spec} is loaded with a {window:,}-token context window, smaller "
                f"than the model's {caps.catalog_window:,}: long sessions will be compacted "
                "early (raise the server's context length)"
            )
        out.window = window
    if tools is False and caps.tools:
        out.tools = False
        out.warnings.append(no_tools_warning(resolved.spec))
    return out
