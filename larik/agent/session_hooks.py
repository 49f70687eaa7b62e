"""The session's own hook events: UserPromptSubmit, Stop, PreCompact, SessionStart and
SessionEnd for the main agent; SubagentStop (in place of Stop) for a subagent.

(PreToolUse and PostToolUse belong to the tool runner, and run for subagents' calls too.) The
agent asks this object at three points of a turn and turns the answers into events:

- ``submit(prompt, blocks)`` before the prompt is recorded: a block ends the turn with an ERROR
  event (the prompt is never sent nor recorded); context goes with the prompt;
- ``start(source)`` when the session starts, resumes, or is compacted: context goes with the
  next prompt, notices are shown when the next turn starts;
- ``stop(text)`` when the model ends its turn: a block sends it back to work with the reason as
  a user message ("Stop hook feedback: …"), at most :data:`MAX_STOP_BLOCKS` times in a row
  (a subagent's SubagentStop hooks the same way);
- ``pre_compact(trigger)`` before a compaction (manual or auto): notices only, it cannot stop it;
- ``end(reason)`` when the session closes: notices only.

Notices are made with the agent's ``notice`` (which records them in the transcript).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..llm.types import Block, Message
from .events import AgentEvent, NoticeLevel
from .events import AgentEventType as E

if TYPE_CHECKING:
    from ..hooks.config import HooksConfig
    from ..hooks.runner import Hooks, Outcome
    from ..sandbox import Sandbox

__all__ = ["MAX_STOP_BLOCKS", "SessionHooks", "configured_hooks"]

MAX_STOP_BLOCKS = 5  # Stop hooks sending the model back to work, in a row, before the turn ends
Notice = Callable[[str, bool], AgentEvent]  # (text, warn) -> a recorded NOTICE event


def configured_hooks(
    config: HooksConfig, root: Path, sandbox: Sandbox | None = None
) -> Hooks | None:
    """The session's hooks (tool events included), or None when none is configured; they run
    in ``sandbox``, the session's (None: none)."""
    if not config.any():
        return None
    from ..hooks.runner import Hooks
    from ..sandbox.programs import hook_launcher

    return Hooks(config, root, hook_launcher(sandbox, root))


class Session(Protocol):
    """What the events say about the session (the agent)."""

    @property
    def session_id(self) -> str: ...
    @property
    def transcript_path(self) -> Path | None: ...
    @property
    def permission_mode(self) -> str: ...


class SessionHooks:
    def __init__(self, hooks: Hooks, session: Session, notice: Notice, subagent: str | None = None):
        """``subagent``: the role of the subagent this is for (its events are SubagentStop
        only; the fields every event sends stay the main session's)."""
        self.hooks = hooks
        self.subagent = subagent
        self._session = session
        if subagent is None:
            hooks.base = lambda: {
                "session_id": session.session_id,
                "transcript_path": str(session.transcript_path or ""),
                "permission_mode": session.permission_mode,
            }
        self._notice = notice
        self._context: list[str] = []
        self._stop_blocks = 0

    def _notices(self, outcome: Outcome) -> list[AgentEvent]:
        return [self._notice(n.text, n.level == "warning") for n in outcome.notices]

    async def submit(self, prompt: str, blocks: list[Block]) -> AsyncIterator[AgentEvent]:
        """UserPromptSubmit: its notices, then an ERROR event if it blocks the prompt; else
        the context the hooks add (and SessionStart's, waiting) goes into ``blocks``."""
        self._stop_blocks = 0
        if self.subagent is None and self.hooks.has("UserPromptSubmit"):
            out = await self.hooks.user_prompt_submit(prompt)
            for ev in self._notices(out):
                yield ev
            if out.ends:
                why = out.block or out.stop or "it said continue: false"
                yield AgentEvent(E.ERROR, text=f"a UserPromptSubmit hook blocked the prompt: {why}")
                return
            self._context += [f"UserPromptSubmit hook context:\n{c}" for c in out.context]
        blocks += [Block.text_block(c) for c in self._context]
        self._context = []

    async def start(self, source: str, model: str) -> list[AgentEvent]:
        """SessionStart: its notices, not yet recorded (the agent records them when it shows
        them, at the next turn)."""
        if self.subagent is not None or not self.hooks.has("SessionStart"):
            return []
        out = await self.hooks.session_start(source, model)
        self._context += [f"SessionStart hook context:\n{c}" for c in out.context]
        return [AgentEvent(E.NOTICE, text=n.text, level=NoticeLevel(n.level)) for n in out.notices]

    async def stop(self, text: str, append: Callable[[Message], None]) -> AsyncIterator[AgentEvent]:
        """Stop: its notices, then — when it sends the model back to work — the user message
        saying why (given to ``append`` first), as a MESSAGE event."""
        active = self._stop_blocks > 0
        if self.subagent is not None:
            if not self.hooks.has("SubagentStop"):
                return
            where = str(self._session.transcript_path or "")
            out = await self.hooks.subagent_stop(active, text, self.subagent, where)
        elif self.hooks.has("Stop"):
            out = await self.hooks.stop(active, text)
        else:
            return
        for ev in self._notices(out):
            yield ev
        if not out.block or out.stop is not None:
            return
        if self._stop_blocks >= MAX_STOP_BLOCKS:
            event = "Stop" if self.subagent is None else "SubagentStop"
            why = f"{event} hooks sent the model back {MAX_STOP_BLOCKS} times in a row; turn ended"
            yield self._notice(why, True)
            return
        self._stop_blocks += 1
        event = "Stop" if self.subagent is None else "SubagentStop"
        feedback = Block.text_block(f"{event} hook feedback:\n{out.block}")
        back = Message(role="user", blocks=[feedback])
        append(back)
        yield AgentEvent(E.MESSAGE, message=back)

    async def pre_compact(self, trigger: str) -> list[AgentEvent]:
        """PreCompact (``manual`` or ``auto``): its notices (recorded); it cannot stop it."""
        if self.subagent is not None or not self.hooks.has("PreCompact"):
            return []
        return self._notices(await self.hooks.pre_compact(trigger))

    async def end(self, reason: str) -> list[AgentEvent]:
        """SessionEnd: its notices (recorded); nothing can stop the session ending."""
        if self.subagent is not None or not self.hooks.has("SessionEnd"):
            return []
        return self._notices(await self.hooks.session_end(reason))
