"""The TUI's side of custom slash commands (``larik/custom_commands.py``): found after the first
frame, listed by ``/help`` and completion as rows of ``slash.dynamic``, run as a turn.

:func:`discover` runs in the start-up worker, once the config is known, in a thread (it reads
the command files); a name typed before it finished, or not found, makes it look again, so a
file added during the session is found when first used. Discovery problems (a file too large,
malformed front matter, a name taken) are one warning line each, said once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..custom_commands import CommandCatalog, CustomCommand
    from .screens.chat import ChatScreen

Handler = Callable[["ChatScreen", str], Awaitable[None]]

__all__ = ["command_rows", "discover", "find"]


async def discover(chat: ChatScreen, reserved: frozenset[str]) -> CommandCatalog:
    """Look for the custom commands (in a thread); new problems are said once each.
    ``reserved``: the built-in names (``slash.builtin_names()``)."""
    from ..custom_commands import discover_commands

    catalog = await asyncio.to_thread(discover_commands, chat.cwd, reserved)
    said: set[str] = getattr(chat, "_custom_said", set())
    for problem in catalog.problems:
        if problem not in said:
            said.add(problem)
            chat.say(problem, "warning")
    chat._custom_said = said  # type: ignore[attr-defined]
    chat.custom = catalog
    return catalog


def command_rows(chat: ChatScreen) -> list[tuple[str, str, str, Handler]]:
    """``(name, usage, summary, handler)`` for each custom command found so far."""
    catalog: CommandCatalog | None = getattr(chat, "custom", None)
    if catalog is None:
        return []
    return [(c.name, c.usage(), c.summary(), _handler(c)) for c in catalog.commands]


async def find(chat: ChatScreen, name: str, reserved: frozenset[str]) -> Handler | None:
    """A command typed that no row has: look again (a file added since), then by its short
    name; an ambiguous short name is said."""
    catalog = await discover(chat, reserved)
    cmd = catalog.find(name)
    if cmd is not None:
        return _handler(cmd)
    clash = catalog.ambiguous(name)
    if clash:
        chat.say(f"/{name} is ambiguous: " + ", ".join(f"/{c.name}" for c in clash), "warning")
    return None


def _handler(cmd: CustomCommand) -> Handler:
    async def handler(chat: ChatScreen, arg: str) -> None:
        await run(chat, cmd, arg)

    return handler


async def run(chat: ChatScreen, cmd: CustomCommand, arg: str) -> None:
    """The command's turn: what was typed is shown as the user's message; the expansion (shell
    lines may ask for permission) and the turn run in the turn worker, so Esc stops both."""
    from ..custom_commands import command_turn

    agent: Any = chat.need_agent()
    if agent is None or not chat.idle(f"/{cmd.name}"):
        return
    chat.conv.add_user(f"/{cmd.name} {arg}".rstrip(), [])
    chat.start_turn(None, events=command_turn(agent, cmd, arg, chat.config))
