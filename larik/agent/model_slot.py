"""``ModelSlot``: the model in use — resolved, what it can do (:mod:`.probe`), the profile that
fits it (:mod:`.profile`) — and switching it.

The slot asks the model's server what it loaded (once per model: at create within a bound,
else when a turn starts) and refits the profile when the answer changes it. What depends on
the profile elsewhere (the prompt's prefix, the tools offered, the turn limit) is the owner's:
the slot calls ``fit(profile, changed)`` each time it works the profile out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .probe import Capabilities, ModelLook, capabilities, probe
from .profile import Profile, profile_for
from .tools import tool_specs

if TYPE_CHECKING:
    from ..config import Config
    from ..llm.types import ToolSpec
    from ..routing import Resolved
    from .settings import Resolver

__all__ = ["ModelSlot"]


class ModelSlot:
    """``pend(text)``: a warning raised outside a turn (shown when the next one starts)."""

    caps: Capabilities
    specs: list[ToolSpec]  # the profile's tools as the model is offered them

    def __init__(
        self,
        resolved: Resolved,
        *,
        resolver: Resolver,
        config: Config,
        tools: tuple[str, ...],
        pend: Callable[[str], None],
        fit: Callable[[Profile, bool], None],
    ) -> None:
        """``tools``: the tools the agent's role may have. Call :meth:`use` to start."""
        self.resolved, self.resolver, self.config = resolved, resolver, config
        self._tools, self._pend, self._fit = tools, pend, fit
        self.profile = Profile(tools=tools)
        self._look = ModelLook()  # what the model's server says it loaded (once per model)

    @property
    def model(self) -> str:
        return self.resolved.model

    @property
    def role(self) -> str | None:
        return self.resolved.role

    @property
    def provider_name(self) -> str:
        return self.resolved.provider_name

    @property
    def spec(self) -> str:
        return self.resolved.spec

    @property
    def window(self) -> int:
        """The context window in tokens (the loaded one, once the server said)."""
        return self.caps.window

    @property
    def accepts_images(self) -> bool | None:
        return self.caps.images  # None: not known (images.py)

    @property
    def effort_applies(self) -> bool | None:
        return self.caps.effort  # False: /effort does nothing

    def use(self, resolved: Resolved) -> None:
        """From now on the model is ``resolved``: the catalog's word until its server says."""
        self.resolved = resolved
        self.caps = capabilities(resolved, self.config)
        self._look = ModelLook()
        for text in self.caps.warnings:
            self._pend(text)
        self.caps.warnings = []
        self._refit()

    def switch(self, spec: str) -> str:
        """Use ``spec`` (a spec or role, through the resolver); the spec it replaced."""
        old = self.resolved.spec
        self.use(self.resolver(spec))
        return old

    async def at_create(self, timeout: float) -> None:
        """Ask a local server what it loaded, within ``timeout`` (else the first turn asks);
        cloud providers answer from the catalog. Its warnings wait for the first turn."""
        for text in self._probed(await self._look.at_create(self.resolved, self.caps, timeout)):
            self._pend(text)

    async def at_turn(self) -> list[str]:
        """At a turn's start, unless create's look settled it: the warnings to show now."""
        return self._probed(await self._look.at_turn(self.resolved, self.caps))

    async def compact_model(self) -> tuple[Resolved, int]:
        """The model that writes a compaction's summary, and the window its server loaded."""
        resolved = self.resolver("compact")
        return resolved, (await probe(resolved, capabilities(resolved, self.config))).window

    def _probed(self, caps: Capabilities | None) -> list[str]:
        """Use what the server said it loaded (None: nothing new); its warnings."""
        if caps is None:
            return []
        self.caps = caps
        self._refit()
        return caps.warnings

    def _refit(self) -> None:
        prof = profile_for(self.resolved, self.config, self._tools, self.caps.params_b)
        changed, self.profile = prof != self.profile, prof
        self.specs = tool_specs(prof.tools, prof.line_numbers)
        self._fit(prof, changed)
