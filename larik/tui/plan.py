"""Plan mode in the TUI (see larik/agent/plan.py): Shift+Tab cycles the permission modes, and a
turn that ends with a plan asks whether to carry it out.

The cycle is ask → edits → plan → ask; ``yolo`` joins it only in a session that started in
yolo (a key press must not be a way into "never ask"). Accepting a plan switches to ``edits``
or ``ask`` and starts a turn telling the model to carry it out (``Session.accept_plan``);
refusing keeps plan mode and puts the cursor in the prompt for the user to say what to change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..modes import AFTER_PLAN, Mode
from ..refusal import Phrasing
from .messages import OpenScreen, StartTurn, ToPrompt

if TYPE_CHECKING:
    from ..session import Session
    from .ui import UI

__all__ = ["CYCLE", "REFUSALS", "cycle_mode", "modes_for", "next_mode", "offer_plan"]

CYCLE: tuple[str, ...] = tuple(m for m in Mode if m is not Mode.YOLO)


def modes_for(start: str) -> tuple[str, ...]:
    """The modes Shift+Tab goes through in a session that started in ``start``."""
    return (*CYCLE, Mode.YOLO) if start == Mode.YOLO else CYCLE


def _switch(mode: Mode) -> str:
    return f"switch with /permissions {mode}" + (" or Shift+Tab" if mode in CYCLE else "")


#: How the TUI says a refused call's remedy (larik/refusal.py): the command, and the key
REFUSALS = Phrasing(_switch)


def next_mode(current: str, modes: tuple[str, ...]) -> str:
    return modes[(modes.index(current) + 1) % len(modes)] if current in modes else modes[0]


def cycle_mode(session: Session, ui: UI, modes: tuple[str, ...]) -> None:
    if ui.need_agent():
        session.settings.set_mode(next_mode(session.permission_mode, modes))


def offer_plan(session: Session, ui: UI, typed_ahead: bool) -> None:
    """After a turn that ended with a plan: accept it or keep planning. Not when the user typed
    ahead (that is refining already) or left plan mode meanwhile."""
    if not session.ready or typed_ahead or session.permission_mode != Mode.PLAN:
        return
    from .screens.plan import PlanScreen

    ui.post(OpenScreen(PlanScreen(), lambda answer: _answered(session, ui, answer)))


def _answered(session: Session, ui: UI, answer: str | None) -> None:
    if not session.ready or answer not in AFTER_PLAN:
        ui.say("still in plan mode: say what to change in the plan (Shift+Tab: mode)")
        ui.post(ToPrompt())
        return
    turn = session.accept_plan(answer)
    ui.say(f"plan accepted: permission mode {answer}; carrying it out")
    ui.post(StartTurn(turn))
