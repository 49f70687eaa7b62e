"""A tool call's duration is the tool's time, not the time the user took to answer (issue 19
item 13)."""

from __future__ import annotations

from types import SimpleNamespace

from larik.agent import runner
from larik.agent.events import Approval

from .conftest import E, of, run, script


async def test_the_time_spent_asking_is_not_the_tools(make_agent, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(runner, "time", SimpleNamespace(monotonic=lambda: clock[0]))

    async def slow_user(req):
        clock[0] += 100.0  # the user reads the diff for 100 seconds
        return Approval(allow=True)

    call = {"name": "write_file", "input": {"path": "n.txt", "content": "x\n"}, "id": "w1"}
    agent = await make_agent(
        script({"tool_calls": [call]}, {"text": "done"}),
        permission_mode="ask",
        approver=slow_user,
    )
    events = await run(agent)
    (end,) = of(events, E.TOOL_END)
    assert not end.is_error and end.duration < 100.0
