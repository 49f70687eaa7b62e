"""``/undo``, ``/rewind`` and ``/fork``: the TUI side of docs/undo.md.

Each handler checks there is an agent and no turn running, then runs its flow in a worker, so
it can wait for the modals it opens (``push_screen_wait``): the turn list, the three choices,
and — when a file was changed since the turn — :class:`~larik.tui.screens.rewind.ConflictScreen`,
which asks before anything of the user's is overwritten. Git runs in a thread
(``asyncio.to_thread``): the screen stays live. A conversation rewind or a fork opens the new
session in place of the current one (which stays saved as it was), through the chat screen's
``replace_agent``, and a rewound turn's prompt is put back in the input to edit.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..llm.errors import LarikError

if TYPE_CHECKING:
    from .screens.chat import ChatScreen

__all__ = ["fork", "rewind", "undo"]


def _ready(chat: ChatScreen, what: str) -> Any:
    agent = chat.need_agent()
    if agent is None or not chat.idle(what):
        return None
    if getattr(agent, "checkpoints", None) is None:
        chat.say(f"{what}: this session keeps no checkpoints", "warning")
        return None
    return agent


async def undo(chat: ChatScreen, arg: str) -> None:
    agent = _ready(chat, "/undo")
    if agent is not None:
        chat.run_worker(_undo(chat, agent), group="undo", exclusive=True, exit_on_error=False)


async def rewind(chat: ChatScreen, arg: str) -> None:
    agent = _ready(chat, "/rewind")
    if agent is None:
        return
    n = None
    if arg:
        if not arg.isdigit():
            chat.say(f"/rewind: {arg!r} is not a turn number (see /rewind)", "error")
            return
        n = int(arg)
    chat.run_worker(_rewind(chat, agent, n), group="undo", exclusive=True, exit_on_error=False)


async def fork(chat: ChatScreen, arg: str) -> None:
    agent = chat.need_agent()
    if agent is None or not chat.idle("/fork"):
        return
    if not agent.messages or not agent.transcript_path.is_file():
        chat.say("/fork: nothing to fork yet (no message in this session)", "warning")
        return
    chat.run_worker(_fork(chat, agent, None), group="undo", exclusive=True, exit_on_error=False)


# -- the flows --------------------------------------------------------------------------------
async def _undo(chat: ChatScreen, agent: Any) -> None:
    try:
        plan = await asyncio.to_thread(agent.checkpoints.plan_undo)
        if plan is None:
            chat.say("/undo: nothing to undo (no turn of this session changed files)")
            return
        turn = plan.turns[0]
        await _restore(chat, agent, plan, f"turn {turn.n}")
    except LarikError as e:
        chat.say(f"/undo: {e}", "error")


async def _rewind(chat: ChatScreen, agent: Any, n: int | None) -> None:
    from .screens.rewind import RewindChoiceScreen, TurnPickerScreen

    cp = agent.checkpoints
    try:
        if not cp.turns:
            chat.say("/rewind: no turns in this session yet")
            return
        if n is None:
            n = await chat.app.push_screen_wait(TurnPickerScreen(cp.turns))
            if n is None:
                return
        plan = await asyncio.to_thread(cp.plan_rewind, n)
        turn = cp.turns[n - 1]
        what = await chat.app.push_screen_wait(RewindChoiceScreen(turn, plan.files))
        if what is None:
            return
        if what in ("code", "both"):
            if not plan.turns:
                chat.say(f"no file changes since turn {n} to take back")
            elif not await _restore(chat, agent, plan, f"turn {n}"):
                return  # cancelled: the conversation stays too
        if what in ("conversation", "both"):
            await _fork(chat, agent, turn)
    except LarikError as e:
        chat.say(f"/rewind: {e}", "error")


async def _restore(chat: ChatScreen, agent: Any, plan: Any, what: str) -> bool:
    """Carry out ``plan``, asking first when files changed since; False when cancelled."""
    from .screens.rewind import ConflictScreen

    overwrite = False
    if plan.conflicts:
        answer = await chat.app.push_screen_wait(ConflictScreen(plan.conflicts, plan.files, what))
        if answer is None:
            chat.say(f"nothing was changed ({', '.join(plan.conflicts)} changed since {what})")
            return False
        overwrite = answer == "overwrite"
    done = await asyncio.to_thread(agent.checkpoints.carry_out, plan, overwrite=overwrite)
    chat.say(done.summary(), "warning" if done.restored.refused or done.not_recorded() else "info")
    return True


async def _fork(chat: ChatScreen, agent: Any, turn: Any) -> None:
    """A new session from this one (before ``turn``, or all of it) in its place."""
    from ..agent.rewind import fork_session

    old_id = agent.session_id
    before = turn.n if turn is not None else None
    root = getattr(agent, "root", chat.cwd)
    new_id = await asyncio.to_thread(fork_session, root, agent.transcript_path, before_turn=before)
    await chat.replace_agent(agent, resume=new_id)
    if chat.agent is agent:
        return  # it could not be opened (replace_agent said why): this session goes on
    if turn is None:
        chat.say(f"forked: now in session {new_id} ({old_id} is kept as it was)")
        return
    chat.say(
        f"conversation rewound to before turn {turn.n}: now in session {new_id} "
        f"({old_id} is kept as it was); its prompt is back in the input"
    )
    chat.prompt.load_text(turn.prompt)
