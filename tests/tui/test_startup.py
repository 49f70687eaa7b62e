"""Starting up: the first frame comes before the config (pydantic) and the agent; a broken
config ends the app with exit code 2; the SDK warm-up thread pauses the collector, and a turn
started before it is done waits for it without freezing the screen."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static

from larik.llm.errors import ConfigError
from larik.tui import warmup
from larik.tui.app import LarikApp
from tests.patience import WAIT

from .conftest import ready, screen_text, send, turn_done, wait_for


def test_the_tui_app_imports_no_pydantic_and_no_markdown_before_its_first_frame():
    probe = (
        "import sys, larik.tui.app\n"
        "heavy = ('pydantic', 'larik.llm.types', 'larik.config', 'rich.markdown', 'typer',\n"
        "         'larik.tui.looks', 'larik.tui.prefs', 'larik.tui.vim', 'larik.tui.keys',\n"
        "         'larik.tui.images', 'larik.tui.find', 'larik.tui.widgets.find_bar',\n"
        "         'larik.tui.background', 'shlex')\n"
        "print(','.join(h for h in heavy if h in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


async def test_the_config_is_loaded_after_the_first_frame_and_used_from_then_on(harness, tmp_path):
    calls: list[bool] = []
    config = object()
    history = tmp_path / "history.jsonl"
    history.write_text(json.dumps("an earlier prompt") + "\n")

    def load() -> tuple[Any, Path | None]:
        calls.append(app.first_paint_done)
        return config, history

    app = harness.app([], config_loader=load)
    assert app.config is None
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert calls == [True]
        assert app.config is config and app.chat.status.config is config
        app.chat.prompt.focus()
        await pilot.press("up")
        assert app.chat.prompt.text == "an earlier prompt"


async def test_a_broken_config_ends_the_app_with_code_2_and_its_one_line(harness):
    def load() -> tuple[Any, Path | None]:
        raise ConfigError("/home/u/.config/larik/config.toml: max_turns: not a number")

    app = harness.app([], config_loader=load)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.startup_error)
        assert app.return_value == 2  # what run_tui returns
    assert app.startup_error == "larik: /home/u/.config/larik/config.toml: max_turns: not a number"
    assert harness.factory_calls == []


async def test_a_turn_sent_while_the_sdk_is_still_importing_waits_for_it_with_the_keys_live(
    harness, monkeypatch
):
    gate = threading.Event()
    monkeypatch.setattr(warmup, "warm", lambda modules: gate.wait(WAIT))
    app = harness.app([{"text": "the reply"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: app.chat.busy)
        assert harness.provider.requests == []  # the import is held: nothing was sent
        await pilot.press("o", "k")
        assert app.chat.prompt.text == "ok"
        gate.set()
        await turn_done(pilot)
        assert len(harness.provider.requests) == 1
        assert "the reply" in screen_text(app)


def test_the_warm_up_imports_with_the_collector_paused_and_freezes_what_it_loaded(monkeypatch):
    seen: list[bool] = []
    monkeypatch.setattr(warmup.importlib, "import_module", lambda name: seen.append(gc.isenabled()))
    gc.unfreeze()
    assert gc.isenabled()
    warmup.warm(("a", "b"))
    assert seen == [False, False] and gc.isenabled()
    assert gc.get_freeze_count() > 0


def test_the_warm_up_leaves_a_paused_collector_paused(monkeypatch):
    monkeypatch.setattr(warmup.importlib, "import_module", lambda name: None)
    gc.disable()
    try:
        warmup.warm(("a",))
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()


class _Question(ModalScreen[str]):
    BINDINGS = [("y", "dismiss('yes')")]

    def __init__(self) -> None:
        super().__init__(classes="modal")

    def compose(self) -> ComposeResult:
        yield Static("Answer me first (y)", classes="dialog")


async def test_a_modal_asked_at_start_up_comes_over_the_chat_screen_before_the_agent(harness):
    answers: list[str] = []

    class AsksFirst(LarikApp):
        async def start_up(self) -> None:
            if await self.load_config():
                answers.append(await self.push_screen_wait(_Question()))
                await self.chat.start()

    plain = harness.app([{"text": "hi there"}])
    app = AsksFirst(plain.chat.factory, cwd=harness.cwd, discover_local=plain.chat.discover_local)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: "Answer me first" in screen_text(app))
        assert isinstance(app.screen, _Question)
        assert "starting…" in screen_text(app)  # the chat screen is beneath it, painted
        assert harness.factory_calls == [] and app.chat.session.agent is None
        await pilot.press("y")
        await ready(pilot)
        assert answers == ["yes"] and app.screen is app.chat
        await send(pilot, "hello")
        await turn_done(pilot)
        assert "hi there" in screen_text(app)
