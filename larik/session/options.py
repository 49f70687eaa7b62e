"""What a face asks of a session: the model, the mode, the session to resume, what to leave out.

Light on purpose (a dataclass, nothing imported): the TUI builds one before its first frame.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["AgentFactory", "SessionOptions"]

# (approver=, model=, resume=) -> an agent: how a session builds its agent. The default is
# Agent.create with the session's options; the TUI's tests hand one on the scripted provider.
AgentFactory = Callable[..., Awaitable[Any]]


@dataclass
class SessionOptions:
    model: str = ""  # "" the configured one; a spec, a bare id or a role
    effort: str | None = None  # None: the config's
    permission_mode: str | None = None  # None: the config's
    resume: str | None = None  # None a new session; "latest"; or a session id
    max_turns: int | None = None  # None: the config's
    max_budget_usd: float | None = None  # --max-budget-usd: the session's budget (budget.py)
    transcript_dir: Path | None = None  # where a new session's transcript goes (bench)
    checkpoints: bool = True  # False: none taken (bench: a throwaway folder)
    skills: bool = True  # False: no skills (bench)
    hooks: bool = True  # False: no hooks (bench)
    mcp: bool = True  # False: the configured MCP servers are not started (bench)
    commands: bool = True  # False: custom commands are not looked for (bench)
    resolver: Callable[[str], Any] | None = None  # model spec -> Resolved (bench, tests)
    editor: Any = None  # an editor doing the tools' file I/O and commands (ACP: tools/_editor.py)
    session_id: str = ""  # a new session's id ("" makes one)
