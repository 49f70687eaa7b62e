"""Your keys (issue 26 item 2): keybindings.toml beside your config rebinds every action
through Textual's keymap, binds keys to slash commands, reports what it cannot apply in one
line; /keys lists what is bound; a project cannot set keys."""

from __future__ import annotations

import re

from larik.config import Config, user_config_path
from larik.tui import keys
from larik.tui.app import LarikApp
from larik.tui.bindings import ACTIONS, PREFIX
from larik.tui.screens.chat import ChatScreen
from larik.tui.widgets.find_bar import FindInput
from larik.tui.widgets.prompt_input import PromptInput
from larik.tui.widgets.thinking import ThinkingBlock
from larik.tui.widgets.tool_card import ToolCard
from larik.tui.widgets.user_turn import UserTurn

from .conftest import ready, screen_text, send, turn_done, wait_for

OWNERS = {
    "app": [LarikApp],
    "screen": [ChatScreen],
    "prompt": [PromptInput],
    "card": [ToolCard, ThinkingBlock, UserTurn],
    "find": [FindInput],
}


def write_keys(text: str) -> None:
    path = user_config_path().with_name("keybindings.toml")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_every_action_is_a_binding_of_its_widget_and_the_defaults_do_not_clash():
    for name, action in ACTIONS.items():
        for cls in OWNERS[action.scope]:
            ids = {b.id for b in cls.BINDINGS if not isinstance(b, tuple)}
            assert PREFIX + name in ids, (name, cls.__name__)
            method = "action_" + action.action.split("(")[0]
            assert callable(getattr(cls, method, None)), (name, cls.__name__, method)
    assert keys._clashes(keys.defaults()) == []


async def test_rebound_send_and_newline_are_what_enter_and_ctrl_s_do(harness):
    write_keys('send = "ctrl+s"\nnewline = ["enter", "shift+enter"]\n')
    app = harness.app([{"text": "ok"}], config=Config())
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("a", "enter", "b")
        assert app.chat.prompt.text == "a\nb"
        await pilot.press("ctrl+s")
        await turn_done(pilot)
        assert harness.provider.requests[-1].messages[-1].text() == "a\nb"


async def test_a_key_for_the_mode_cycle_and_a_key_for_a_slash_command(harness):
    write_keys('mode_cycle = "ctrl+t"\n\n[commands]\n"f2" = "/vim"\n')
    app = harness.app([], config=Config())
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: app.chat.session.permission_mode == "edits")
        await pilot.press("shift+tab")  # no longer the mode cycle
        await pilot.pause()
        assert app.chat.session.permission_mode == "edits"
        await pilot.press("f2")
        await wait_for(pilot, lambda: "vim mode on" in screen_text(app))
        assert app.chat.prompt.vim is not None


async def test_conflicts_are_one_line_and_not_applied(harness):
    write_keys('send = "tab"\nnewline = "ctrl+u"\ninterrupt = "f5"\n')
    app = harness.app([{"text": "ok"}], config=Config())
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "conflicting keys" in screen_text(app))
        lines = [
            n.text for n in app.chat.conv.items if "conflicting keys" in getattr(n, "text", "")
        ]
        assert len(lines) == 1
        assert (
            "tab: send and to_cards" in lines[0] and "ctrl+u: newline and clear_before" in lines[0]
        )
        assert app.prefs.keymap.mine == {"interrupt"}  # the rest of the file applies
        await send(pilot, "still enter")  # send kept its default
        await turn_done(pilot)
        assert harness.provider.requests[-1].messages[-1].text() == "still enter"


