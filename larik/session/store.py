"""The session store: the saved sessions of a project — their transcripts and checkpoints —
and the only way a face reaches them (tests/test_layers.py: no face imports the agent's
stores).

:class:`SessionStore` is a running session's: its checkpoints (``plan_undo``, ``plan_rewind``,
``restore``, ``undo``, ``rewind``; docs/undo.md), its conversation as saved (``history``,
``conversation``), another conversation in its place (``clear``, ``resume``, ``fork``) and the
project's other sessions (``sessions``). :class:`SavedSession` is one saved session outside a
running Larik (``larik undo``, ``larik rewind``); the functions below name a project's
sessions for the command line and ACP. Git runs in a thread: a face's screen stays live.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..llm.errors import LarikError

if TYPE_CHECKING:
    from ..agent.checkpoints import CheckpointError as CheckpointError
    from ..agent.checkpoints import show as show
    from ..agent.rewind import Checkpointer, Rewind, Undone
    from ..agent.rewind import one_line as one_line
    from ..agent.sessions import Rebuilt, SessionInfo
    from ..agent.transcript import SessionLocked as SessionLocked
    from ..agent.transcript import Transcript
    from ..agent.transcript import TranscriptError as TranscriptError
    from ..llm.types import Message
    from .conversation import Conversation
    from .port import AgentSlot

__all__ = [
    "CheckpointError",
    "History",
    "SavedSession",
    "SessionLocked",
    "SessionStore",
    "TranscriptError",
    "check_session_id",
    "fork_saved",
    "list_sessions",
    "one_line",
    "saved_path",
    "show",
    "transcript_of",
]


@dataclass
class History:
    """A resumed conversation as a face draws it: the messages, the transcript as rebuilt,
    and each subagent's transcript by its call."""

    messages: list[Message] = field(default_factory=list)
    restored: Rebuilt | None = None
    links: dict[str, Path] = field(default_factory=dict)


