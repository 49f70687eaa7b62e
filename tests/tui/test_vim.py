"""Vim mode for the prompt (issue 26 item 3): /vim, normal and insert modes, the motions and
operators, counts, the mode in the status line, [tui] vim saved and read."""

from __future__ import annotations

import tomllib

import pytest

from larik.config import Config, user_config_path

from .conftest import ready, screen_text, send, turn_done, wait_for


def status_line(app) -> str:
    return screen_text(app).rstrip().splitlines()[-1].strip()


async def normal(pilot, text: str, at: tuple[int, int]) -> None:
    """The prompt holding ``text``, the cursor at ``at``, in normal mode."""
    prompt = pilot.app.chat.prompt
    prompt.load_text(text)
    prompt.menu.close()
    prompt.vim.set_mode("normal")
    prompt.move_cursor(at)
    await pilot.pause()


# (text, cursor, keys, text after, cursor after)
CASES = [
    ("hello world", (0, 6), "h", "hello world", (0, 5)),
    ("hello world", (0, 0), "3l", "hello world", (0, 3)),
    ("hello world", (0, 0), "l" * 20, "hello world", (0, 10)),  # never past the last char
    ("one\ntwo\nthree", (0, 1), "j", "one\ntwo\nthree", (1, 1)),
    ("one\ntwo\nthree", (2, 1), "2k", "one\ntwo\nthree", (0, 1)),
    ("foo bar.baz qux", (0, 0), "w", "foo bar.baz qux", (0, 4)),
    ("foo bar.baz qux", (0, 0), "3w", "foo bar.baz qux", (0, 8)),
    ("foo bar\nbaz", (0, 4), "w", "foo bar\nbaz", (1, 0)),
    ("foo bar.baz qux", (0, 12), "b", "foo bar.baz qux", (0, 8)),
    ("foo bar.baz qux", (0, 12), "2b", "foo bar.baz qux", (0, 7)),
    ("foo bar baz", (0, 0), "e", "foo bar baz", (0, 2)),
    ("foo bar baz", (0, 2), "e", "foo bar baz", (0, 6)),
    ("foo bar baz", (0, 5), "0", "foo bar baz", (0, 0)),
    ("foo bar baz", (0, 1), "$", "foo bar baz", (0, 10)),
    ("hello", (0, 1), "x", "hllo", (0, 1)),
    ("hello", (0, 1), "3x", "ho", (0, 1)),
    ("hello", (0, 4), "x", "hell", (0, 3)),
    ("one\ntwo\nthree", (1, 2), "dd", "one\nthree", (1, 0)),
    ("one\ntwo\nthree", (0, 0), "2dd", "three", (0, 0)),
    ("one\ntwo\nthree", (2, 0), "dd", "one\ntwo", (1, 0)),
    ("foo bar baz", (0, 0), "dw", "bar baz", (0, 0)),
    ("foo bar baz", (0, 0), "2dw", "baz", (0, 0)),
    ("foo bar baz", (0, 0), "d2w", "baz", (0, 0)),
    ("foo bar\nbaz", (0, 4), "dw", "foo \nbaz", (0, 3)),  # dw stops at the line's end
    ("foo bar baz", (0, 4), "d$", "foo ", (0, 3)),
    ("foo bar baz", (0, 0), ":q", "foo bar baz", (0, 0)),  # no command line
    ("foo", (0, 1), "zqZ", "foo", (0, 1)),  # other letters do nothing
]


@pytest.mark.parametrize(("text", "at", "keys", "after", "cursor"), CASES)
async def test_vim_normal_mode_motions_and_operators(harness, text, at, keys, after, cursor):
    app = harness.app([], config=Config.model_validate({"tui": {"vim": True}}))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await normal(pilot, text, at)
        await pilot.press(*keys)
        assert (app.chat.prompt.text, app.chat.prompt.cursor_location) == (after, cursor)
        assert app.chat.prompt.vim.mode == "normal"


