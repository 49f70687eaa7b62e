"""Resuming a long session: the newest items are widgets at once, the older ones are drawn into
the archive on idle (newest first), and all of it stays reachable by scrolling back.

The session is a real transcript (larik.agent.transcript) of 2,000 messages, resumed by the
real Agent, as ``larik --resume ID`` does; the model is scripted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from larik.agent import Agent
from larik.agent import transcript as tr
from larik.agent.sessions import project_dir
from larik.config import Config
from larik.llm.providers.scripted import ScriptedProvider
from larik.llm.types import Block, Message
from larik.routing import Resolved
from larik.tui.app import LarikApp
from larik.tui.widgets import rendered_lines
from larik.tui.widgets.conversation import KEEP, history_items
from larik.tui.widgets.notice import Notice
from larik.tui.widgets.streaming_markdown import StreamingMarkdown
from larik.tui.widgets.thinking import ThinkingBlock
from larik.tui.widgets.tool_card import ToolCard
from larik.tui.widgets.user_turn import UserTurn

from .conftest import ready, screen_text, wait_for

SESSION = "20261130-120000-long00"
MESSAGES = 2000


def long_session(count: int) -> list[Message]:
    """Prompts, each followed by calls (text, a tool call, thinking now and then) answered by
    a tool result, and a closing reply: ``count`` messages in all."""
    out: list[Message] = []
    turn = call = 0
    while len(out) < count:
        turn += 1
        out.append(Message.user(f"Prompt {turn}: fix module {turn}."))
        for _ in range(4):
            call += 1
            blocks = [Block.text_block(f"Step {call} of the change.")]
            if call % 4 == 0:
                blocks.insert(0, Block.thinking_block(f"thinking about step {call} " * 5))
            blocks.append(Block.tool_use(f"t{call}", "read_file", {"path": f"src/m{call}.py"}))
            out.append(Message(role="assistant", blocks=blocks, model="model-a"))
            result = "\n".join(f"line {i} of m{call}.py" for i in range(30))
            out.append(Message(role="user", blocks=[Block.tool_result(f"t{call}", result)]))
        out.append(
            Message(
                role="assistant",
                blocks=[
                    Block.text_block(f"Done with prompt {turn}:\n\n```python\nx = {turn}\n```")
                ],
                model="model-a",
            )
        )
    return out[:count]


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[Message]]:
    """A project with a 2,000-message session on disk; the messages written."""
    cwd = tmp_path / "project"
    cwd.mkdir()
    messages = long_session(MESSAGES)
    path = project_dir(cwd) / f"{SESSION}.jsonl"
    with monkeypatch.context() as patch:
        patch.setattr(tr.os, "fsync", lambda fd: None)  # the same bytes, written faster
        with tr.Transcript.create(path, cwd=cwd, session_id=SESSION, model="scripted/m") as t:
            for m in messages:
                t.append_message(m)
    return cwd, messages


def resumed_app(cwd: Path) -> LarikApp:
    provider = ScriptedProvider([{"text": "ok"}])

    def resolve(spec: str) -> Resolved:
        model = spec.partition("/")[2] or "model-a"
        return Resolved(provider, model, "scripted", None, f"scripted/{model}")

    config = Config()

    async def factory(*, approver: Any, model: str = "", resume: str | None = None) -> Any:
        return await Agent.create(
            cwd=cwd, config=config, model=model, approver=approver, resume=resume, resolver=resolve
        )

    async def no_local(config: Any = None) -> list:
        return []

    return LarikApp(factory, cwd=cwd, config=config, discover_local=no_local, resume=SESSION)


@pytest.fixture
def at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Older history drawn in one idle slice: a test that reads all of it waits for one slice,
    not for hundreds whose pace is the machine's (on a loaded one they outlasted the ceiling;
    the slicing itself is the next test's)."""
    monkeypatch.setattr(rendered_lines, "SLICE", 3600.0)


async def drawn(pilot: Any) -> None:
    """The agent is ready and the archive holds all the older history."""
    app = pilot.app
    await ready(pilot)
    await wait_for(pilot, lambda: app.chat.conv.archive.pending == 0, every=0.25)
    await pilot.pause()


