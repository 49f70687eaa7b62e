"""``/export`` and ``/copy``: thin handlers over :mod:`larik.session.export` (what is written
and how) and :mod:`.clipboard` (how a copy reaches the clipboard)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..session import Session
    from .ui import UI

__all__ = ["copy", "export"]

NO_CLIPBOARD = (
    "/copy: this terminal does not take copies (OSC 52) and no clipboard program (pbcopy, "
    "wl-copy, xclip, xsel) is there: select the reply with the mouse (Shift+drag in most "
    "terminals), or write the conversation to a file with /export"
)


async def export(session: Session, ui: UI, arg: str) -> None:
    if not ui.need_agent():
        return
    from ..session.export import ExportError, parse_args
    from ..session.export import export as write

    try:
        fmt, path = parse_args(arg)
        where = await write(session, fmt, path, ui.cwd)
    except ExportError as e:
        ui.say(str(e), "error")
        return
    ui.say(f"exported the conversation ({fmt}, secrets masked) to {where}")


async def copy(session: Session, ui: UI, arg: str) -> None:
    if not ui.need_agent():
        return
    from ..llm.secrets import mask
    from ..session.export import last_reply
    from .clipboard import copy_with_program, osc52_supported
    from .messages import Copy

    text = mask(last_reply(session.store.messages))
    if not text:
        ui.say("/copy: no reply to copy yet", "warning")
        return
    size = f"{len(text):,} characters"
    if osc52_supported():
        ui.post(Copy(text))
        ui.say(f"copied the last reply ({size}) to the clipboard, through the terminal (OSC 52)")
    elif program := await asyncio.to_thread(copy_with_program, text):
        ui.say(f"copied the last reply ({size}) to the clipboard with {program}")
    else:
        ui.say(NO_CLIPBOARD, "warning")
