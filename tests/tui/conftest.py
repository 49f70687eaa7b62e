"""Helpers for the TUI tests: an app on the scripted provider, and waiting for it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from larik.llm.providers.scripted import ScriptedProvider
from larik.llm.types import EventType
from larik.tui.app import LarikApp
from larik.tui.local_servers import LocalModel
from tests.patience import WAIT

from .fake_agent import SESSIONS, FakeAgent

SIZE = (100, 30)


class Harness:
    """Builds apps whose agent plays ``turns`` and records what it was asked."""

    def __init__(self, tmp_path: Path) -> None:
        self.cwd = tmp_path / "project"
        self.cwd.mkdir()
        self.provider: ScriptedProvider | None = None
        self.agents: list[FakeAgent] = []
        self.factory_calls: list[dict[str, Any]] = []
        self.local: list[LocalModel] = []
        self.fail_with: Exception | None = None
        self.on_factory: Callable[[], None] | None = None

    def app(self, turns: list[dict[str, Any]], **kw: Any) -> LarikApp:
        self.provider = ScriptedProvider(turns)
        provider = self.provider
        counter = [0]

        async def factory(
            *, approver: Any, model: str = "", resume: str | None = None
        ) -> FakeAgent:
            self.factory_calls.append({"model": model, "resume": resume})
            if self.on_factory is not None:
                self.on_factory()
            if self.fail_with is not None:
                raise self.fail_with
            if resume and resume not in SESSIONS:
                from larik.agent.transcript import TranscriptError

                raise TranscriptError(f"no session {resume}")
            counter[0] += 1
            session = resume or f"session-{counter[0]}"
            agent = FakeAgent(provider, approver, model or "scripted/model-a", session)
            agent.root = self.cwd
            self.agents.append(agent)
            return agent

        async def discover(config: Any = None) -> list[LocalModel]:
            return list(self.local)

        kw.setdefault("config", None)
        return LarikApp(factory, cwd=self.cwd, discover_local=discover, **kw)

    @property
    def agent(self) -> FakeAgent:
        return self.agents[-1]

    def hold(self, before: Callable[[int, Any], bool] | None = None) -> asyncio.Event:
        """The next reply streams until ``before(i, event)`` says its ``i``-th event must wait
        (by default: its end), then waits until the returned event is set. A test that acts
        while a turn runs (types ahead, presses Esc, reads the thinking) holds the turn there,
        rather than racing a script's ``delay``, which a loaded machine outran."""
        assert self.provider is not None, "hold() after app()"
        provider, release, held = self.provider, asyncio.Event(), [False]
        stream = provider.stream
        stop = before or (lambda i, ev: ev.type is EventType.DONE)

        async def holding(request: Any) -> Any:
            first, held[0] = not held[0], True
            i = 0
            async for ev in stream(request):
                if first and not release.is_set() and stop(i, ev):
                    await release.wait()
                i += 1
                yield ev

        provider.stream = holding  # type: ignore[method-assign]
        return release


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    SESSIONS.clear()
    return Harness(tmp_path)


async def wait_for(
    pilot: Any, cond: Callable[[], Any], timeout: float = WAIT, every: float = 0.02
) -> None:
    """Let the app run until ``cond()`` is true (fails the test after ``timeout`` seconds,
    the suite's ceiling: reached only when it never holds), looking every ``every`` seconds.
    Each look is a round trip through every widget of the screen (``pilot.pause``): for a
    long wait on a screen of hundreds of widgets (a resumed session drawing its history), look
    less often, or the looking is most of the work. Returns with the app idle: a box whose
    first line was on screen has its other lines laid out too (on a loaded machine the test
    read the screen between a widget's new text and the layout that makes room for it)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {getattr(cond, '__name__', cond)}")
        await pilot.pause(every)
    await pilot.pause()


async def ready(pilot: Any) -> None:
    app = pilot.app
    await wait_for(pilot, lambda: app.chat.session.agent is not None)


async def send(pilot: Any, text: str) -> None:
    """Type ``text`` into the prompt and press Enter."""
    app = pilot.app
    app.chat.prompt.focus()
    app.chat.prompt.load_text(text)
    app.chat.prompt.move_cursor(
        (app.chat.prompt.document.line_count - 1, len(text.splitlines()[-1]) if text else 0)
    )
    app.chat.prompt.menu.close()
    await pilot.press("enter")


async def turn_done(pilot: Any) -> None:
    app = pilot.app
    turns = app.chat.turns
    await wait_for(
        pilot, lambda: not turns.busy and (turns.worker is None or not turns.worker.is_running)
    )
    await app.chat.conv.flush()
    await pilot.pause()


def screen_text(app: Any) -> str:
    """What the terminal shows (modals over their background), as plain text."""
    import io

    from rich.console import Console

    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    console.print(update)
    return "\n".join(line.rstrip() for line in console.export_text(styles=False).splitlines())


@pytest.fixture(autouse=True)
def _dialog_armed_once_painted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The permission dialog takes no choice for ``ARM`` seconds after its first frame (keys
    typed for the prompt as it opened), nor for ``QUIET`` seconds after a key that answered
    nothing. These tests press keys once it is on screen, as a person who read it would; the
    arming time itself is tested with a clock of its own (``test_permission_dialog.py``:
    ``…_typed_as_it_opens_…``, ``…_stray_…``)."""
    from larik.tui.screens.permission import PermissionScreen

    monkeypatch.setattr(PermissionScreen, "ARM", 0.0)
    monkeypatch.setattr(PermissionScreen, "QUIET", 0.0)