# the store's errors and its way of naming a path and a prompt, from the agent's modules when
# first asked for (they import pydantic: not before a face's first frame)
_LAZY = {
    "CheckpointError": "checkpoints",
    "show": "checkpoints",
    "one_line": "rewind",
    "SessionLocked": "transcript",
    "TranscriptError": "transcript",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"larik.agent.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- a project's saved sessions ---------------------------------------------------------------
def list_sessions(root: Path) -> list[SessionInfo]:
    """The project's saved sessions, the newest first."""
    from ..agent.sessions import list_sessions as listed

    return listed(root)


def check_session_id(session_id: str) -> str:
    """``session_id`` if it is well-formed; else the store's error (a LarikError)."""
    from ..agent.sessions import check_session_id as check

    return check(session_id)


def transcript_of(root: Path, session_id: str) -> Path:
    """Where session ``session_id`` of project ``root`` is (or would be) kept."""
    from ..agent.sessions import project_dir

    return project_dir(root) / f"{session_id}.jsonl"


def saved_path(root: Path, session: str) -> Path:
    """The transcript of ``session`` ("latest", an id): a LarikError when there is none."""
    from ..agent.session_log import session_path

    return session_path(root, session)


def fork_saved(root: Path, source: Path, *, before_turn: int | None = None) -> str:
    """A new session copied from ``source`` (all of it, or before turn ``before_turn``);
    the original is never changed. Returns the new session's id."""
    from ..agent.rewind import fork_session

    return fork_session(root, source, before_turn=before_turn)


class SavedSession:
    """One saved session's checkpoints outside a running Larik. ``SavedSession(root, id)``
    only reads it (listing its turns); ``writable=True`` reopens its transcript (locked) so
    an undo is recorded in it — ``close()`` then."""

    def __init__(self, root: Path, session: str = "latest", *, writable: bool = False) -> None:
        from ..agent.transcript import Transcript, load_transcript

        self.root = root
        self.path = saved_path(root, session)
        self._transcript: Transcript | None = None
        if writable:
            self._transcript, loaded = Transcript.reopen(self.path)
        else:
            loaded = load_transcript(self.path)
        self.session_id = loaded.session_id or self.path.stem
        self._records = loaded.records
        self._checkpoints: Checkpointer | None = None

    @property
    def checkpoints(self) -> Checkpointer:
        """Its turns and what taking them back would do (raises the store's errors)."""
        if self._checkpoints is None:
            from ..agent.rewind import Checkpointer

            t = self._transcript
            cp = Checkpointer(self.root, t.append if t is not None else lambda rec: None)
            cp.load(self._records)
            self._checkpoints = cp
        return self._checkpoints

    def fork(self, before_turn: int | None = None) -> str:
        return fork_saved(self.root, self.path, before_turn=before_turn)

    def close(self) -> None:
        if self._transcript is not None:
            self._transcript.close()


# -- a running session's ----------------------------------------------------------------------
class SessionStore:
    """A running session's saved side. ``slot``: its agent (which keeps the transcript and the
    checkpoints); ``replace(resume, reason)``: another conversation in this one's place
    (``resume`` None: a new one); ``conversation``: refuses while a turn runs."""

    def __init__(
        self,
        cwd: Path,
        slot: AgentSlot,
        conversation: Conversation,
        replace: Callable[[str | None, str], Awaitable[None]],
    ) -> None:
        self.cwd = cwd
        self._slot = slot
        self._conversation = conversation
        self._replace = replace

    @property
    def root(self) -> Path:
        """The project the session's files are kept for."""
        agent = self._slot.current
        return agent.root if agent is not None else self.cwd

    @property
    def checkpoints(self) -> Checkpointer | None:
        """The session's checkpoints (None: it keeps none, or there is no agent yet)."""
        agent = self._slot.current
        return agent.checkpoints if agent is not None else None

    @property
    def messages(self) -> list[Message]:
        """The conversation in memory (since the last compaction): a copy."""
        agent = self._slot.current
        return list(agent.messages) if agent is not None else []

    def sessions(self) -> list[SessionInfo]:
        """This project's saved sessions, the newest first (``/resume``'s list)."""
        return list_sessions(self.cwd)

    def history(self) -> History:
        """The conversation as a face draws it when the session opens (resumed: its past)."""
        agent = self._slot.need()
        if not agent.messages:
            return History()
        from ..agent.subagent import subagent_links

        links = subagent_links(agent.transcript_path)
        return History(list(agent.messages), agent.restored, links)

    def conversation(self) -> list[Message]:
        """The whole conversation: the transcript's messages when it has a file (what
        compaction summarised included), else the messages in memory."""
        agent = self._slot.current
        if agent is None:
            return []
        path = agent.transcript_path
        if Path(path).is_file():
            from ..agent.transcript import TranscriptError, load_transcript

            try:
                return list(load_transcript(path).messages)
            except (TranscriptError, OSError):
                pass
        return list(agent.messages)

    def can_fork(self) -> bool:
        """Whether there is a saved conversation to copy (a message, its transcript)."""
        agent = self._slot.current
        return agent is not None and bool(agent.messages) and agent.transcript_path.is_file()

    def record(self, record: dict[str, Any]) -> None:
        """A display record into the transcript (a !command: the model does not see it)."""
        self._slot.need().log.record(record)

    # -- other conversations in this one's place ----------------------------------------------
    async def clear(self) -> None:
        """A new conversation in this one's place (this one stays saved)."""
        await self._replace(None, "clear")

    async def resume(self, session_id: str) -> None:
        """An earlier session of this project in this one's place. If it cannot be opened,
        this one goes on (and the error is raised). This one's own id: nothing to do."""
        if session_id != self._slot.need().session_id:
            await self._replace(session_id, "resume")

    async def fork(self, before_turn: int | None = None) -> str:
        """Go on in a copy of this session (all of it, or what came before turn
        ``before_turn``); this one is kept as it was. Returns the new session's id."""
        agent = self._slot.need()
        self._conversation.idle("fork")
        new_id = await asyncio.to_thread(
            fork_saved, agent.root, agent.transcript_path, before_turn=before_turn
        )
        await self._replace(new_id, "resume")
        return new_id

    # -- undo and rewind (docs/undo.md) -------------------------------------------------------
    async def plan_undo(self) -> Rewind | None:
        """What ``undo`` would take back (None: no turn changed files); nothing is written."""
        return await asyncio.to_thread(self._need_checkpoints("undo").plan_undo)

    async def plan_rewind(self, n: int) -> Rewind:
        """What taking back turn ``n`` and every turn after it would do; nothing is written."""
        return await asyncio.to_thread(self._need_checkpoints("rewind").plan_rewind, n)

    async def restore(self, plan: Rewind, *, overwrite: bool = False) -> Undone:
        """Carry a plan out (a file changed since is kept unless ``overwrite``)."""
        cp = self._need_checkpoints("restore")
        return await asyncio.to_thread(cp.carry_out, plan, overwrite=overwrite)

    async def undo(self, *, overwrite: bool = False) -> Undone | None:
        """Take back the last turn's file changes; the outcome (``.summary()``), or None when
        no turn changed files."""
        plan = await self.plan_undo()
        return None if plan is None else await self.restore(plan, overwrite=overwrite)

    async def rewind(
        self, n: int, *, code: bool = True, conversation: bool = True, overwrite: bool = False
    ) -> tuple[Undone | None, str]:
        """Back to before turn ``n``: its and later turns' file changes taken back (``code``)
        and/or the conversation forked from before its prompt (``conversation``). Returns
        (what was restored or None, the new session's id or "")."""
        cp = self._need_checkpoints("rewind")
        turn = cp.turns[n - 1] if 0 < n <= len(cp.turns) else None
        if turn is None:
            raise LarikError(f"no turn {n} in this session")
        done = None
        if code:
            plan = await self.plan_rewind(n)
            done = await self.restore(plan, overwrite=overwrite) if plan.turns else None
        new_id = await self.fork(before_turn=turn.n) if conversation else ""
        return done, new_id

    def _need_checkpoints(self, what: str) -> Checkpointer:
        cp = self._slot.need().checkpoints
        if cp is None:
            raise LarikError(f"/{what}: this session keeps no checkpoints")
        return cp
