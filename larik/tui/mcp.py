"""The TUI's side of MCP: ``/mcp``. The servers themselves are the session's (``Session.mcp``:
prepared once the config is known, started after the SDK warm-up so a slow or broken server
holds up neither the screen nor the first turn; a failure or a login address comes up as a
notice on ``Session.events()``), and so are ``@server:URI`` in a prompt and each server prompt
as a ``/mcp__SERVER__PROMPT`` command (``Session.run_command``).
Nothing here imports the ``mcp`` SDK: the first server to start imports it in a thread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..session import Session
    from .ui import UI

__all__ = ["blocked_lines", "open_screen"]


def open_screen(session: Session, ui: UI) -> None:
    blocked = blocked_lines(ui.config)
    if session.servers.mcp is None:
        ui.say(
            "\n".join(["MCP servers:", *blocked])
            if blocked
            else "no MCP servers configured: add one with `larik mcp add NAME -- COMMAND` or "
            "in [mcp.servers.NAME] (docs/mcp.md)"
        )
        return
    from .messages import OpenScreen
    from .screens.mcp import McpScreen

    ui.post(OpenScreen(McpScreen(session.servers.mcp, blocked)))


def blocked_lines(config: Any) -> list[str]:
    """A line for each of the project's servers that waits for trust (larik/trust.py)."""
    from ..trust import BLOCKED

    pt = getattr(config, "project_trust", None)
    rows = pt.blocked_servers() if pt is not None else []
    return [
        f"  {name}: {BLOCKED} ({where}: {what}; /trust yes trusts it)" for name, where, what in rows
    ]
