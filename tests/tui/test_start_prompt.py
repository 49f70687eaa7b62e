"""``larik "PROMPT"``: the TUI starts with the prompt sent, as if typed (issue 25 item 8)."""

from __future__ import annotations

from larik.llm.errors import MissingKeyError

from .conftest import ready, turn_done, wait_for


def _prompts(agent) -> list[str]:
    return [m.text() for m in agent.messages if m.role == "user"]


async def test_the_start_prompt_is_sent_once_the_agent_is_there(harness):
    app = harness.app([{"text": "on it"}], prompt="fix the failing test")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: _prompts(harness.agent))
        await turn_done(pilot)
        assert _prompts(harness.agent) == ["fix the failing test"]
        assert app.chat.prompt.text == ""
        assert app.chat.prompt.prompt_history[-1] == "fix the failing test"  # as if typed


async def test_with_no_model_the_start_prompt_waits_in_the_prompt_box(harness):
    harness.fail_with = MissingKeyError("anthropic", ["ANTHROPIC_API_KEY"])
    app = harness.app([], prompt="fix the failing test")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.chat.prompt.text == "fix the failing test")
        assert app.chat.prompt.cursor_location == app.chat.prompt.document.end


async def test_without_a_start_prompt_nothing_is_sent(harness):
    app = harness.app([{"text": "unused"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.pause()
        assert _prompts(harness.agent) == [] and app.chat.prompt.text == ""
