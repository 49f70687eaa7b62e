"""The ``Notification`` hook event (Claude Code's name and fields), for a face that notifies.

The TUI notifies when a turn ends, a permission is asked or a background job finishes and
you are not looking (``larik/tui/notify.py``); each time it also runs the session's
``[[hooks.Notification]]`` hooks, so you can send it on (a desktop notifier, a phone). Their
input is Claude Code's: ``session_id``, ``transcript_path``, ``cwd``, ``permission_mode``,
``hook_event_name: "Notification"``, ``message``, ``title`` and ``notification_type``
(``permission_prompt``, ``idle_prompt``, or Larik's ``job_finished``), which the matcher
matches. A project's hooks run only in a trusted project, as every hook (larik/trust.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..hooks.runner import Hooks
    from .core import Session

__all__ = ["KINDS", "notification_hooks"]

#: notification_type values: Claude Code's two that Larik has, then its own.
KINDS = ("permission_prompt", "idle_prompt", "job_finished")


def _hooks(session: Session) -> Hooks | None:
    agent = session.agent
    return agent.tool_runner.hooks if agent is not None else None


def has_hooks(session: Session) -> bool:
    hooks = _hooks(session)
    return hooks is not None and hooks.has("Notification")


async def notification_hooks(session: Session, message: str, title: str, kind: str) -> list[str]:
    """Run the session's Notification hooks; what they said for the user (failures,
    ``systemMessage``), one line each."""
    hooks = _hooks(session)
    if hooks is None or not hooks.has("Notification"):
        return []
    out = await hooks.notification(message, title, kind)
    return [n.text for n in out.notices]
