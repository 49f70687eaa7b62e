"""What a slash-command handler may do to the TUI: the :class:`UI` protocol.

A handler is ``async (session, ui, arg)``: the :class:`~larik.session.Session` is the
conversation (model, mode, turns, undo, …), ``ui`` what the handler needs of the screen — where
it runs and the config, the model choice and the user's settings to read, a guard or two, a
notice to say, a worker to run — and ``post``: everything else it asks for is a message
(:mod:`larik.tui.messages`: open a modal, start a turn, open the agent, put text in the prompt,
quit, …) that the chat screen handles. No handler gets the screen, and nothing here imports it.
"""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .messages import OpenAgent, OpenScreen

if TYPE_CHECKING:
    from textual.message import Message
    from textual.screen import Screen

    from .model_choice import ModelChoice
    from .prefs import Prefs

__all__ = ["UI", "ask", "open_agent"]


class UI(Protocol):
    @property
    def cwd(self) -> Path: ...

    @property
    def config(self) -> Any: ...

    @property
    def models(self) -> ModelChoice: ...  # the model picker's entries, local servers, switching

    @property
    def prefs(self) -> Prefs: ...  # the theme, the keys, vim mode ([tui])

    def say(self, text: str, level: str = "info", *, as_markdown: bool = False) -> None: ...

    def need_agent(self) -> bool: ...  # else says "no model yet"

    def idle(self, what: str) -> bool: ...  # no turn runs; else says ``what`` must wait

    def run(self, work: Awaitable[Any], group: str) -> None: ...  # a worker of the screen

    def post(self, message: Message) -> None: ...  # to the screen (larik/tui/messages.py)


async def ask(ui: UI, screen: Screen[Any]) -> Any:
    """Push ``screen`` and wait for its answer (None: dismissed without one). In a worker only
    (``ui.run``): the screen hands the answer over on its own message loop."""
    import asyncio

    answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def answered(result: Any) -> None:
        if not answer.done():
            answer.set_result(result)

    ui.post(OpenScreen(screen, answered))
    return await answer


async def open_agent(ui: UI, model: str = "", resume: str | None = None) -> bool:
    """Open the session's agent (the screen does, in its worker); whether it is there. In a
    worker only, as :func:`ask`."""
    asked = OpenAgent(model, resume)
    ui.post(asked)
    return await asked.opened
