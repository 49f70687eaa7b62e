"""``History``: the conversation as it is sent, the session's log, what it cost, compaction.

Everything that changes the messages goes through here: the loop's appends, the edit
workflow's replies left out, a resumed session's messages, a compaction's summary. Each
message and record is written to the session's transcript as it happens (:mod:`.session_log`).
Notices raised outside a turn (a model switch, a start-up warning) wait here until the next
turn shows them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..llm.types import EventType, Message, Usage
from ..words import count
from . import compaction
from .edit_messages import put_out
from .events import AgentEvent, AgentEventType, NoticeLevel
from .runner import answer_all
from .usage import Accounting

if TYPE_CHECKING:
    from ..config import Config
    from ..llm.types import Request
    from ..routing import Resolved
    from .session_log import SessionLog
    from .sessions import Rebuilt

__all__ = ["History", "Summariser"]

E = AgentEventType


@dataclass(frozen=True)
class Summariser:
    """What a compaction needs from outside the history."""

    model: Callable[[], Awaitable[tuple[Resolved, int]]]
    """The compact model and the window its server loaded (0: not known)."""
    before: Callable[[str], Awaitable[list[AgentEvent]]]
    """PreCompact hooks (``manual`` or ``auto``): their notices; they cannot stop it."""
    mind_budget: Callable[[Request, Resolved], None]
    """Raises TurnOver ``budget`` when the summary request must not be sent."""
    system_chars: int
    """The system prompt's length: counted in the context after the summary."""


class History:
    def __init__(self, log: SessionLog, config: Config) -> None:
        self.messages: list[Message] = []
        self.log = log  # the session's transcript (and a front end's display records)
        self.config = config
        self.usage = Accounting()  # tokens and cost so far: per model, per role, in total
        self.context_tokens = 0  # tokens in use after the last reply (or an estimate)
        self.counted = 0  # messages[:counted] are included in context_tokens
        self._pending: list[AgentEvent] = []  # shown before the next request

    # -- the conversation -----------------------------------------------------------------------
    def append(self, msg: Message, harness: bool = False) -> None:
        """``harness``: a message the edit workflow wrote, not the user's prompt."""
        self.messages.append(msg)
        self.log.message(msg, harness)

    def leave_out(self, msg: Message) -> None:
        put_out(self.messages, msg)

    def in_use(self) -> int:
        """Tokens in use: the last reply's count and an estimate of what came after it."""
        return self.context_tokens + compaction.estimate_tokens(self.messages[self.counted :])

    def restore(self, rebuilt: Rebuilt) -> None:
        """A resumed session's conversation and spending."""
        self.messages = rebuilt.messages
        for model, role, usage, cost, provider in rebuilt.usage:
            self.usage.add(model, role, usage, cost, provider)
        self._answer_dangling_calls()
        if rebuilt.problems:  # shown (and recorded) when the next turn starts
            self.pend(rebuilt.report())
        self.context_tokens = rebuilt.shown.context or compaction.estimate_tokens(self.messages)
        self.counted = len(self.messages)

    def _answer_dangling_calls(self) -> None:
        """A session that crashed between a tool call and its result: answer the call."""
        if not self.messages or self.messages[-1].role != "assistant":
            return
        if uses := self.messages[-1].tool_uses():
            note = "the session ended before this tool call finished"
            self.append(Message(role="user", blocks=answer_all(uses, {}, note), interrupted=True))

    # -- records and notices ----------------------------------------------------------------
    def record(self, record: dict[str, Any]) -> None:
        self.log.record(record)

    def notice(self, text: str, warn: bool = False) -> AgentEvent:
        level = NoticeLevel.WARNING if warn else NoticeLevel.INFO
        self.record({"kind": "notice", "text": text, "level": level.value})
        return AgentEvent(E.NOTICE, text=text, level=level)

    def pend(self, text: str, warn: bool = True) -> None:
        """A notice raised outside a turn: shown (and recorded) when the next one starts."""
        level = NoticeLevel.WARNING if warn else NoticeLevel.INFO
        self._pending.append(AgentEvent(E.NOTICE, text=text, level=level))

    def pend_events(self, events: list[AgentEvent]) -> None:
        self._pending += events

    def take_notices(self) -> list[AgentEvent]:
        """The notices waiting for a turn: recorded as they are shown."""
        out, self._pending = self._pending, []
        for ev in out:
            self.record({"kind": "notice", "text": ev.text, "level": ev.level.value})
        return out

    def account(
        self, usage: Usage, model: str, provider: str | None, role: str, subagent: str = ""
    ) -> AgentEvent:
        """Charge ``usage`` (a subagent's too: ``subagent`` names its role) and record it."""
        cost, rec = self.usage.charge(usage, model, provider, role, self.config)
        self.record({**rec, "subagent": subagent} if subagent else rec)
        return AgentEvent(
            E.USAGE, usage=usage, model=model, role=role, cost=cost, subagent=subagent
        )

    # -- compaction -----------------------------------------------------------------------------
    async def compact(self, reason: str, window: int, how: Summariser) -> AsyncIterator[AgentEvent]:
        """Replace the older messages by a summary (``manual``: all of them) written by the
        compact model. The last event says ``data["compacted"]`` when it happened."""
        manual = reason == "manual"  # /compact: everything so far becomes the summary
        cut = len(self.messages) if manual else compaction.choose_cut(self.messages, window)
        if cut == 0:
            yield self.notice("nothing to compact yet")
            return
        old, kept = self.messages[:cut], self.messages[cut:]
        before = self.in_use()
        resolved, summary_window = await how.model()
        for hev in await how.before("manual" if manual else "auto"):
            yield hev
        how.mind_budget(compaction.summary_request(resolved.model, old, summary_window), resolved)
        what = f"compacting {count(len(old), 'earlier message')} with {resolved.spec} ({reason})"
        yield replace(self.notice(what), data={"compacting": True})  # a front end's progress
        done = None
        async for sev in compaction.summarise(resolved, old, summary_window):
            if sev.type is EventType.DONE:
                done = sev
            else:
                yield self.notice(sev.text, warn=True)
        assert done is not None and done.message is not None  # summarise says so
        answered = done.message.model or resolved.model
        provider = resolved.provider_name if answered == resolved.model else None
        yield self.account(done.usage or Usage(), answered, provider, "compact")
        summary = compaction.summary_message(done.message.text())
        self.messages = [summary, *kept]
        self.record(compaction.record(summary, len(kept), len(old), reason, resolved.spec))
        system = how.system_chars // compaction.CHARS_PER_TOKEN
        self.context_tokens = compaction.estimate_tokens(self.messages) + system
        self.counted = len(self.messages)
        ev = self.notice(compaction.done_text(len(old), before, self.context_tokens))
        ev.data.update(compacted=True, before=before, after=self.context_tokens)
        yield ev
