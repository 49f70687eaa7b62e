"""A ``!command`` typed in the prompt: run by the session as the bash tool runs the model's
commands (``Session.run_shell``: its own process group, killed on Esc or at
:data:`SHELL_TIMEOUT`, the output's tail kept, the exit code, recorded in the transcript for
display only — the model does not see it — so ``/resume`` shows it). Here: its card, whose
output shows as it comes, as the model's commands' does (the same ``tool_output`` events,
``agent/live.py``), kept in view.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..session import Session
    from .widgets.conversation import ConversationView

__all__ = ["SHELL_TIMEOUT", "run_shell_command"]

SHELL_TIMEOUT = 300.0  # seconds a !command may run


async def run_shell_command(session: Session, conv: ConversationView, command: str) -> None:
    from ..agent.live import LiveOutput

    card = conv.add_tool("!", {"command": command}, command, f"!{time.monotonic_ns()}")
    conv.anchor()
    live = LiveOutput(conv.handle, card.tool_id, "!")
    try:
        result, duration = await session.run_shell(command, live.add, SHELL_TIMEOUT)
    except asyncio.CancelledError:
        live.close(flush=False)
        card.mark_interrupted()
        raise
    except OSError as e:  # no shell, or the project directory is gone: say so on the card
        live.close(flush=False)
        card.finish(f"cannot run it: {e.strerror or e}", is_error=True, duration=0.0)
    else:
        live.close()  # the last of the output, before the card shows the result
        code = result.data.get("exit_code", -1)
        card.finish(
            result.content,
            is_error=result.is_error or code != 0,
            duration=duration,
            data={"exit_code": code},
        )
    if not card.expanded:
        card.action_toggle()
    conv.anchor()  # its end in view, even if the conversation was scrolled back
