"""The TUI on the real Agent (larik.agent.Agent) with scripted providers: the whole path from
a key press to the transcript. The resolver is injected, so no routing or keys are involved."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from larik.agent import Agent
from larik.agent.transcript import load_transcript
from larik.config import Config
from larik.llm.providers.scripted import ScriptedProvider
from larik.routing import Resolved
from larik.tui.app import LarikApp
from larik.tui.screens.permission import PermissionScreen
from larik.tui.screens.sessions import SessionPickerScreen
from larik.tui.widgets.tool_card import ToolCard

from .conftest import ready, screen_text, send, turn_done, wait_for


class Real:
    """Apps on the real Agent; every spec resolves to ``self.provider`` with that model id."""

    def __init__(self, root: Path) -> None:
        self.cwd = root / "project"
        self.cwd.mkdir()
        self.provider: ScriptedProvider | None = None
        self.agents: list[Any] = []
        self.config = Config()

    def resolve(self, spec: str) -> Resolved:
        assert self.provider is not None
        model = spec.partition("/")[2] or "model-a"
        return Resolved(self.provider, model, "scripted", None, f"scripted/{model}")

    def app(self, turns: list[dict[str, Any]], **kw: Any) -> LarikApp:
        self.provider = ScriptedProvider(turns)
        config = self.config

        async def factory(*, approver: Any, model: str = "", resume: str | None = None) -> Any:
            agent = await Agent.create(
                cwd=self.cwd,
                config=config,
                model=model,
                approver=approver,
                resume=resume,
                resolver=self.resolve,
            )
            self.agents.append(agent)
            return agent

        async def no_local(config: Any = None) -> list:
            return []

        return LarikApp(factory, cwd=self.cwd, config=config, discover_local=no_local, **kw)


@pytest.fixture
def real(tmp_path: Path) -> Real:
    return Real(tmp_path)


WRITE = {"name": "write_file", "input": {"path": "hello.txt", "content": "hi\n"}, "id": "w1"}


async def test_a_reply_streams_and_the_session_is_saved_as_it_goes(real):
    app = real.app([{"text": "Hello **there**.", "usage": {"input": 10, "output": 3}}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await turn_done(pilot)
        assert "Hello there." in screen_text(app)
        path = real.agents[0].transcript_path
        assert [m.text() for m in load_transcript(path).messages] == ["hi", "Hello **there**."]


async def test_an_approved_write_creates_the_file_and_shows_its_diff(real):
    app = real.app([{"tool_calls": [WRITE]}, {"text": "Wrote it."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "write hello.txt")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await wait_for(pilot, lambda: "+hi" in screen_text(app))
        await pilot.press("y")
        await turn_done(pilot)
        assert (real.cwd / "hello.txt").read_text() == "hi\n"
        card = app.query_one(ToolCard)
        assert card.status == "ok" and "+hi" in card.data.get("diff", "")


async def test_a_denied_write_leaves_the_file_alone_and_tells_the_model_why(real):
    app = real.app([{"tool_calls": [WRITE]}, {"text": "Understood."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "write hello.txt")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        app.screen.query_one("#reason").focus()
        await pilot.press(*"not now", "enter")
        await turn_done(pilot)
        assert not (real.cwd / "hello.txt").exists()
        assert app.query_one(ToolCard).status == "denied"
        result = next(
            b
            for m in real.provider.requests[1].messages
            for b in m.blocks
            if b.type == "tool_result"
        )
        assert result.is_error and "not now" in result.content


async def test_model_switch_sends_the_next_request_to_the_new_model_without_its_thinking(real):
    app = real.app([{"thinking": "secret plan", "text": "one"}, {"text": "two"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "first")
        await turn_done(pilot)
        await send(pilot, "/model scripted/model-b")
        await wait_for(pilot, lambda: real.agents[0].model == "model-b")
        await send(pilot, "second")
        await turn_done(pilot)
        second = real.provider.requests[1]
        assert second.model == "model-b"
        assert not [b for m in second.messages for b in m.blocks if b.type == "thinking"]
        assert "scripted/model-b" in screen_text(app)


async def test_escape_interrupts_and_the_conversation_goes_on(real):
    app = real.app([{"text": "word " * 400, "hold": 2}, {"text": "after"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "talk")
        await wait_for(
            pilot, lambda: len(real.provider.requests) == 1 and "word" in screen_text(app)
        )
        await pilot.press("escape")
        await turn_done(pilot)
        await send(pilot, "go on")
        await turn_done(pilot)
        assert "after" in screen_text(app)
        texts = [m.text() for m in real.provider.requests[1].messages]
        assert texts[0] == "talk" and texts[-1].endswith("go on")


async def test_a_saved_session_resumes_with_its_conversation(real):
    app = real.app([{"text": "first answer"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "first question")
        await turn_done(pilot)
        session = app.session_id
        await send(pilot, "/exit")
        await wait_for(pilot, lambda: not app.is_running)
    again = real.app([{"text": "second answer"}], resume=session)
    async with again.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "first answer" in screen_text(again))
        await send(pilot, "second question")
        await turn_done(pilot)
        texts = [m.text() for m in real.provider.requests[0].messages]
        assert texts == ["first question", "first answer", "second question"]
        assert again.session_id == session


async def test_compact_clear_and_resume_commands_work_on_the_real_agent(real):
    turns = [
        {"text": "answer one"},
        {"text": "answer two"},
        {"text": "Summary: we said hello twice."},
        {"text": "fresh answer"},
    ]
    app = real.app(turns)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        for prompt in ("hello", "hello again"):
            await send(pilot, prompt)
            await turn_done(pilot)
        first = app.session_id
        await send(pilot, "/compact")
        await turn_done(pilot)
        await wait_for(pilot, lambda: "compacted" in screen_text(app))
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: app.session_id != first)
        await send(pilot, "new topic")
        await turn_done(pilot)
        assert [m.text() for m in real.provider.requests[-1].messages] == ["new topic"]
        await send(pilot, "/resume")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session_id == first)
        await wait_for(pilot, lambda: "Summary: we said hello twice." in screen_text(app))
        assert "Earlier conversation, compacted" in screen_text(app)


async def test_a_looping_model_ends_with_a_stuck_notice(real):
    loop = {"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]}
    app = real.app([loop] * 20)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await turn_done(pilot)
        text = screen_text(app)
        assert "the model is stuck" in text
        assert len(real.provider.requests) == 4
        # one notice says it (issue 25 item 26: a second, "going round in circles", followed)
        from larik.tui.widgets.notice import Notice

        last = [str(n.text) for n in app.query(Notice)][-1:]
        assert last and last[0].startswith("stopped: the model is stuck"), last
        assert "going round in circles" not in text


TASK = {"name": "task", "input": {"role": "worker", "prompt": "look at calc"}, "id": "t1"}
SUB_READ = {"name": "glob", "input": {"pattern": "*.py"}, "id": "s1"}


async def test_a_task_card_lists_its_subagents_calls_live_and_after_a_resume(real):
    turns = [
        {"tool_calls": [TASK]},
        {"tool_calls": [SUB_READ]},
        {"text": "sub done"},
        {"text": "ok"},
    ]
    app = real.app(turns)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "delegate")
        await turn_done(pilot)
        [card] = [c for c in app.query(ToolCard) if c.tool_name == "task"]
        assert [s[:2] for s in card.steps.values()] == [["glob", "*.py"]]
        assert "1 subagent call" in screen_text(app)
        assert len(app.query(ToolCard)) == 1  # the subagent's call is inside, not beside it
        card.action_toggle()
        await pilot.pause()
        assert "glob  *.py" in screen_text(app)
        session = app.session_id
        await send(pilot, "/exit")
        await wait_for(pilot, lambda: not app.is_running)
    again = real.app([{"text": "more"}], resume=session)
    async with again.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "ok" in screen_text(again))
        [card] = [c for c in again.query(ToolCard) if c.tool_name == "task"]
        assert card.sub_transcript is not None and card.sub_transcript.name == "01-worker.jsonl"
        card.action_toggle()
        await pilot.pause()
        assert "glob  *.py" in screen_text(again)


async def test_slash_cost_names_provider_and_model_and_reads_costs_as_the_status_line(real):
    """issue 19 item 22: `—` where the status line said $0.0000; the provider was dropped."""
    app = real.app([{"text": "ok", "usage": {"input": 10, "output": 3}}], model="scripted/model-a")
    async with app.run_test(size=(120, 35)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await turn_done(pilot)
        await send(pilot, "/cost")
        await pilot.pause()
        table = app.chat.conv.items[-1].text
        assert "| scripted/model-a | 10 | 3 |" in table
        status_cost = screen_text(app).splitlines()[-1].split(" · ")[-2]
        assert f"**{status_cost}**" in table


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_slash_resume_lists_each_session_on_one_line_with_the_prompt_as_typed(real, size):
    """issue 19 item 23: long titles wrapped onto two lines and showed `<file path="…`."""
    (real.cwd / "notes.txt").write_text("remember the milk\n" * 3)
    long = "please look at @notes.txt and tell me " + "what it says about milk " * 6
    app = real.app([{"text": "answer one"}, {"text": "answer two"}])
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await send(pilot, long)
        await turn_done(pilot)
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: len(real.agents) == 2)
        await send(pilot, "another")
        await turn_done(pilot)
        await send(pilot, "/resume")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        await pilot.pause()
        shown = screen_text(app)
        rows = [line for line in shown.splitlines() if "msgs" in line]
        assert len(rows) == 1 and "please look at @notes.t" in rows[0], rows
        assert "<file" not in shown and "remember the milk" not in shown
        assert "what it says about milk" not in shown.split("msgs", 1)[1].split("\n", 2)[1]
        await pilot.press("escape")


async def test_slash_compact_says_one_line_with_the_context_before_and_after(real):
    """issue 19 item 24: three notices and no sizes."""
    from larik.tui.widgets.notice import Notice

    turns = [{"text": "answer one " * 200}, {"text": "Summary: one answer."}]
    app = real.app(turns)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await turn_done(pilot)
        shown = len(app.query(Notice))
        await send(pilot, "/compact")
        await turn_done(pilot)
        new = [n.text for n in list(app.query(Notice))[shown:]]
        assert len(new) == 1, new
        before, after = (int(x) for x in re.findall(r"~([\d,]+)", new[0].replace(",", "")))
        assert new[0].startswith("compacted 2 earlier messages into a summary: context ~")
        assert before > after > 0


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_a_request_that_fails_after_retries_is_one_line(real, size):
    """issue 19 item 25: three retry notices and the error were four lines."""
    from larik.llm.retry import RetryingProvider
    from larik.tui.widgets.notice import Notice

    async def no_wait(seconds: float) -> None:
        pass

    error = {"error": {"status": 500, "message": "the server is overloaded"}}
    app = real.app([error] * 4)
    real.provider = RetryingProvider(real.provider, sleep=no_wait, attempts=4)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        shown = len(app.query(Notice))
        await send(pilot, "hi")
        await turn_done(pilot)
        new = list(app.query(Notice))[shown:]
        assert [n.level for n in new] == ["error"], [n.text for n in new]
        assert "the server is overloaded" in new[0].text and "(tried 4 times)" in new[0].text
        assert "retry" not in screen_text(app)


async def test_a_budget_stop_is_a_notice_and_slash_cost_says_what_is_left(real):
    dollar = {"input": 10, "output": 1000}  # $1.00 at the price below
    real.config = Config.model_validate(
        {
            "models": {"scripted/model-a": {"input_price": 0.0, "output_price": 1000.0}},
            "budget": {"session_usd": 1.5},
        }
    )
    glob = {"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}], "usage": dollar}
    app = real.app([glob, {"text": "never sent", "usage": dollar}])
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "look around")
        await turn_done(pilot)
        text = screen_text(app)
        assert "would cross the session budget of $1.50" in text and "never sent" not in text
        assert "/cost shows what is left" in text
        assert len(real.provider.requests) == 1  # the second request was never made
        await send(pilot, "/cost")
        await wait_for(pilot, lambda: "$0.50 left" in screen_text(app))
        assert "session $1.50: $1.00 spent" in screen_text(app)


SECRET = "sk-live-0123456789abcdef"
LOOK = {
    "thinking": "I should look first.",
    "text": "Looking.",
    "tool_calls": [{"name": "glob", "input": {"pattern": "*.py"}}],
}


async def test_slash_export_writes_the_conversation_with_calls_results_and_thinking_collapsed(
    real,
):
    from larik.llm.secrets import remember

    remember(SECRET)
    app = real.app([LOOK, {"text": f"Done. The key was {SECRET}."}])
    async with app.run_test(size=(120, 35)) as pilot:
        await ready(pilot)
        await send(pilot, "look around")
        await turn_done(pilot)
        await send(pilot, "/export md notes/out.md")
        await wait_for(pilot, lambda: "exported the conversation" in screen_text(app))
    text = (real.cwd / "notes" / "out.md").read_text()
    assert "## You\n\nlook around" in text
    assert "<details><summary>Thinking</summary>\n\nI should look first." in text
    assert "**Tool call:** `glob`" in text and '"pattern": "*.py"' in text
    assert "**Result of `glob`:**" in text
    assert "The key was ***." in text and SECRET not in text
