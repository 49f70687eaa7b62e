"""A ``!command`` typed in the prompt: run as the bash tool runs the model's commands.

Its own process group (killed on Esc or at :data:`SHELL_TIMEOUT`), the output's tail kept
(``bash.MAX_OUTPUT``), the exit code. The output shows on its card as it comes, as the model's
commands' does (the same ``tool_output`` events, ``agent/live.py``); the card is kept in view;
the run is recorded in the session's transcript (display only: the model does not see it), so
``/resume`` shows it.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .screens.chat import ChatScreen

__all__ = ["SHELL_TIMEOUT", "run_shell_command"]

SHELL_TIMEOUT = 300.0  # seconds a !command may run


async def run_shell_command(chat: ChatScreen, command: str) -> None:
    from ..agent.live import LiveOutput
    from ..agent.shown import shell_record
    from ..agent.tools import ToolContext, bash

    started = time.monotonic()
    card = chat.conv.add_tool("!", {"command": command}, command, f"!{time.monotonic_ns()}")
    chat.conv.anchor()
    live = LiveOutput(chat.conv.handle, card.tool_id, "!")
    try:
        args = bash.Args(command=command, timeout=SHELL_TIMEOUT, sandbox=True)
        result = await bash.run(args, ToolContext(root=chat.cwd, on_output=live.add))
    except asyncio.CancelledError:
        live.close(flush=False)
        card.mark_interrupted()
        raise
    except OSError as e:  # no shell, or the project directory is gone: say so on the card
        live.close(flush=False)
        card.finish(f"cannot run it: {e.strerror or e}", is_error=True, duration=0.0)
        chat.show_card(card)
        return
    live.close()  # the last of the output, before the card shows the result
    code = result.data.get("exit_code", -1)
    duration = time.monotonic() - started
    card.finish(
        result.content,
        is_error=result.is_error or code != 0,
        duration=duration,
        data={"exit_code": code},
    )
    chat.show_card(card)
    log = getattr(chat.agent, "log", None)
    if log is not None:
        try:
            log.record(shell_record(command, result.content, code, duration))
        except Exception as e:  # the card is shown; the transcript could not say so
            chat.say(f"the !command was not saved in the session: {e}", "warning")
