"""The conversation view on a streamed reply."""

from __future__ import annotations

from larik.llm.types import EventType
from larik.tui.widgets.streaming_markdown import StreamingMarkdown
from larik.tui.widgets.user_turn import UserTurn

from .conftest import ready, screen_text, send, turn_done, wait_for

REPLY = "# Plan\n\nFirst **read** the file.\n\n```python\nprint('hi')\n```\n\nThen done.\n"


async def test_a_streamed_reply_is_shown_as_markdown_under_the_prompt(harness):
    app = harness.app([{"text": REPLY}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "make a plan")
        await turn_done(pilot)
        users = list(app.query(UserTurn))
        assert [u.prompt for u in users] == ["make a plan"]
        replies = list(app.query(StreamingMarkdown).filter(".assistant"))
        assert len(replies) == 1 and replies[0].text == REPLY
        shown = screen_text(app)
        assert "Plan" in shown and "print('hi')" in shown and "Then done." in shown
        assert "# Plan" not in shown  # rendered, not raw


async def test_old_items_fold_into_the_archive_and_stay_readable(harness, monkeypatch):
    from larik.tui.widgets import conversation

    # the folding of KEEP = 40 and SLACK = 20 in 12 turns rather than 40 (16 items still
    # overflow the screen, as 40 do)
    monkeypatch.setattr(conversation, "KEEP", 16)
    monkeypatch.setattr(conversation, "SLACK", 4)
    turns = [{"text": f"answer {i}"} for i in range(12)]
    app = harness.app(turns)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        for i in range(12):
            await send(pilot, f"question {i}")
            await turn_done(pilot)
        assert len(app.chat.conv.items) <= 16 + 4
        archived = "\n".join(app.chat.conv.archive.plain_lines())
        assert "› question 0" in archived and "answer 0" in archived
        app.chat.conv.scroll_home(animate=False)
        await pilot.pause()
        assert "question 0" in screen_text(app)


async def test_thinking_shows_while_it_streams_and_folds_when_the_answer_starts(harness):
    from larik.tui.widgets.thinking import ThinkingBlock

    app = harness.app([{"thinking": "step " * 60, "text": "The answer."}])
    release = harness.hold(lambda i, ev: ev.type is EventType.TEXT_DELTA)  # the thinking only
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "think first")
        await wait_for(pilot, lambda: app.query(ThinkingBlock) and "step" in screen_text(app))
        block = app.query_one(ThinkingBlock)
        assert not block.collapsed and "Thinking" in screen_text(app)
        release.set()
        await turn_done(pilot)
        assert block.collapsed and "step step" not in screen_text(app)
        assert "Thought for" in screen_text(app) and "The answer." in screen_text(app)
        await pilot.click(ThinkingBlock)
        await pilot.pause()
        assert not block.collapsed and "step step" in screen_text(app)


async def test_selected_reply_text_is_copied_by_ctrl_c_without_quitting(harness):
    from textual.geometry import Offset
    from textual.selection import Selection

    app = harness.app([{"text": "Copy this line.\n\nAnd not this one."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await turn_done(pilot)
        reply = app.query(StreamingMarkdown).filter(".assistant").first()
        app.screen.selections = {reply: Selection(Offset(0, 0), Offset(15, 0))}
        await pilot.pause()
        assert "Copy this line." in screen_text(app)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.clipboard == "Copy this line."
        await pilot.press("ctrl+c")  # a first press after the copy: not a quit yet
        await pilot.pause()
        assert app.is_running
