"""Searching the conversation (issue 26 item 9): Ctrl+F or /find, tool output included, every
hit scrolled into view and marked, Enter and Shift+Enter (F3, Shift+F3) through them, Esc back
to the prompt; the archive of a long session searched as well."""

from __future__ import annotations

from typing import Any

from larik.config import Config
from larik.llm.types import Block, Message
from larik.tui.widgets.find_bar import FindBar
from larik.tui.widgets.tool_card import ToolCard

from .conftest import ready, screen_text, send, turn_done, wait_for
from .fake_agent import SESSIONS
from .test_keybindings import write_keys


def tool_session(session: str, output: str, *, turns: int = 3) -> None:
    """A session to resume: ``turns`` prompts, each with a read_file call whose long output
    (50 lines) holds ``output`` on its line 40 in the middle turn only, and a reply."""
    messages: list[Message] = []
    for t in range(turns):
        messages.append(Message.user(f"prompt {t}"))
        lines = [f"line {i} of file {t}" for i in range(50)]
        if t == turns // 2:
            lines[40] = output
        messages.append(
            Message(
                role="assistant",
                blocks=[
                    Block.text_block(f"Reading {t}."),
                    Block.tool_use(f"t{t}", "read_file", {"path": f"f{t}.py"}),
                ],
                model="model-a",
            )
        )
        messages.append(Message(role="user", blocks=[Block.tool_result(f"t{t}", "\n".join(lines))]))
        messages.append(Message(role="assistant", blocks=[Block.text_block(f"reply {t}")]))
    SESSIONS[session] = messages


def bar(app: Any) -> FindBar:
    return app.chat.query_one(FindBar)


def shown(app: Any) -> str:
    return screen_text(app)


async def step(pilot: Any, key: str) -> str:
    """Press ``key`` in the search bar; what the bar says once it changed."""
    before = bar(pilot.app).text
    await pilot.press(key)
    await wait_for(pilot, lambda: bar(pilot.app).text != before)
    return bar(pilot.app).text


async def test_slash_find_opens_the_folded_card_whose_output_holds_the_hit_and_scrolls_to_it(
    harness,
):
    tool_session("s1", "needle = compute_the_answer()", turns=9)
    app = harness.app([], resume="s1")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "reply 8" in shown(app))
        assert "compute_the_answer" not in shown(app)
        await send(pilot, "/find Compute_The")  # a capital: the case matters (smart case)
        await wait_for(pilot, lambda: "no hits" in bar(app).text)
        bar(app).input.value = "compute_the"
        await wait_for(pilot, lambda: bar(app).text == "hit 1 of 1")
        await wait_for(pilot, lambda: "needle = compute_the_answer()" in shown(app))
        card = next(c for c in app.query(ToolCard) if c.tool_id == "t4")
        assert card.expanded and card.marks  # opened, the occurrence marked
        assert app.focused is bar(app).input


async def test_next_and_previous_cycle_through_the_hits_and_wrap(harness):
    SESSIONS["s2"] = [
        m
        for i in range(4)
        for m in (
            Message.user(f"question {i} about the widget"),
            Message(role="assistant", blocks=[Block.text_block(f"answer {i}")]),
        )
    ]
    app = harness.app([], resume="s2")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "answer 3" in shown(app))
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: app.chat.query(FindBar) and app.focused is bar(app).input)
        await pilot.press(*"WIDGET".lower())
        await wait_for(pilot, lambda: bar(app).text == "hit 1 of 4")  # the newest first
        seen = [await step(pilot, key) for key in ("enter", "f3", "ctrl+g", "enter")]
        assert seen == ["hit 2 of 4", "hit 3 of 4", "hit 4 of 4", "hit 1 of 4"]  # up, round
        seen = [await step(pilot, key) for key in ("shift+f3", "down", "up")]
        assert seen == ["hit 4 of 4", "hit 3 of 4", "hit 4 of 4"]  # down, round, and back up


