"""StreamingMarkdown: deltas coalesced into frames, finished blocks frozen, nothing lost."""

from __future__ import annotations

import subprocess
import sys

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from larik.tui.widgets.streaming_markdown import StreamingMarkdown

from .conftest import wait_for

DOC = "".join(
    f"## Part {i}\n\nSome **text** for part {i}.\n\n```py\nx = {i}\n```\n\n" for i in range(30)
)


class _View(App):
    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield StreamingMarkdown()


async def test_many_deltas_written_at_once_are_painted_in_one_frame():
    app = _View()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(StreamingMarkdown)
        for i in range(0, len(DOC), 4):
            view.write(DOC[i : i + 4])
        await view.flush()
        await pilot.pause()
        assert view.frames == 1 and view.text == DOC


async def test_finished_blocks_are_frozen_and_only_the_last_block_stays_live():
    app = _View()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(StreamingMarkdown)
        for i in range(0, len(DOC), 50):
            view.write(DOC[i : i + 50])
            await view.flush()
        await pilot.pause()
        assert view.frames > 1 and view.text == DOC
        assert view.tail_text.strip() == ""  # every block is finished: all frozen
        assert "".join(view._frozen_text) == DOC.rstrip("\n") + "\n"
        view.write("A last paragraph, still growing")
        await view.flush()
        assert view.tail_text == "A last paragraph, still growing"


async def test_a_stream_keeps_painting_on_its_own_timer():
    app = _View()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(StreamingMarkdown)
        view.write("hello **world**")
        await wait_for(pilot, lambda: view.frames > 0, every=0.01)
        assert view.plain_lines() == ["hello world"]


def test_importing_the_tui_package_loads_no_textual_and_the_app_no_vendor_sdk():
    code = (
        "import sys, larik.tui; assert 'textual' not in sys.modules, 'textual';"
        "import larik.tui.app;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('anthropic', 'openai', 'google')];"
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
