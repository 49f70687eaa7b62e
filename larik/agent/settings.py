"""``AgentSettings``: what an :class:`~larik.agent.agent.Agent` is built from.

``Agent.create`` fills it in from the config (resolving the model, opening or reopening the
session); ``Agent.spawn`` derives a subagent's from its parent's. A settings object, not a long
keyword list, so a new setting is one field here with its one-line description.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..llm.types import Effort
from .jobs import JobTable
from .tools import ALL_TOOLS, ToolSource

if TYPE_CHECKING:
    from ..config import Config
    from ..hooks.runner import Hooks
    from ..llm.types import Effort, Request
    from ..routing import Resolved
    from .permissions import PermissionPolicy
    from .skills import SkillCatalog
    from .tools._editor import Editor

__all__ = ["AgentSettings", "BudgetCheck", "Resolver"]

Resolver = Callable[[str], "Resolved"]  # a spec or role name -> the model to use and its provider
# asked before each model request (``Agent.budget_check``): why it must not be sent, or None
BudgetCheck = Callable[["Request", "Resolved"], "str | None"]


@dataclass(frozen=True, slots=True)
class AgentSettings:
    root: Path
    """The project root (resolved): the tools work under it, the session is filed under it."""
    config: Config
    """The loaded config (catalog overrides, compaction threshold, prices)."""
    resolver: Resolver
    """Turns a spec or a role into a model and its provider; subagents resolve their role here."""
    policy: PermissionPolicy
    """The permission policy, shared with subagents (an "allow always" holds for the session)."""
    effort: Effort
    """The starting reasoning effort ("" for the model's default)."""
    max_turns: int
    """Model calls per user turn before the turn ends with ``max_turns``."""
    tools: tuple[str, ...] = ALL_TOOLS
    """The built-in tools offered to the model."""
    tool_source: ToolSource | None = None
    """More tools, asked before each request (the MCP servers'); subagents get none."""
    role_label: str | None = None
    """A subagent's role (its system prompt says it is one); None for the main agent."""
    context: str | None = None
    """The session context of the system prompt; None gathers it from the project."""
    processes: dict[int, str] = field(default_factory=dict)
    """Running commands (process group -> start token), shared with subagents so an interrupt
    kills theirs too."""
    jobs: JobTable = field(default_factory=JobTable)
    """Background jobs (``bash`` with ``background: true``), shared with subagents; the main
    agent ends them all when it closes."""
    session_id: str = ""
    """The session's id; "" makes a new one."""
    editor: Editor | None = None
    """The editor that reads and writes files and runs commands for the tools (ACP's fs/* and
    terminal/*: ``tools/_editor.py``), shared with subagents; None: the tools do their own."""
    transcript_path: Path | None = None
    """Where the session's transcript goes; None keeps none (a subagent)."""
    checkpoints: bool = True
    """Snapshot the project before each turn's first change, for undo (with a transcript only)."""
    skills: SkillCatalog | None = None
    """The skills the session can load (their names and descriptions are in the system prompt;
    the skill tool is offered only when there is one)."""
    hooks: Hooks | None = None
    """The configured hooks (None: none); subagents share them for their tool calls."""


def check_effort(value: str) -> Effort:
    """``value`` as an effort (``""``: the provider's default), or a one-line error."""
    return Effort.parse(value)
