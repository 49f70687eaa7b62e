"""What the TUI needs from the agent: the slice of ``larik.agent.Agent`` it uses.

The app is built with an *agent factory* so tests can hand it an agent on the scripted
provider, and so starting the app paints a frame before any vendor SDK is imported: the factory
(which resolves the model and builds the provider) runs in a worker after the first frame.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # annotations only: nothing of pydantic before the first frame
    from ..agent.events import AgentEvent, Approver
    from ..agent.usage import Accounting
    from ..llm.types import Block, Message

__all__ = ["AgentFactory", "AgentLike"]


class AgentLike(Protocol):
    model: str
    role: str | None
    provider_name: str
    effort: Any
    permission_mode: str
    messages: list[Message]
    usage: Accounting  # tokens and cost per model, per role, in total
    context_tokens: int
    context_window: int
    session_id: str
    transcript_path: Path

    def run_turn(self, prompt: str | list[Block]) -> AsyncIterator[AgentEvent]: ...

    def compact(self) -> AsyncIterator[AgentEvent]: ...

    def set_model(self, spec: str) -> Any: ...

    async def close(self, reason: str = "other") -> Any: ...

    # what a custom command uses (larik/custom_commands.py): the project root, the model in
    # use (to go back to after a command's own model), and its shell lines' and @paths' rules
    root: Path
    spec: str

    tool_runner: Any  # .run_tool(name, input): one call checked like the model's
    jobs: Any  # the session's background jobs (larik/agent/jobs.py JobTable): /jobs

    def path_denied(self, tool: str, path: Path) -> bool: ...


class AgentFactory(Protocol):
    """Build an agent. ``model`` "" means the configured default; ``resume`` as Agent.create."""

    async def __call__(
        self, *, approver: Approver, model: str = "", resume: str | None = None
    ) -> AgentLike: ...
