"""The seam between a session and its agent: what the session needs of one, and what a face
may read of one.

:class:`AgentPort` is everything a :class:`~larik.session.Session` asks of the agent it drives
— ``larik.agent.Agent`` implements it, and so does the TUI tests' small fake
(``tests/tui/fake_agent.py``); nothing else of the agent is reached through the session.

:class:`SessionStatus` is the read-only value a face draws from (``Session.status``): the
model, the effort, the mode, the context, the tokens and cost, the background jobs, the
language servers' diagnostics, a signed-in plan's windows. The TUI's status line and
``/cost``, print mode's result object and ACP's usage updates read it, never the agent
(tests/test_layers.py). A value, not a view: taken when asked for, it does not change after.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..agent.events import AgentEvent
    from ..agent.jobs import JobTable
    from ..agent.permissions import PermissionPolicy
    from ..agent.rewind import Checkpointer
    from ..agent.runner import ToolRunner
    from ..agent.session_log import SessionLog
    from ..agent.sessions import Rebuilt
    from ..agent.settings import BudgetCheck
    from ..agent.usage import Accounting
    from ..llm.signin.quota import Quota
    from ..llm.types import Block, Effort, Message
    from ..lsp.session import LspSession

__all__ = ["AgentPort", "AgentSlot", "SessionStatus", "status_of"]


class AgentPort(Protocol):
    """What a session needs of its agent (``larik.agent.Agent``; a test's fake)."""

    # -- settings the session changes ---------------------------------------------------------
    @property
    def effort(self) -> Effort: ...
    @effort.setter
    def effort(self, value: Effort) -> None: ...
    @property
    def permission_mode(self) -> str: ...
    @permission_mode.setter
    def permission_mode(self, mode: str) -> None: ...

    budget_check: BudgetCheck | None  # the session's budget, asked before each request
    warmer: float | None  # a later try's least temperature (session/attempts.py)

    # -- what it is and where it keeps the conversation ---------------------------------------
    @property
    def root(self) -> Path: ...
    @property
    def session_id(self) -> str: ...
    @property
    def transcript_path(self) -> Path: ...
    @property
    def messages(self) -> list[Message]: ...
    @property
    def restored(self) -> Rebuilt | None: ...  # a resumed session's transcript, as rebuilt
    @property
    def log(self) -> SessionLog: ...  # display records (a !command)
    @property
    def checkpoints(self) -> Checkpointer | None: ...  # None: it keeps none

    # -- the model and what it has spent ------------------------------------------------------
    @property
    def spec(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def provider_name(self) -> str: ...
    @property
    def role(self) -> str | None: ...
    @property
    def usage(self) -> Accounting: ...
    @property
    def context_tokens(self) -> int: ...
    @property
    def context_window(self) -> int: ...
    @property
    def effort_applies(self) -> bool | None: ...  # False: the model takes no effort
    @property
    def accepts_images(self) -> bool | None: ...  # None: not known yet

    # -- what it runs with --------------------------------------------------------------------
    @property
    def permissions(self) -> PermissionPolicy: ...
    @property
    def jobs(self) -> JobTable | None: ...
    @property
    def lsp(self) -> LspSession | None: ...
    @property
    def tool_runner(self) -> ToolRunner: ...

    def path_denied(self, tool: str, path: Path) -> bool: ...
    def set_model(self, spec: str) -> Any: ...  # the Resolved it is on now
    def run_turn(self, prompt: str | list[Block], typed: str = "") -> AsyncIterator[AgentEvent]: ...
    def compact(self) -> AsyncIterator[AgentEvent]: ...
    async def close(self, reason: str = "other") -> list[AgentEvent] | None: ...


@dataclass(frozen=True, slots=True)
class SessionStatus:
    """What a face shows of a session (``Session.status``); before a model: ``ready`` False
    and the rest empty. ``effort`` is "default" for the provider's own; ``usage`` is a copy of
    the agent's accounting (per model, per role, in total)."""

    ready: bool = False
    session_id: str = ""
    transcript_path: str = ""
    spec: str = ""  # provider/model
    model: str = ""
    provider: str = ""
    role: str | None = None
    effort: str = "default"
    effort_applies: bool | None = None
    mode: str = ""
    busy: bool = False
    messages: int = 0
    context_tokens: int = 0
    context_window: int = 0
    usage: Accounting | None = None
    jobs_running: int = 0
    diagnostics: int = 0  # what the language servers said of this session's edits
    plan: str = ""  # the model in use's plan windows (``plus 5h 37% · wk 12%``)
    plan_usage: Mapping[str, Quota] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def tokens(self) -> int:
        return self.usage.total.total if self.usage is not None else 0

    @property
    def cost(self) -> float | None:
        """USD so far; None when no model that answered has a known price."""
        return self.usage.total_cost if self.usage is not None else None


def status_of(
    agent: AgentPort | None, *, busy: bool = False, plans: Mapping[str, Quota] | None = None
) -> SessionStatus:
    """``agent``'s status now (``plans``: the plan windows of the providers it used)."""
    if agent is None:
        return SessionStatus(busy=busy)
    from .plans import describe_current

    plans = MappingProxyType(dict(plans or {}))
    usage = agent.usage
    jobs, lsp = agent.jobs, agent.lsp
    return SessionStatus(
        ready=True,
        session_id=agent.session_id,
        transcript_path=str(agent.transcript_path),
        spec=agent.spec,
        model=agent.model,
        provider=agent.provider_name,
        role=agent.role,
        effort=agent.effort or "default",
        effort_applies=agent.effort_applies,
        mode=agent.permission_mode,
        busy=busy,
        messages=len(agent.messages),
        context_tokens=agent.context_tokens,
        context_window=agent.context_window,
        usage=dataclasses.replace(
            usage,
            by_model=dict(usage.by_model),
            cost_by_model=dict(usage.cost_by_model),
            by_role=dict(usage.by_role),
            providers=dict(usage.providers),
        ),
        jobs_running=len(jobs.running()) if jobs is not None else 0,
        diagnostics=lsp.count if lsp is not None else 0,
        plan=describe_current(plans, agent.provider_name),
        plan_usage=plans,
    )


class AgentSlot:
    """The session's agent, which its parts share (None before one is opened; another one in
    its place after ``/clear``, ``/resume``, a fork)."""

    def __init__(self) -> None:
        self.current: AgentPort | None = None

    def need(self) -> AgentPort:
        """The agent, or the one line a face shows when there is none yet."""
        if self.current is None:
            from ..llm.errors import LarikError

            raise LarikError("no model yet: pick one with /model")
        return self.current
