"""Plan mode in the TUI (see larik/agent/plan.py): Shift+Tab cycles the permission modes, and a
turn that ends with a plan asks whether to carry it out.

The cycle is ask → edits → plan → ask; ``yolo`` joins it only in a session that started in
yolo (a key press must not be a way into "never ask"). Accepting a plan switches to ``edits``
or ``ask`` and starts a turn telling the model to carry it out (``plan.accepted``); refusing
keeps plan mode and puts the cursor in the prompt for the user to say what to change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .screens.chat import ChatScreen

__all__ = ["CYCLE", "cycle_mode", "modes_for", "next_mode", "offer_plan"]

CYCLE = ("ask", "edits", "plan")


def modes_for(start: str) -> tuple[str, ...]:
    """The modes Shift+Tab goes through in a session that started in ``start``."""
    return (*CYCLE, "yolo") if start == "yolo" else CYCLE


def next_mode(current: str, modes: tuple[str, ...]) -> str:
    return modes[(modes.index(current) + 1) % len(modes)] if current in modes else modes[0]


def cycle_mode(chat: ChatScreen) -> None:
    agent = chat.need_agent()
    if agent is None:
        return
    agent.permission_mode = next_mode(agent.permission_mode, chat.modes)
    chat.refresh_status()


def offer_plan(chat: ChatScreen) -> None:
    """After a turn that ended with a plan: accept it or keep planning. Not when the user typed
    ahead (that is refining already) or left plan mode meanwhile."""
    agent = chat.agent
    if agent is None or chat.queued or agent.permission_mode != "plan":
        return
    from .screens.plan import PlanScreen

    chat.app.push_screen(PlanScreen(), callback=lambda answer: _answered(chat, answer))


def _answered(chat: ChatScreen, answer: str | None) -> None:
    from ..agent import plan

    agent = chat.agent
    if agent is None or answer not in ("edits", "ask"):
        chat.say("still in plan mode: say what to change in the plan (Shift+Tab: mode)")
        chat.prompt.focus()
        return
    agent.permission_mode = answer
    chat.refresh_status()
    chat.say(f"plan accepted: permission mode {answer}; carrying it out")
    chat.start_turn(plan.accepted(answer))
