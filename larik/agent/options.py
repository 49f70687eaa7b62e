"""``AgentOptions``: what a front end asks of an agent, as one value.

A face fills in a :class:`~larik.session.options.SessionOptions` (which *is* an
``AgentOptions`` with the session's own fields added); the session hands it to
:meth:`Agent.create <larik.agent.agent.Agent.create>` whole, and :mod:`.create` works the
agent's :class:`~.settings.AgentSettings` out of it and the config. A new option is one field
here, with its one-line description: no keyword list copies it on the way
(tests/agent/test_agent_options.py walks the fields).

Light on purpose (nothing imported at run time): the TUI builds its options before the first
frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .settings import Resolver
    from .tools._editor import Editor

__all__ = ["AgentOptions"]


@dataclass
class AgentOptions:
    model: str = ""
    """"" the configured model; a spec, a bare id or a role."""
    effort: str | None = None
    """The starting reasoning effort; None: the config's."""
    permission_mode: str | None = None
    """The starting permission mode; None: the config's."""
    resume: str | None = None
    """None a new session; "latest"; or a session id to reopen."""
    max_turns: int | None = None
    """Model calls per user turn; None: the config's."""
    transcript_dir: Path | None = None
    """Where a new session's transcript goes (bench keeps its runs apart); None: the project's."""
    checkpoints: bool = True
    """False: no checkpoints taken (bench: a throwaway folder)."""
    skills: bool = True
    """False: no skills (bench)."""
    hooks: bool = True
    """False: no hooks (bench)."""
    resolver: Resolver | None = None
    """A model spec or role -> the model to use (bench, tests); None: the config's routing."""
    editor: Editor | None = None
    """The editor doing the tools' file I/O and commands (ACP: ``tools/_editor.py``)."""
    session_id: str = ""
    """A new session's id ("" makes one: ACP keeps the id it gave a client)."""