async def test_no_hits_is_one_line_and_esc_gives_the_prompt_its_focus(harness):
    app = harness.app([{"text": "Hello there."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await turn_done(pilot)
        await send(pilot, "/find zebra")
        await wait_for(pilot, lambda: bar(app).text == "no hits for 'zebra'")
        assert app.focused is bar(app).input and bar(app).display
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.focused is app.chat.prompt)
        assert not bar(app).display
        await pilot.press("h", "i")
        assert app.chat.prompt.text == "hi"


async def test_a_long_session_is_searched_archive_and_all_without_freezing(harness):
    """2,000 messages: most of them folded into the archive, not yet drawn when the search
    starts. The oldest hit is drawn on the way there, in slices (keys are taken meanwhile);
    an archived card's output is quoted in the bar (the card shows its one line there)."""
    messages: list[Message] = []
    for t in range(500):
        messages.append(Message.user(f"prompt {t}" + (": the OLDEST one" if t == 0 else "")))
        output = "\n".join(f"row {i}" for i in range(20)) + ("\nrare token" if t == 3 else "")
        messages.append(
            Message(
                role="assistant",
                blocks=[Block.text_block(f"step {t}"), Block.tool_use(f"c{t}", "bash", {})],
            )
        )
        messages.append(Message(role="user", blocks=[Block.tool_result(f"c{t}", output)]))
        messages.append(Message(role="assistant", blocks=[Block.text_block(f"done {t}")]))
    SESSIONS["long"] = messages
    app = harness.app([], resume="long")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "done 499" in shown(app), every=0.2)
        conv = app.chat.conv
        # the older history is folded into the archive; how much of it is drawn by now depends
        # on the machine's speed (an idle app draws it in slices), so the search must find the
        # hit either way — not drawn yet (it is drawn on the way there) or drawn
        await send(pilot, "/find oldest one")
        await wait_for(pilot, lambda: "the OLDEST one" in shown(app), every=0.2)
        assert bar(app).text == "hit 1 of 1" and conv.archive.marks
        bar(app).input.value = "rare token"
        await wait_for(pilot, lambda: bar(app).text.startswith("hit 1 of 1: "), every=0.2)
        assert bar(app).text == "hit 1 of 1: rare token"


async def test_keybindings_toml_rebinds_the_find_key_and_the_next_hit(harness):
    write_keys('find = "ctrl+k"\nfind_next = "ctrl+n"\n')
    SESSIONS["s3"] = [
        m
        for i in range(3)
        for m in (
            Message.user(f"ask {i}"),
            Message(role="assistant", blocks=[Block.text_block(f"apple {i}")]),
        )
    ]
    app = harness.app([], resume="s3", config=Config())
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: app.prefs.keymap is not None)
        await pilot.press("ctrl+f")  # no longer the find key
        await pilot.pause()
        assert not app.chat.query(FindBar)
        await pilot.press("ctrl+k")
        await wait_for(pilot, lambda: app.chat.query(FindBar) and app.focused is bar(app).input)
        await pilot.press(*"apple")
        await wait_for(pilot, lambda: bar(app).text == "hit 1 of 3")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: bar(app).text == "hit 2 of 3")


async def test_a_query_of_pattern_and_markup_characters_is_searched_as_it_is(harness):
    reply = "Use `re.sub(r'.*', x)` and [bold]not bold[/bold] here."
    app = harness.app([{"text": reply}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "what is [bold]?")
        await turn_done(pilot)
        await send(pilot, "/find .*")  # a pattern would match everything: literally, one hit
        await wait_for(pilot, lambda: bar(app).text == "hit 1 of 1")
        bar(app).input.value = "[bold]"  # in the prompt and the reply: drawn as typed
        await wait_for(pilot, lambda: bar(app).text == "hit 1 of 2")
        await pilot.press("enter")
        await wait_for(pilot, lambda: bar(app).text == "hit 2 of 2")
        text = shown(app)
        assert "what is [bold]?" in text and "[bold]not bold[/bold]" in text
        bar(app).input.value = "[/"
        await wait_for(pilot, lambda: bar(app).text == "hit 1 of 1")
        bar(app).input.value = "(?i)x"
        await wait_for(pilot, lambda: bar(app).text == "no hits for '(?i)x'")


async def test_smart_case_lowercase_ignores_case_and_a_capital_makes_it_matter(harness):
    SESSIONS["s4"] = [
        Message.user("why the Error?"),
        Message(role="assistant", blocks=[Block.text_block("an error, then an ERROR")]),
    ]
    app = harness.app([], resume="s4")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "then an ERROR" in shown(app))
        await send(pilot, "/find error")  # no capital: Error, error and ERROR alike
        await wait_for(pilot, lambda: bar(app).text == "hit 1 of 2")
        bar(app).input.value = "Error"  # a capital: as written, only the prompt's
        await wait_for(pilot, lambda: bar(app).text == "hit 1 of 1")
        assert bar(app).finder.hits[0].where is app.chat.conv.items[0]
        bar(app).input.value = "ERRor"
        await wait_for(pilot, lambda: bar(app).text == "no hits for 'ERRor'")
