"""Slash commands in the app: unknown ones, /help, /effort, /cost, /permissions, /compact."""

from __future__ import annotations

from larik.tui.widgets.notice import Notice
from larik.tui.widgets.streaming_markdown import StreamingMarkdown

from .conftest import ready, screen_text, send, turn_done, wait_for


def notices(app) -> list[str]:
    return [n.text for n in app.query(Notice)]


async def test_an_unknown_command_says_so_and_shows_help(harness):
    app = harness.app([])
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "/frobnicate")
        await pilot.pause()
        assert "unknown command /frobnicate" in notices(app)
        await wait_for(pilot, lambda: "/routing" in screen_text(app))
        assert not harness.provider.requests


async def test_effort_sets_the_effort_of_the_next_request(harness):
    app = harness.app([{"text": "ok"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/effort high")
        await send(pilot, "go")
        await turn_done(pilot)
        assert harness.provider.requests[0].effort == "high"
        assert "effort high" in screen_text(app)
        await send(pilot, "/effort extreme")
        await pilot.pause()
        assert any("unknown effort" in n for n in notices(app))


async def test_cost_lists_usage_per_model_and_role(harness):
    app = harness.app([{"text": "ok", "usage": {"input": 1200, "output": 300}}])
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await turn_done(pilot)
        await send(pilot, "/cost")
        await wait_for(
            pilot, lambda: "scripted/model-a" in screen_text(app) and "1200" in screen_text(app)
        )
        assert "main" in screen_text(app)


async def test_permissions_sets_the_mode_shown_in_the_status_bar(harness):
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/permissions yolo")
        await pilot.pause()
        assert harness.agent.permission_mode == "yolo"
        assert screen_text(app).rstrip().endswith("yolo")


async def test_compact_runs_the_agents_compaction_and_shows_its_notice(harness):
    app = harness.app([{"text": "ok"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await turn_done(pilot)
        await send(pilot, "/compact")
        await turn_done(pilot)
        assert any(n.startswith("compacted") for n in notices(app))
        assert [m.text() for m in harness.agent.messages] == ["summary of the conversation"]


async def test_exit_quits(harness):
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/exit")
        await wait_for(pilot, lambda: not app.is_running)
    assert harness.agent.closed


async def test_a_commands_notice_is_scrolled_into_view_after_reading_back(harness):
    app = harness.app([{"text": "\n\n".join(f"para {i}" for i in range(60))}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await turn_done(pilot)
        app.conv.scroll_up(animate=False)
        app.conv.scroll_up(animate=False)
        await pilot.pause()
        await send(pilot, "/effort high")
        await pilot.pause()
        assert "effort: high (was default; from the next turn)" in screen_text(app)


async def test_a_command_during_a_reply_does_not_split_the_reply(harness):
    reply = "first part " * 30 + "\n\n" + "second part " * 30
    app = harness.app([{"text": reply, "delay": 0.02}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: app.query(StreamingMarkdown))
        await send(pilot, "/effort high")
        await turn_done(pilot)
        replies = list(app.query(StreamingMarkdown))
        assert len(replies) == 1 and replies[0].text == reply
        assert any(n.startswith("effort: high") for n in notices(app))


async def test_changing_the_permission_mode_is_confirmed_in_one_line(harness):
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        before = notices(app)
        await send(pilot, "/permissions edits")
        await pilot.pause()
        assert notices(app)[len(before) :] == [
            "permission mode: edits (was ask): edit freely, confirm commands"
        ]