INSERTS = [  # (keys, text typed after them, the result)
    ("i", "X", "heXllo"),
    ("a", "X", "helXlo"),
    ("A", "X", "helloX"),
    ("I", "X", "  Xhello"),
    ("o", "X", "hello\nX"),
    ("cw", "yo", "  yo"),
    ("2cw", "yo", "yo"),
]


@pytest.mark.parametrize(("keys", "typed", "after"), INSERTS)
async def test_vim_keys_that_go_to_insert_mode(harness, keys, typed, after):
    app = harness.app([], config=Config.model_validate({"tui": {"vim": True}}))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        start = "  hello" if keys in ("I", "cw") else ("hello you" if keys == "2cw" else "hello")
        at = {"I": (0, 4), "cw": (0, 2), "2cw": (0, 0)}.get(keys, (0, 2))
        await normal(pilot, start, at)
        await pilot.press(*keys)
        assert app.chat.prompt.vim.mode == "insert"
        await pilot.press(*typed)
        assert app.chat.prompt.text == after


async def test_slash_vim_turns_it_on_shows_the_mode_and_saves_it(harness):
    app = harness.app([{"text": "sent"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/vim")
        await wait_for(pilot, lambda: "vim mode on" in screen_text(app))
        await wait_for(pilot, lambda: status_line(app).startswith("INSERT scripted/model-a"))
        tui = tomllib.loads(user_config_path().read_text())["tui"]
        assert tui == {"vim": True}
        await pilot.press(*"hello world")
        await pilot.press("escape")
        await wait_for(pilot, lambda: status_line(app).startswith("NORMAL"))
        await pilot.press("b", "d", "w", "u")  # deleted, then undone
        assert app.chat.prompt.text == "hello world"
        await pilot.press("0", "x", "x")
        assert app.chat.prompt.text == "llo world"
        await pilot.press("enter")  # Enter sends from normal mode too
        await turn_done(pilot)
        assert "llo world" in screen_text(app) and app.chat.prompt.text == ""
        await wait_for(pilot, lambda: status_line(app).startswith("INSERT"))  # type the next
        await send(pilot, "/vim")
        await wait_for(pilot, lambda: "vim mode off" in screen_text(app))
        await wait_for(pilot, lambda: status_line(app).startswith("scripted/model-a"))
        assert tomllib.loads(user_config_path().read_text())["tui"] == {"vim": False}
        await pilot.press("escape", "x")  # an ordinary prompt again
        assert app.chat.prompt.text == "x"


async def test_vim_k_on_the_first_line_walks_the_history_and_esc_in_normal_interrupts(harness):
    app = harness.app([{"text": "one"}], config=Config.model_validate({"tui": {"vim": True}}))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "an earlier prompt")
        await turn_done(pilot)
        await pilot.press("escape", "k")
        assert app.chat.prompt.text == "an earlier prompt"
        await pilot.press("j")
        assert app.chat.prompt.text == ""


async def test_vim_mode_is_off_by_default(harness):
    app = harness.app([], config=Config())
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert app.chat.prompt.vim is None and not app.chat.status.vim
        await pilot.press("escape", "x")
        assert app.chat.prompt.text == "x"


async def test_a_huge_count_is_capped_not_a_frozen_screen(harness):
    """``99999999u`` ran a hundred million undos; ``99999999d99999999w`` multiplied them."""
    app = harness.app([], config=Config.model_validate({"tui": {"vim": True}}))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await normal(pilot, "foo bar baz", (0, 0))
        prompt, undos = app.chat.prompt, []

        def undo() -> None:
            undos.append(1)
            assert len(undos) <= 10_000, "the count was not capped"

        prompt.undo = undo
        await pilot.press(*"99999999u")
        assert 0 < len(undos) <= 9999
        await pilot.press(*"99999999d99999999w")
        assert prompt.text == "" and prompt.vim.mode == "normal"
