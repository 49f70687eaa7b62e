"""The prompt: newlines, history, completion, @path attachments, !commands."""

from __future__ import annotations

import base64

from larik.tui.widgets.tool_card import ToolCard
from larik.tui.widgets.user_turn import UserTurn
from tests.patience import WAIT

from .conftest import ready, screen_text, send, turn_done, wait_for

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


async def test_ctrl_j_adds_a_line_and_enter_sends_the_whole_prompt(harness):
    app = harness.app([{"text": "ok"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press(*"line one", "ctrl+j", *"line two", "enter")
        await turn_done(pilot)
        assert harness.provider.requests[0].messages[0].text() == "line one\nline two"


async def test_shift_enter_adds_a_line(harness):
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("a", "shift+enter", "b")
        assert app.chat.prompt.text == "a\nb" and not harness.provider.requests


async def test_up_recalls_earlier_prompts_and_down_returns_to_the_draft(harness):
    app = harness.app([{"text": "1"}, {"text": "2"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "first")
        await turn_done(pilot)
        await send(pilot, "second")
        await turn_done(pilot)
        await pilot.press(*"dra")
        await pilot.press("up")
        assert app.chat.prompt.text == "second"
        await pilot.press("up")
        assert app.chat.prompt.text == "first"
        await pilot.press("down", "down")
        assert app.chat.prompt.text == "dra"


async def test_typing_a_slash_lists_matching_commands_and_tab_completes(harness):
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("/", "r")
        assert app.chat.menu.is_open
        labels = [c.value for c in app.chat.menu.items]
        assert labels == ["/routing", "/resume", "/rewind"]
        await pilot.press("down", "tab")
        assert app.chat.prompt.text == "/resume "
        assert not app.chat.menu.is_open


async def test_at_path_completion_and_attachment_of_text_and_image_files(harness):
    (harness.cwd / "notes.txt").write_text("remember the milk")
    (harness.cwd / "shot.png").write_bytes(PNG)
    app = harness.app([{"text": "seen"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press(*"read @no")
        assert [c.value for c in app.chat.menu.items] == ["@notes.txt"]
        await pilot.press("tab", *"and @shot.png", "enter")
        await turn_done(pilot)
        blocks = harness.provider.requests[0].messages[0].blocks
        assert blocks[0].text == "read @notes.txt and @shot.png"
        assert "remember the milk" in blocks[1].text
        assert blocks[-1].type == "image" and blocks[-1].media_type == "image/png"
        assert app.query_one(UserTurn).prompt == "read @notes.txt and @shot.png"


async def test_an_unreadable_attachment_is_a_warning_and_the_prompt_still_goes(harness):
    (harness.cwd / "a").symlink_to("b")
    (harness.cwd / "b").symlink_to("a")  # a loop: resolving it raises
    app = harness.app([{"text": "seen"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "read @a")
        await turn_done(pilot)
        assert [m.text() for m in harness.provider.requests[0].messages] == ["read @a"]
        assert "@a: cannot read it (Symlink loop" in screen_text(app)


async def test_bang_runs_a_shell_command_and_shows_output_and_exit_code(harness):
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "!echo hello-from-shell; exit 3")
        await wait_for(
            pilot, lambda: app.query(ToolCard) and app.query_one(ToolCard).status != "running"
        )
        card = app.query_one(ToolCard)
        assert card.status == "error" and card.data["exit_code"] == 3
        await wait_for(pilot, lambda: "hello-from-shell" in screen_text(app))
        assert "exit 3" in screen_text(app)
        assert not harness.provider.requests  # nothing was sent to the model


async def test_a_shell_command_that_cannot_start_says_why_on_its_card(harness):
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        harness.cwd.rmdir()  # the project directory went away
        await send(pilot, "!echo hi")
        await wait_for(
            pilot, lambda: app.query(ToolCard) and app.query_one(ToolCard).status != "running"
        )
        assert app.query_one(ToolCard).status == "error"
        await wait_for(
            pilot, lambda: "cannot run it: No such file or directory" in screen_text(app)
        )


async def test_prompt_history_is_kept_between_runs(harness, tmp_path):
    history = tmp_path / "state" / "prompt-history.jsonl"
    app = harness.app([{"text": "ok"}], history_path=history)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "a prompt\nover two lines")
        await turn_done(pilot)
    again = harness.app([], history_path=history)
    async with again.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("up")
        assert again.chat.prompt.text == "a prompt\nover two lines"


async def test_a_bang_command_printing_10_mb_shows_a_bounded_tail(harness):
    from larik.agent.tools.bash import MAX_OUTPUT

    app = harness.app([])
    script = "import sys; sys.stdout.write(('x' * 99 + '\\n') * 100_000 + 'THE-END\\n')"
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, f'!python3 -c "{script}"')
        await wait_for(
            pilot,
            lambda: app.query(ToolCard) and app.query_one(ToolCard).status != "running",
        )
        card = app.query_one(ToolCard)
        assert card.status == "ok" and card.data["exit_code"] == 0
        assert len(card.result) < MAX_OUTPUT + 200  # the tool's bound, not 10 MB
        assert card.result.startswith("[… 9,9") and "bytes of earlier output omitted" in card.result
        assert "THE-END" in card.result.splitlines()[-2]  # the tail is kept: that is the end
        await wait_for(pilot, lambda: "THE-END" in screen_text(app))  # the card shows its end


async def test_escape_stops_a_bang_command_and_its_children(harness, mark):
    from tests.procs import all_gone, carrying

    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, f"!(sleep {10 * WAIT:g}; true) & sleep {10 * WAIT:g}")
        await wait_for(pilot, lambda: len(carrying(mark)) >= 3)  # the shell, its child, sleeps
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.query_one(ToolCard).status == "interrupted")
        assert await all_gone(mark)  # the whole process group was killed


async def test_a_bang_command_gets_the_bash_tools_environment_without_credentials(
    harness, monkeypatch
):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-should-not-show")
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-should-not-show")
    monkeypatch.setenv("PLAIN_SETTING", "plain-shows")
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "!echo k=$ANTHROPIC_API_KEY t=$MY_SERVICE_TOKEN p=$PLAIN_SETTING")
        await wait_for(
            pilot, lambda: app.query(ToolCard) and app.query_one(ToolCard).status != "running"
        )
        assert "k= t= p=plain-shows" in app.query_one(ToolCard).result


async def test_a_command_typed_in_a_burst_runs_what_was_typed(harness):
    """``/`` then ``help`` and Enter faster than the completion list follows (issue 19 item 12):
    the keys are handled before the prompt's Changed messages, as a terminal's burst is."""
    from textual import events

    app = harness.app([])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        prompt = app.chat.prompt
        prompt.focus()
        await pilot.press("/")  # the list opens on every command, /model first
        await pilot.pause()
        for ch in "help":
            await prompt._on_key(events.Key(ch, ch))
        await prompt.run_action("send")  # what Enter's binding runs (larik/tui/bindings.py)
        await pilot.pause()
        await wait_for(pilot, lambda: "| key | does |" in app.chat.conv.items[-1].text)
        assert not prompt.text and "model" not in app.chat.conv.items[-1].text.split("\n")[0]


async def test_a_long_paste_is_one_placeholder_in_the_prompt_and_folded_in_the_conversation(
    harness,
):
    """issue 19 item 17: a 300-line paste was echoed in full."""
    from textual import events

    from larik.tui.widgets.user_turn import UserTurn

    pasted = "\n".join(f"log line {i}" for i in range(1, 301))
    app = harness.app([{"text": "seen"}])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        prompt = app.chat.prompt
        prompt.focus()
        await pilot.press(*"why? ")
        prompt.post_message(events.Paste(pasted))
        await pilot.pause()
        assert prompt.text == "why? [Pasted text #1 +300 lines]"
        await pilot.press("enter")
        await turn_done(pilot)
        assert harness.provider.requests[0].messages[-1].text() == f"why? {pasted}"
        shown = screen_text(app)
        assert "log line 4" in shown and "log line 5\n" not in shown + "\n"
        assert "+296 lines" in shown
        turn = app.query_one(UserTurn)
        turn.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert "log line 300" in str(turn.render())