async def test_a_long_resumed_session_shows_its_newest_items_and_takes_keys(session):
    cwd, messages = session
    app = resumed_app(cwd)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "2,000 messages" in screen_text(app))
        assert len(app.chat.conv.items) <= KEEP + 1  # the newest items, and the "resumed" notice
        assert app.chat.conv.archive.item_count + len(app.chat.conv.items) > KEEP + 1
        last = messages[-1].text().splitlines()[0]
        await wait_for(pilot, lambda: last in screen_text(app))
        await pilot.press("h", "i")
        assert app.chat.prompt.text == "hi"


async def test_older_history_is_reachable_by_scrolling_back_to_the_first_prompt(session, at_once):
    cwd, messages = session
    app = resumed_app(cwd)
    async with app.run_test(size=(100, 30)) as pilot:
        await drawn(pilot)
        archived = [line.strip() for line in app.chat.conv.archive.plain_lines()]
        first = archived.index("› Prompt 1: fix module 1.")
        assert first < archived.index("› Prompt 2: fix module 2.")
        assert any("read_file  src/m1.py" in line for line in archived)
        assert any("Thought (" in line for line in archived)
        app.chat.conv.scroll_home(animate=False)
        await pilot.pause()
        assert "Prompt 1: fix module 1." in screen_text(app)
        app.chat.conv.scroll_end(animate=False)
        await pilot.pause()
        assert messages[-1].text().splitlines()[0] in screen_text(app)


async def test_what_the_user_reads_stays_put_while_older_history_is_drawn_above(
    session, monkeypatch
):
    """Older history is drawn in idle slices, above what is shown: a view scrolled back keeps
    showing the same lines. (The slices are run by the test, one at a time.)"""
    cwd, _ = session
    slices: list[Any] = []
    monkeypatch.setattr(
        rendered_lines.RenderedLines, "_schedule_older", lambda self: slices.append(self)
    )
    monkeypatch.setattr(rendered_lines, "SLICE", 0.0)  # one item a slice
    app = resumed_app(cwd)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.pause()
        archive = app.chat.conv.archive
        assert slices and archive.pending == archive.item_count
        app.chat.conv.scroll_to(y=5, animate=False)
        await pilot.pause()
        before = conversation_text(app)
        for _ in range(30):
            archive._older_slice()
            await pilot.pause()
            assert conversation_text(app) == before
        assert 0 < archive.pending < archive.item_count


async def test_a_recent_tool_card_of_a_resumed_session_still_expands(session, at_once):
    cwd, _ = session
    app = resumed_app(cwd)
    async with app.run_test(size=(100, 30)) as pilot:
        await drawn(pilot)
        card = list(app.query(ToolCard))[-1]
        assert card.status == "ok" and not card.expanded
        card.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert card.expanded and "line 29 of" in screen_text(app)


async def test_an_item_archived_from_history_looks_like_its_widget_folded(harness):
    """The archive draws history without widgets; each kind must come out as its widget's own
    ``archived()`` would (same text, same style)."""
    messages = [
        Message.user("a question"),
        Message(
            role="assistant",
            blocks=[
                Block.thinking_block("pondering it"),
                Block.text_block("An **answer**."),
                Block.tool_use("t1", "bash", {"command": "ls"}),
            ],
            model="m",
            interrupted=True,
        ),
        Message(role="user", blocks=[Block.tool_result("t1", "boom", is_error=True)]),
    ]
    items = history_items(messages)
    assert [i.kind for i in items] == ["user", "thinking", "text", "tool", "notice"]
    widgets = [
        UserTurn("a question"),
        ThinkingBlock("pondering it", done=True),
        StreamingMarkdown("An **answer**.", classes="assistant"),
        ToolCard("bash", {"command": "ls"}, "", "t1"),
        Notice("interrupted", "warning"),
    ]
    widgets[3].finish("boom", is_error=True)
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await app.chat.conv.mount_all(widgets)
        await app.chat.conv.flush()
        await pilot.pause()
        for item, widget in zip(items, widgets, strict=True):
            ours = _lines(app, app.chat.conv.archived_form(item))
            theirs = _lines(app, widget.archived())  # type: ignore[attr-defined]
            assert ours == theirs, item.kind


def conversation_text(app: Any) -> str:
    """The screen without the scrollbar (its thumb moves as lines are added above)."""
    width = app.size[0]
    return "\n".join(line[: width - 2].rstrip() for line in screen_text(app).splitlines())


def _lines(app: Any, renderable: Any) -> list[Any]:
    console = app.console
    return list(console.render_lines(renderable, console.options.update_width(60)))
