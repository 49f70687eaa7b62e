"""What handlers, helpers and widgets ask of the chat screen: small Textual messages.

A slash-command handler, a helper of the TUI (``model_choice``, ``undo``, ``plan``, …) or a
widget does not hold the screen: it posts one of these (``ui.post(…)``, or a widget's own
``post_message``) and :class:`~larik.tui.screens.chat.ChatScreen` handles it (``on_say``,
``on_open_screen``, …), as Toad's widgets do. :class:`Quit` is the app's: the screen lets it
bubble up to :class:`~larik.tui.app.LarikApp`.

A message that has an answer carries a future the handler side resolves: :class:`Approve`
(the permission modal's answer, for the session's approval hook) and :class:`OpenAgent`
(whether an agent was opened). Await one only off the screen's own message loop — in a worker
or a turn — since the screen must be free to handle the message that resolves it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from textual.message_pump import MessagePump
    from textual.screen import Screen

    from ..agent.events import Approval, PermissionRequest
    from ..session import Turn

__all__ = [
    "Approve",
    "Copy",
    "Find",
    "OpenAgent",
    "OpenScreen",
    "Quit",
    "Reopened",
    "Say",
    "StartTurn",
    "ToPrompt",
]


def _future() -> asyncio.Future[Any]:
    return asyncio.get_running_loop().create_future()


@dataclass
class Say(Message):
    """A notice at the end of the conversation: the outcome of something the user did."""

    text: str
    level: str = "info"
    as_markdown: bool = False


@dataclass
class OpenScreen(Message):
    """Push ``screen`` (a modal); ``callback`` gets its answer when it is dismissed."""

    screen: Screen[Any]
    callback: Callable[[Any], Any] | None = None


@dataclass
class StartTurn(Message):
    """Run ``turn`` (its prompt shown first, with ``files``, when it has one to show)."""

    turn: Turn
    files: list[str] = field(default_factory=list)


@dataclass
class OpenAgent(Message):
    """Open the session's agent on ``model`` (or resume ``resume``), in a worker of the screen;
    ``opened`` says whether it is there (False: why not was said)."""

    model: str = ""
    resume: str | None = None
    opened: asyncio.Future[bool] = field(default_factory=_future)


@dataclass
class ToPrompt(Message):
    """The focus to the prompt; ``text`` inserted at the cursor (``replace``: the prompt's
    text replaced, the cursor at its end); ``enter``: then sent."""

    text: str = ""
    enter: bool = False
    replace: bool = False


@dataclass
class Find(Message):
    """The search bar over the conversation, ``query`` searched ("": none yet)."""

    query: str = ""


@dataclass
class Reopened(Message):
    """Another conversation is the session's (``/clear``, ``/resume``, a fork): redraw it;
    ``resumed``: say how long it is (a fork says its own line)."""

    resumed: bool = True


@dataclass
class Copy(Message):
    """``text`` to the terminal's clipboard (OSC 52: ask ``clipboard.osc52_supported`` first)."""

    text: str


@dataclass
class Approve(Message):
    """The session's approval hook asks about ``request``: the permission modal answers in
    ``answer``. Cancelling the asker (the turn ends) cancels ``answer``, which takes the modal
    down."""

    request: PermissionRequest
    answer: asyncio.Future[Approval] = field(default_factory=_future)

    @classmethod
    async def asked_of(cls, screen: MessagePump, request: PermissionRequest) -> Approval:
        """Ask ``screen`` about ``request`` and wait for the answer (an approval hook)."""
        asked = cls(request)
        screen.post_message(asked)
        return await asked.answer


@dataclass
class Quit(Message):
    """Leave: close the session (its hooks get ``reason``), then exit; ``now``: exit at once
    (nothing was started yet). The app's (it bubbles past the screen)."""

    reason: str = "prompt_input_exit"
    now: bool = False
