"""``/undo``, ``/rewind`` and ``/fork``: the TUI side of docs/undo.md.

Each handler checks there is an agent and no turn running, then runs its flow in a worker, so
it can wait for the modals it opens (``ask``): the turn list, the three choices, and — when
a file was changed since the turn — :class:`~larik.tui.screens.rewind.ConflictScreen`, which
asks before anything of the user's is overwritten. The work is the session's
(``Session.plan_undo``, ``plan_rewind``, ``restore``, ``fork``: git in a thread, the screen
stays live). A conversation rewind or a fork opens the new session in place of the current one
(which stays saved as it was), and a rewound turn's prompt is put back in the input to edit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..llm.errors import LarikError
from .messages import Reopened, ToPrompt
from .ui import ask

if TYPE_CHECKING:
    from ..session import Session
    from .ui import UI

__all__ = ["fork", "rewind", "undo"]


def _ready(session: Session, ui: UI, what: str) -> bool:
    if not ui.need_agent() or not ui.idle(what):
        return False
    if session.store.checkpoints is None:
        ui.say(f"{what}: this session keeps no checkpoints", "warning")
        return False
    return True


async def undo(session: Session, ui: UI, arg: str) -> None:
    if _ready(session, ui, "/undo"):
        ui.run(_undo(session, ui), "undo")


async def rewind(session: Session, ui: UI, arg: str) -> None:
    if not _ready(session, ui, "/rewind"):
        return
    n = None
    if arg:
        if not arg.isdigit():
            ui.say(f"/rewind: {arg!r} is not a turn number (see /rewind)", "error")
            return
        n = int(arg)
    ui.run(_rewind(session, ui, n), "undo")


async def fork(session: Session, ui: UI, arg: str) -> None:
    if not ui.need_agent() or not ui.idle("/fork"):
        return
    if not session.store.can_fork():
        ui.say("/fork: nothing to fork yet (no message in this session)", "warning")
        return
    ui.run(_fork(session, ui, None), "undo")


# -- the flows --------------------------------------------------------------------------------
async def _undo(session: Session, ui: UI) -> None:
    try:
        plan = await session.store.plan_undo()
        if plan is None:
            ui.say("/undo: nothing to undo (no turn of this session changed files)")
            return
        await _restore(session, ui, plan, f"turn {plan.turns[0].n}")
    except LarikError as e:
        ui.say(f"/undo: {e}", "error")


async def _rewind(session: Session, ui: UI, n: int | None) -> None:
    from .screens.rewind import RewindChoiceScreen, TurnPickerScreen

    cp = session.store.checkpoints
    try:
        if cp is None or not cp.turns:
            ui.say("/rewind: no turns in this session yet")
            return
        if n is None:
            n = await ask(ui, TurnPickerScreen(cp.turns))
            if n is None:
                return
        plan = await session.store.plan_rewind(n)
        turn = cp.turns[n - 1]
        what = await ask(ui, RewindChoiceScreen(turn, plan.files))
        if what is None:
            return
        if what in ("code", "both"):
            if not plan.turns:
                ui.say(f"no file changes since turn {n} to take back")
            elif not await _restore(session, ui, plan, f"turn {n}"):
                return  # cancelled: the conversation stays too
        if what in ("conversation", "both"):
            await _fork(session, ui, turn)
    except LarikError as e:
        ui.say(f"/rewind: {e}", "error")


async def _restore(session: Session, ui: UI, plan: Any, what: str) -> bool:
    """Carry out ``plan``, asking first when files changed since; False when cancelled."""
    from .screens.rewind import ConflictScreen

    overwrite = False
    if plan.conflicts:
        answer = await ask(ui, ConflictScreen(plan.conflicts, plan.files, what))
        if answer is None:
            ui.say(f"nothing was changed ({', '.join(plan.conflicts)} changed since {what})")
            return False
        overwrite = answer == "overwrite"
    done = await session.store.restore(plan, overwrite=overwrite)
    ui.say(done.summary(), "warning" if done.restored.refused or done.not_recorded() else "info")
    return True


async def _fork(session: Session, ui: UI, turn: Any) -> None:
    """A new session from this one (before ``turn``, or all of it) in its place."""
    old_id = session.session_id
    try:
        new_id = await session.store.fork(before_turn=turn.n if turn is not None else None)
    except LarikError as e:
        ui.say(str(e), "error")
        return
    except Exception as e:  # one line, never a traceback; this session goes on
        ui.say(f"could not open the session: {type(e).__name__}: {e}", "error")
        return
    ui.post(Reopened(resumed=False))
    if turn is None:
        ui.say(f"forked: now in session {new_id} ({old_id} is kept as it was)")
        return
    ui.say(
        f"conversation rewound to before turn {turn.n}: now in session {new_id} "
        f"({old_id} is kept as it was); its prompt is back in the input"
    )
    ui.post(ToPrompt(turn.prompt, replace=True))