async def test_what_cannot_be_applied_is_one_line_each_naming_the_file(harness):
    write_keys(
        'sned = "ctrl+s"\nnewline = "x"\nsend = "ctlr+s"\nquit = []\n\n[commands]\n"f3" = "theme"\n'
    )
    app = harness.app([], config=Config())
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "commands.f3" in screen_text(app))
        said = [getattr(n, "text", "") for n in app.chat.conv.items]
        path = str(user_config_path().with_name("keybindings.toml"))
        problems = [t for t in said if t.startswith(path)]
        assert len(problems) == 5, problems
        text = "\n".join(problems)
        assert "sned: unknown action (did you mean 'send'?)" in text
        assert "newline: 'x' is a key you type" in text
        assert "send: 'ctlr+s' is not a key" in text
        assert "quit: should be a key or a list of keys" in text
        assert 'commands.f3: should be a slash command ("/theme")' in text
        assert not app.prefs.keymap.mine and not app.prefs.keymap.commands


async def test_a_broken_keybindings_file_is_one_line_and_the_defaults_stay(harness):
    write_keys('send = "ctrl+s\n')
    app = harness.app([{"text": "ok"}], config=Config())
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "keybindings.to" in screen_text(app))
        said = [getattr(n, "text", "") for n in app.chat.conv.items if "keybindings" in n.text]
        assert len(said) == 1 and re.search(r"keybindings\.toml: .*line 1", said[0]), said
        await send(pilot, "hi")
        await turn_done(pilot)
        assert harness.provider.requests[-1].messages[-1].text() == "hi"


async def test_slash_keys_lists_what_is_bound_and_which_are_yours(harness):
    write_keys('send = "ctrl+s"\n\n[commands]\n"f2" = "/theme"\n')
    app = harness.app([], config=Config())
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press(*"/keys", "ctrl+s")
        await wait_for(pilot, lambda: "runs the command" in screen_text(app))
        table = app.chat.conv.items[-1].text  # the notice's Markdown
        assert "| `send` | `ctrl+s` (yours) |" in table
        assert "| `newline` | `shift+enter`, `ctrl+j` |" in table
        assert "| `/theme` | `f2` (yours) | runs the command |" in table
        assert str(user_config_path().with_name("keybindings.toml")) in table
        shown = screen_text(app)
        assert re.search(r"send\s+│\s+ctrl\+s \(yours\)", shown) or "ctrl+s (yours)" in shown


async def test_a_project_cannot_set_keys(harness):
    """Keys are the user's: a project's .larik/keybindings.toml (or a [tui] table) is not read
    for them, so a cloned repository cannot make Enter approve or send something else."""
    (harness.cwd / ".larik").mkdir()
    (harness.cwd / ".larik" / "keybindings.toml").write_text('send = "ctrl+s"\nnewline = "enter"\n')
    app = harness.app([{"text": "ok"}], config=Config())
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "enter sends")
        await turn_done(pilot)
        assert harness.provider.requests[-1].messages[-1].text() == "enter sends"
        assert app.prefs.keymap is None  # nothing read


async def test_enter_right_after_typing_sends_what_was_typed_before_it(harness):
    """A terminal's burst ("hi⏎" in one read): Enter's binding runs after the keys before it
    reached the prompt (a priority binding ran first and sent an empty prompt)."""
    from textual import events

    app = harness.app([{"text": "ok"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.chat.prompt.focus()
        await pilot.pause()
        for key, ch in (("h", "h"), ("i", "i"), ("enter", "\r")):
            app.post_message(events.Key(key, ch))
        await turn_done(pilot)
        await wait_for(pilot, lambda: harness.provider.requests)
        assert harness.provider.requests[-1].messages[-1].text() == "hi"


async def test_up_and_down_move_in_a_multi_line_prompt_and_walk_the_history_at_its_ends(harness):
    app = harness.app([{"text": "ok"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "earlier")
        await turn_done(pilot)
        prompt = app.chat.prompt
        prompt.load_text("one\ntwo\nthree")
        prompt.move_cursor((2, 1))
        await pilot.press("up")
        assert prompt.cursor_location == (1, 1) and prompt.text == "one\ntwo\nthree"
        await pilot.press("down")
        assert prompt.cursor_location == (2, 1)
        await pilot.press("up", "up", "up")  # the first line: the history
        assert prompt.text == "earlier"
