"""Opening the session's agent in the TUI, and drawing it once it is there.

:func:`open_agent` is what the start-up, the no-model screen's "look again" and a first
``/model`` do: the session opens the agent; a missing key offers the local servers' models or
the no-model screen, a session that cannot be resumed starts a new one, anything else is one
line and "pick a model with /model" — never a traceback. :func:`draw_agent` shows what was
opened: a resumed conversation, or the welcome line. Each takes the session and the widgets it
draws on, not the screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from ..llm.errors import LarikError, MissingKeyError
from ..words import count

if TYPE_CHECKING:
    from ..session import Session
    from .ui import UI
    from .widgets.conversation import ConversationView
    from .widgets.status_bar import StatusBar

__all__ = ["draw_agent", "open_agent", "open_remembered"]


async def open_agent(
    session: Session,
    ui: UI,
    conv: ConversationView,
    status: StatusBar,
    model: str = "",
    resume: str | None = None,
) -> bool:
    """Open the agent on ``model`` / ``resume``; False when there is none (said why)."""
    status.show(None, note="connecting…")
    try:
        await session.open(model, resume)
        return True
    except MissingKeyError as e:
        from .screens.no_model import offer

        await offer(session, ui, status, str(e))
        return False
    except LarikError as e:
        if resume:
            conv.add_notice(f"could not resume {resume}: {e}; starting a new session", "error")
            return await open_agent(session, ui, conv, status, model, None)
        conv.add_notice(f"{e}", "error")
        conv.add_notice("pick a model with /model, or see /help")
    except Exception as e:  # never a traceback on screen
        conv.add_notice(f"could not start the agent: {type(e).__name__}: {e}", "error")
    status.show(None, note="no model: /model to pick one")
    return False


async def open_remembered(session: Session, conv: ConversationView, spec: str) -> bool:
    """A new session on the model picked last time; False (said why) when it cannot start."""
    try:
        await session.open(spec)
    except Exception as e:  # gone, or its key is: start as if nothing was remembered
        conv.add_notice(f"the model you picked last, {spec}, cannot start: {e}", "warning")
        return False
    return True


def draw_agent(
    session: Session, conv: ConversationView, cwd: Path, *, replaced: bool, resumed: bool = True
) -> None:
    """A resumed session's conversation (and, when ``resumed``, how long it is: a fork or a
    rewind says what it did instead), or the welcome line."""
    messages = len(session.store.messages)
    if messages:
        try:
            past = session.store.history()
            conv.show_history(past.messages, past.links, past.restored)
        except Exception as e:  # the session goes on even if its past cannot be drawn
            conv.add_notice(
                f"could not show the earlier conversation: {type(e).__name__}: {e}", "error"
            )
        if resumed:
            conv.add_notice(f"resumed session {session.session_id} ({count(messages, 'message')})")
    elif not replaced and not conv.items:
        conv.add_notice(
            f"larik {__version__} · {cwd.name or cwd} · {session.spec} · /help for commands"
        )
