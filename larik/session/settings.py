"""The settings part of a session: the model, the permission mode, the reasoning effort, the
budget and a signed-in plan's usage — what a status line shows and a face changes.

Each change is said as ``CHANGED(what)`` (``changed``), so every face's status line redraws;
the plan's figures are compared after each reply (``reply_seen``) and said as
``CHANGED("plan")`` when new ones arrived. The budget (:mod:`.budget`) follows the agent: it
counts the spending of each agent the session adopts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..llm.effort import Effort
from ..modes import Mode, parse_mode
from . import plans
from .budget import Budget, limits_of

if TYPE_CHECKING:
    from pathlib import Path

    from ..agent.permissions import Rule
    from ..llm.signin.quota import Quota
    from ..llm.types import Effort
    from .port import AgentPort, AgentSlot

__all__ = ["Settings"]


class Settings:
    """``slot``: the session's agent; ``open``: opens one on a model (``switch_model`` before
    any); ``busy``: whether a turn runs; ``changed``: says what changed; ``say``: a notice (the budget's)."""

    def __init__(
        self,
        slot: AgentSlot,
        *,
        open: Callable[[str], Awaitable[object]],
        busy: Callable[[], bool],
        changed: Callable[[str], None],
        say: Callable[[str, str], None],
    ) -> None:
        self._slot = slot
        self._open = open
        self._busy = busy
        self._changed = changed
        self.budget = Budget(lambda text: say(text, "warning"))  # budget.py
        self._plan_version: tuple[tuple[str, float], ...] = ()

    @property
    def spec(self) -> str:
        """The model in use as ``provider/model`` ("" before the agent exists)."""
        agent = self._slot.current
        return agent.spec if agent is not None else ""

    @property
    def mode(self) -> str:
        agent = self._slot.current
        return agent.permission_mode if agent is not None else ""

    @property
    def effort(self) -> str:
        """The reasoning effort ("default": the provider's; "" before the agent exists)."""
        agent = self._slot.current
        return (agent.effort or "default") if agent is not None else ""

    def adopt(self, agent: AgentPort, config: Any, max_budget_usd: float | None) -> None:
        """``agent`` is the session's now: the budget counts its spending from now on."""
        self.budget.adopt(agent, limits_of(config, max_budget_usd), config)

    async def switch_model(self, spec: str) -> str:
        """Go on with the conversation on ``spec`` (before an agent exists: open one on it).
        Returns the model now in use. Thinking is replayed only to the model that produced
        it (``larik/llm/replay.py``)."""
        agent = self._slot.current
        if agent is None:
            await self._open(spec)
            return self.spec
        if self._busy():
            resolved = agent.set_model(spec)
        else:  # building a provider may import its SDK: keep the face's loop live meanwhile
            resolved = await asyncio.to_thread(agent.set_model, spec)
        self._changed("model")
        return str(getattr(resolved, "spec", "") or self.spec)

    def set_mode(self, mode: str) -> Mode:
        """Set the permission mode (a ``Mode``); returns the one it was."""
        agent = self._slot.need()
        new = parse_mode(mode)
        was = Mode(agent.permission_mode)
        agent.permission_mode = new
        self._changed("mode")
        return was

    def set_effort(self, level: str) -> str:
        """Set the reasoning effort (an ``Effort``'s word: "default" is the provider's);
        returns the one it was, as a word."""
        agent = self._slot.need()
        effort = Effort.parse(level)
        was = Effort(agent.effort).word
        agent.effort = effort
        self._changed("effort")
        return was

    # -- the permission rules ----------------------------------------------------------------
    def rules(self) -> list[tuple[str, Rule]]:
        """The rules in effect: ``("deny" | "allow" | "session", rule)`` (``/permissions``)."""
        return list(self._slot.need().permissions.rules())

    def forget_rule(self, n: int) -> Rule:
        """Take back session rule ``n`` (from 1); ValueError when there is none."""
        return self._slot.need().permissions.forget(n)

    def path_denied(self, tool: str, path: Path) -> bool:
        """Whether a deny rule covers ``path`` for ``tool`` (an ``@path``, a mention)."""
        agent = self._slot.current
        return agent is not None and agent.path_denied(tool, path)

    # -- a signed-in plan's usage (plans.py) --------------------------------------------------
    @property
    def plan_usage(self) -> dict[str, Quota]:
        """Provider -> usage windows (``Quota``) of the signed-in plans used."""
        return plans.plan_usage(self._slot.current)

    def reply_seen(self) -> None:
        """After a reply: ``CHANGED("plan")`` when it brought new plan figures."""
        version = plans.plan_version(self.plan_usage)
        if version != self._plan_version:
            self._plan_version = version
            self._changed("plan")
