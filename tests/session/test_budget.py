"""Spending budgets (larik/session/budget.py): the session stops before the request that would
cross one, for every face; print mode's and the TUI's own parts are in their tests."""

from __future__ import annotations

import pytest

from larik.agent.usage import Accounting
from larik.config import Config
from larik.llm import registry
from larik.session import Session, SessionEvent, SessionEventType, SessionOptions
from larik.session.budget import Budget, BudgetLimits

from .faces import script

GLOB = {"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]}
DOLLAR = {"input": 10, "output": 1000}  # $1.00 at the prices below


def _config(
    spec: str, *, input_price: float = 0.0, output_price: float = 1000.0, **budget
) -> Config:
    prices = {"input_price": input_price, "output_price": output_price}
    return Config.model_validate({"models": {spec: prices}, "budget": budget})


async def _session(project, spec: str, config: Config, **kw) -> Session:
    session = Session(project, config, SessionOptions(model=spec, **kw))
    await session.start()
    return session


def _sent(spec: str) -> int:
    return len(registry.scripted_provider(spec.partition("/")[2]).requests)


async def test_the_request_that_would_cross_the_session_budget_is_not_sent(project, tmp_path):
    spec = script(
        tmp_path / "m.json", {**GLOB, "usage": DOLLAR}, {"text": "never", "usage": DOLLAR}
    )
    session = await _session(project, spec, _config(spec, session_usd=1.5))
    events: list = []
    result = await session.send("look around").run(events.append)
    # the first reply cost $1; the next, estimated at the replies' average, would make $2
    assert result.stop == "budget" and _sent(spec) == 1
    [notice] = [e for e in events if e.type.value == "notice" and "budget" in e.text]
    assert "session budget of $1.50" in notice.text and "$1.00 spent" in notice.text
    assert session.settings.budget.spent == pytest.approx(1.0, abs=0.01)
    assert "0.50 left" in session.settings.budget.describe()
    await session.close()


async def test_a_prompt_too_dear_for_the_budget_sends_nothing(project, tmp_path):
    spec = script(tmp_path / "m.json", {"text": "never"})
    config = _config(spec, input_price=1000.0, session_usd=1.0)  # $1 per thousand tokens
    session = await _session(project, spec, config)
    result = await session.send("x" * 8000).run()  # ≥ 2,000 tokens: about $2 or more
    assert result.stop == "budget" and _sent(spec) == 0
    await session.close()


async def test_the_turn_budget_starts_again_with_each_turn(project, tmp_path):
    spec = script(
        tmp_path / "m.json",
        {**GLOB, "usage": DOLLAR},
        {"text": "not this one", "usage": DOLLAR},
    )
    session = await _session(project, spec, _config(spec, turn_usd=1.5))
    assert (await session.send("one").run()).stop == "budget"
    second = await session.send("two").run()  # $0 spent in this turn: the next reply may go
    assert (second.stop, second.text) == ("end_turn", "not this one") and _sent(spec) == 2
    assert session.settings.budget.turn_spent == pytest.approx(1.0, abs=0.01)
    await session.close()


async def test_the_command_line_budget_replaces_the_configs(project, tmp_path):
    spec = script(tmp_path / "m.json", {**GLOB, "usage": DOLLAR}, {"text": "fine", "usage": DOLLAR})
    config = _config(spec, session_usd=1.5)
    session = await _session(project, spec, config, max_budget_usd=5.0)
    assert (await session.send("go").run()).stop == "end_turn" and _sent(spec) == 2
    await session.close()


async def test_spending_carries_over_clear_and_a_resumed_sessions_cost_does_not_count(
    project, tmp_path
):
    spec = script(
        tmp_path / "m.json",
        {"text": "first", "usage": DOLLAR},
        {"text": "second", "usage": DOLLAR},
    )
    session = await _session(project, spec, _config(spec, session_usd=1.5))
    await session.send("one").run()
    first_id = session.session_id
    await session.store.clear()
    spent = session.settings.budget.spent
    assert spent == pytest.approx(1.0, abs=0.01)  # /clear spent nothing back
    assert (await session.send("two").run()).stop == "budget"
    await session.close()
    again = await _session(project, spec, _config(spec, session_usd=1.5), resume=first_id)
    assert again.settings.budget.spent == 0.0 and again.agent.usage.total_cost > 0.9
    await again.close()


async def test_a_model_without_a_price_is_said_once_and_not_counted(project, tmp_path):
    spec = script(tmp_path / "m.json", GLOB, {"text": "done"})
    config = Config.model_validate({"budget": {"session_usd": 0.01}})
    session = Session(project, config, SessionOptions(model=spec))
    stream = session.events(agent_events=False)
    await session.start()
    # a scripted model is local, hence free: make it look hosted and unpriced to the budget
    session.settings.budget.estimate = lambda request, resolved: None  # type: ignore[method-assign]
    assert (await session.send("go").run()).stop == "end_turn" and _sent(spec) == 2
    await session.close()
    said = [
        e.text
        for e in [e async for e in stream]
        if isinstance(e, SessionEvent) and e.type is SessionEventType.NOTICE
    ]
    assert len([t for t in said if "no price in the catalog" in t]) == 1


async def test_compaction_is_held_to_the_budget_too(project, tmp_path):
    spec = script(tmp_path / "m.json", {"text": "hi", "usage": DOLLAR}, {"text": "summary"})
    config = _config(spec, session_usd=1.5)
    session = await _session(project, spec, config)
    await session.send("hello").run()
    events: list = []
    result = await session.compact().run(events.append)
    assert result.stop == "budget" and _sent(spec) == 1
    assert any(e.type.value == "notice" and "budget" in e.text for e in events)
    await session.close()


def test_without_limits_the_agent_is_not_asked():
    class Agent:
        budget_check = "unset"
        usage = Accounting()

    budget = Budget()
    budget.adopt(Agent, BudgetLimits())
    assert Agent.budget_check is None and budget.describe() == ""
