"""What a slash-command handler may do to the TUI: the :class:`UI` protocol.

A handler is ``async (session, ui, arg)``: the :class:`~larik.session.Session` is the
conversation (model, mode, turns, undo, …), ``ui`` the few things of the screen it may touch —
say something, redraw the status line, push a modal (and wait for its answer), run a worker,
show and run a turn, start the agent, put text in the prompt, pick a model, quit. No handler gets the screen:
:class:`ChatUI` is the chat screen's side of the protocol, and nothing else of the screen is
reachable from it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.screen import Screen

    from ..session import Turn
    from .model_choice import ModelChoice
    from .prefs import Prefs
    from .screens.chat import ChatScreen

__all__ = ["ChatUI", "UI"]


class UI(Protocol):
    @property
    def cwd(self) -> Path: ...

    @property
    def config(self) -> Any: ...

    @property
    def models(self) -> ModelChoice: ...  # the model picker's entries, local servers, switching

    @property
    def modes(self) -> tuple[str, ...]: ...  # what Shift+Tab goes through

    @property
    def prefs(self) -> Prefs: ...  # the theme, the keys, vim mode ([tui])

    @property
    def typed_ahead(self) -> bool: ...  # prompts are queued for after the turn

    def say(self, text: str, level: str = "info", *, as_markdown: bool = False) -> None: ...

    def refresh_status(self) -> None: ...

    def push(self, screen: Screen[Any], callback: Callable[[Any], Any] | None = None) -> None: ...

    async def ask(self, screen: Screen[Any]) -> Any: ...  # push it, wait for its answer (a worker)

    def run(self, work: Awaitable[Any], group: str) -> None: ...  # a worker of the screen

    def start_turn(self, turn: Turn, files: list[str] | None = None) -> None: ...

    async def start_agent(self, model: str = "", resume: str | None = None) -> None: ...

    def need_agent(self) -> bool: ...  # else says "no model yet"

    def idle(self, what: str) -> bool: ...  # no turn runs; else says ``what`` must wait

    def set_prompt(self, text: str) -> None: ...

    def copy(
        self, text: str
    ) -> bool: ...  # to the terminal's clipboard (OSC 52); False: it takes none

    def focus_prompt(self) -> None: ...

    async def find(self, query: str) -> None: ...  # the search bar, ``query`` searched ("": none)

    # another conversation is the session's: redraw (``resumed``: say so; a fork says its own)
    async def reopened(self, *, resumed: bool = True) -> None: ...

    async def quit(self) -> None: ...  # close the session (its hooks run), then leave

    def quit_now(self) -> None: ...  # leave at once (nothing was started yet)


class ChatUI:
    """The chat screen's side of :class:`UI`."""

    def __init__(self, chat: ChatScreen) -> None:
        self._chat = chat

    @property
    def cwd(self) -> Path:
        return self._chat.cwd

    @property
    def config(self) -> Any:
        return self._chat.config

    @property
    def models(self) -> ModelChoice:
        return self._chat.models

    @property
    def modes(self) -> tuple[str, ...]:
        return self._chat.modes

    @property
    def typed_ahead(self) -> bool:
        return bool(self._chat.queue.prompts)

    @property
    def prefs(self) -> Prefs:
        return self._chat.app.prefs  # type: ignore[attr-defined,no-any-return]  # LarikApp's

    def say(self, text: str, level: str = "info", *, as_markdown: bool = False) -> None:
        self._chat.say(text, level, as_markdown=as_markdown)

    def refresh_status(self) -> None:
        self._chat.refresh_status()

    def push(self, screen: Screen[Any], callback: Callable[[Any], Any] | None = None) -> None:
        self._chat.app.push_screen(screen, callback=callback)

    async def ask(self, screen: Screen[Any]) -> Any:
        return await self._chat.app.push_screen_wait(screen)

    def run(self, work: Awaitable[Any], group: str) -> None:
        self._chat.run_worker(work, group=group, exclusive=True, exit_on_error=False)

    def start_turn(self, turn: Turn, files: list[str] | None = None) -> None:
        if turn.shown:
            self._chat.conv.add_user(turn.shown, files or [])
        self._chat.start_turn(turn)

    async def start_agent(self, model: str = "", resume: str | None = None) -> None:
        await self._chat.start_agent(model, resume)

    def need_agent(self) -> bool:
        if not self._chat.session.ready:
            self.say("no model yet: pick one with /model", "warning")
            return False
        return True

    def idle(self, what: str) -> bool:
        if self._chat.busy:
            self.say(f"{what}: wait for the turn to end, or press Esc", "warning")
            return False
        return True

    def set_prompt(self, text: str) -> None:
        prompt = self._chat.prompt
        prompt.load_text(text)
        prompt.move_cursor(prompt.document.end)

    def focus_prompt(self) -> None:
        self._chat.prompt.focus()

    async def find(self, query: str) -> None:
        await self._chat.action_find(query or None)

    def copy(self, text: str) -> bool:
        from .clipboard import osc52_supported

        if not osc52_supported():
            return False
        self._chat.app.copy_to_clipboard(text)
        return True

    async def reopened(self, *, resumed: bool = True) -> None:
        await self._chat.conv.clear()
        await self._chat.use_agent(replaced=True, resumed=resumed)

    async def quit(self) -> None:
        await self._chat.quit()

    def quit_now(self) -> None:
        self._chat.app.exit(0)
