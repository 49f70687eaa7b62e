"""Subagents: the ``task`` tool runs a fresh Agent on a role and returns its final answer.

The subagent resolves its role through the parent's resolver (so it gets that role's model and
fallbacks), works in the same project under the same permission policy (an "allow always" given
to it holds for the session), shares the parent's session context and running-process table
(so an interrupt kills its commands too), and keeps no transcript of its own. ``explore`` gets
the read-only tools; any other role every tool but ``task``. Its USAGE events are counted by the
parent (and recorded in the parent's transcript with ``subagent``); its NOTICE events are
forwarded to the front end tagged with the role.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..llm.errors import LarikError
from .events import AgentEventType
from .tools import ALL_TOOLS, READ_ONLY_TOOLS, ToolError

if TYPE_CHECKING:
    from .agent import Agent

__all__ = ["run_subagent", "tools_for"]

E = AgentEventType


def tools_for(role: str) -> tuple[str, ...]:
    return READ_ONLY_TOOLS if role == "explore" else tuple(t for t in ALL_TOOLS if t != "task")


async def run_subagent(parent: Agent, role: str, prompt: str) -> str:
    from .agent import Agent

    try:
        resolved = parent._resolver(role)
    except LarikError as e:
        raise ToolError(f"cannot start the {role} subagent: {e}") from None
    sub = Agent(
        root=parent.root,
        config=parent.config,
        resolver=parent._resolver,
        resolved=resolved,
        policy=parent._policy,
        effort=parent.effort,
        max_turns=parent.max_turns,
        tools=tools_for(role),
        role_label=role,
        processes=parent._ctx.processes,
        context=parent.system[1],
    )
    emit = parent._ctx.emit
    answer, error, max_turns = "", "", False
    async for ev in sub.run_turn(prompt):
        if ev.type is E.USAGE and ev.usage is not None:
            provider = resolved.provider_name if ev.model == resolved.model else None
            ev = parent._account(ev.usage, ev.model, provider, ev.role, subagent=role)
        elif ev.type is E.NOTICE:
            ev.subagent = role
            parent._record(
                {"kind": "notice", "text": ev.text, "level": ev.level.value, "subagent": role}
            )
        else:
            if ev.type is E.TURN_END:
                answer, max_turns = ev.text, bool(ev.data.get("max_turns"))
            elif ev.type is E.ERROR:
                error = ev.text
            continue
        if emit is not None:
            emit(ev)
    if error:
        raise ToolError(f"the {role} subagent failed: {error}")
    if max_turns:
        answer += f"\n[the {role} subagent stopped at the max-turns limit before finishing]"
    return answer.strip() or f"(the {role} subagent finished without an answer)"
