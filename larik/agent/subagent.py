"""Subagents: what the ``task`` tool runs, and how its answer is read.

``Agent.spawn(role)`` builds the subagent: it resolves its role through the parent's resolver
(so it gets that role's model and fallbacks), works in the same project under the same
permission policy (an "allow always" given to it holds for the session), shares the parent's
session context and running-process table (so an interrupt kills its commands too), and keeps
no transcript of its own. ``explore`` gets the read-only tools; any other role every tool but
``task`` (``tools_for``).

``subagent_answer`` drives its one turn: USAGE and NOTICE events go to the parent (which
counts the usage, records both in its transcript with ``subagent`` and forwards them to the
front end); the rest stays inside; the final text is the answer. This module does not know the
Agent class: the agent imports it, never the other way round.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from .events import AgentEvent, AgentEventType
from .tools import ALL_TOOLS, READ_ONLY_TOOLS, ToolError

__all__ = ["subagent_answer", "tools_for"]

E = AgentEventType


def tools_for(role: str) -> tuple[str, ...]:
    return READ_ONLY_TOOLS if role == "explore" else tuple(t for t in ALL_TOOLS if t != "task")


async def subagent_answer(
    role: str, events: AsyncIterator[AgentEvent], forward: Callable[[AgentEvent], None]
) -> str:
    """The final answer of the subagent turn ``events``; its usage and notices go to
    ``forward``. A failed turn raises ToolError (the model sees an error result)."""
    answer, error, max_turns, stuck = "", "", False, ""
    async for ev in events:
        if (ev.type is E.USAGE and ev.usage is not None) or ev.type is E.NOTICE:
            forward(ev)
        elif ev.type is E.TURN_END:
            answer, max_turns = ev.text, bool(ev.data.get("max_turns"))
            stuck = str(ev.data.get("stuck") or "")
        elif ev.type is E.ERROR:
            error = ev.text
    if error:
        raise ToolError(f"the {role} subagent failed: {error}")
    if max_turns:
        answer += f"\n[the {role} subagent stopped at the max-turns limit before finishing]"
    if stuck:
        answer += (
            f"\n[the {role} subagent was stopped: it was stuck repeating itself ({stuck}) "
            "before finishing; do not give it the same job again unchanged]"
        )
    return answer.strip() or f"(the {role} subagent finished without an answer)"
