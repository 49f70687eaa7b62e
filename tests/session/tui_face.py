"""The TUI face of the behaviour suite: the real app (``LarikApp`` and its chat screen, on the
real Agent and the scripted model) driven by Textual's pilot as a user would — typing a
prompt and Enter, ``y``/``n`` in the permission modal, Esc, ``/model``, ``/permissions``,
``/resume``, ``/fork``, ``/undo``, ``/exit`` — and what followed read off the screen's
widgets: the reply's text, the tool cards (status and result), the notices ("interrupted", a
stop reason's note).

The app runs in a task of its own (``run_test`` sets Textual's context variables for the task
that enters it, and a scenario's steps and the fixture's teardown run in different tasks):
each step is handed to that task and awaited here.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from larik.config import load_config
from larik.session import SessionOptions

from ..tui.conftest import SIZE, send, wait_for
from .faces import WAIT, Face, Outcome, Result

Step = Callable[[Any], Awaitable[Any]]

# a stop reason's note in the conversation (larik/tui/widgets/conversation.py) -> the reason
_NOTED_STOPS = {
    "the reply hit the output token limit": "max_tokens",
    "the model refused": "refusal",
    "the turn ended with an error": "error",
}


class TuiFace(Face):
    name = "tui"
    cannot = {"editor": "the TUI runs in no editor: its file tools are Larik's own"}

    def __init__(self, project: Path) -> None:
        super().__init__(project)
        self.app: Any = None
        self._steps: asyncio.Queue[tuple[Step, asyncio.Future[Any]] | None] = asyncio.Queue()
        self._host: asyncio.Task[None] | None = None

    # -- the app's own task -------------------------------------------------------------------
    async def start(self, model: str, *, mode: str = "ask", resume: str | None = None) -> None:
        from larik.tui.app import LarikApp

        async def no_local(config: Any = None) -> list[Any]:
            return []

        self.app = LarikApp(
            cwd=self.project,
            config=load_config(self.project),
            model=model,
            resume=resume,
            discover_local=no_local,
            options=SessionOptions(permission_mode=mode),
        )
        self._steps = asyncio.Queue()
        started: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._host = asyncio.ensure_future(self._run(started))
        await asyncio.wait_for(asyncio.shield(started), WAIT)
        await self._do(
            lambda pilot: wait_for(pilot, lambda: self.chat.session.agent is not None, WAIT)
        )
        self.session_id = self.chat.session_id

    async def _run(self, started: asyncio.Future[None]) -> None:
        try:
            async with self.app.run_test(size=SIZE) as pilot:
                started.set_result(None)
                while (step := await self._steps.get()) is not None:
                    work, done = step
                    try:
                        done.set_result(await work(pilot))
                    except BaseException as e:  # the scenario's step failed: say so there
                        done.set_exception(e)
        except BaseException as e:
            if not started.done():
                started.set_exception(e)
            raise

    async def _do(self, work: Step) -> Any:
        """Run ``work(pilot)`` in the app's task."""
        assert self._host is not None and not self._host.done(), "the app is not running"
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self._steps.put((work, done))
        finished, _ = await asyncio.wait(
            {done, self._host}, timeout=WAIT * 2, return_when=asyncio.FIRST_COMPLETED
        )
        if done not in finished:
            if self._host in finished:
                self._host.result()  # the app's failure
            raise AssertionError("a step of the TUI face did not finish")
        return done.result()

    @property
    def chat(self) -> Any:
        return self.app.chat

    # -- reading the screen ---------------------------------------------------------------------
    def _items(self) -> list[Any]:
        return list(self.chat.conv.items)

    def _outcome(self, before: list[Any], asked: list[str]) -> Outcome:
        from larik.tui.widgets.notice import Notice
        from larik.tui.widgets.streaming_markdown import StreamingMarkdown
        from larik.tui.widgets.tool_card import ToolCard

        seen = {id(w) for w in before}
        new = [w for w in self._items() if id(w) not in seen]
        texts = [w.text for w in new if isinstance(w, StreamingMarkdown) and w.text]
        results = [
            Result(w.tool_name, w.result, w.status in ("error", "denied"))
            for w in new
            if isinstance(w, ToolCard)
        ]
        notes = [w.text for w in new if isinstance(w, Notice)]
        stop = "end_turn"
        if "interrupted" in notes:
            stop = "cancelled"
        else:
            stop = next((_NOTED_STOPS[n] for n in notes if n in _NOTED_STOPS), stop)
        return Outcome(stop, texts[-1] if texts else "", results, asked)

    def _turn_over(self) -> bool:
        worker = self.chat.turns.worker
        return not self.chat.busy and (worker is None or not worker.is_running)

    # -- the steps ---------------------------------------------------------------------------
    async def prompt(self, text: str, *, approve: bool | None = None) -> Outcome:
        from larik.tui.screens.permission import PermissionScreen
        from larik.tui.screens.plan import PlanScreen
        from larik.tui.widgets.user_turn import UserTurn

        async def step(pilot: Any) -> Outcome:
            before, asked = self._items(), []
            users = len([w for w in before if isinstance(w, UserTurn)])
            await send(pilot, text)
            await wait_for(
                pilot, lambda: len(self.chat.conv.query(UserTurn)) > users, WAIT
            )  # the prompt is the conversation's: its turn has started
            while True:
                await wait_for(
                    pilot,
                    lambda: isinstance(self.app.screen, PermissionScreen) or self._turn_over(),
                    WAIT,
                )
                if not isinstance(self.app.screen, PermissionScreen):
                    break
                dialog = self.app.screen
                asked.append(dialog.request.tool_name)
                if approve is None:
                    raise AssertionError(f"nobody expected a question: {asked}")
                await wait_for(pilot, dialog.armed)  # painted, and ARM seconds since: a key counts
                await pilot.press("y" if approve else "n")
                await wait_for(pilot, lambda: not isinstance(self.app.screen, PermissionScreen))
            await self.chat.conv.flush()
            await pilot.pause()
            if isinstance(self.app.screen, PlanScreen):  # a plan is not carried out unasked
                await pilot.press("escape")
            return self._outcome(before, asked)

        return await self._do(step)

    async def cancel_mid_stream(self, text: str) -> Outcome:
        from larik.tui.widgets.streaming_markdown import StreamingMarkdown

        async def step(pilot: Any) -> Outcome:
            before = self._items()
            seen = {id(w) for w in before}

            def streaming() -> bool:
                return any(
                    isinstance(w, StreamingMarkdown) and w.text and id(w) not in seen
                    for w in self._items()
                )

            await send(pilot, text)
            await wait_for(pilot, streaming, WAIT)
            await pilot.press("escape")
            await wait_for(pilot, self._turn_over, WAIT)
            return self._outcome(before, [])

        return await self._do(step)

    async def _command(self, line: str, done: Callable[[], bool]) -> str:
        """Type the slash command ``line``; wait until ``done()``; what it said (its notices)."""
        from larik.tui.widgets.notice import Notice

        async def step(pilot: Any) -> str:
            before = {id(w) for w in self._items()}
            await send(pilot, line)
            await wait_for(pilot, done, WAIT)
            await pilot.pause()
            said = [w.text for w in self._items() if isinstance(w, Notice) and id(w) not in before]
            return "\n".join(said)

        return await self._do(step)

    def _said_something(self) -> Callable[[], bool]:
        from larik.tui.widgets.notice import Notice

        before = {id(w) for w in self._items() if isinstance(w, Notice)}
        return lambda: any(isinstance(w, Notice) and id(w) not in before for w in self._items())

    async def switch_model(self, spec: str) -> None:
        said = await self._command(f"/model {spec}", self._said_something())
        assert said.startswith("model: "), said

    async def set_mode(self, mode: str) -> None:
        await self._command(
            f"/permissions {mode}", lambda: self.chat.session.permission_mode == mode
        )

    async def bad_mode(self, mode: str) -> str:
        return await self._command(f"/permissions {mode}", self._said_something())

    async def resume(self, session_id: str) -> None:
        await self._command(f"/resume {session_id}", lambda: self.chat.session_id == session_id)
        self.session_id = session_id

    async def fork(self) -> None:
        was = self.chat.session_id
        said = await self._command("/fork", lambda: self.chat.session_id != was)
        assert "forked" in said, said
        self.session_id = self.chat.session_id

    async def undo(self) -> str:
        return await self._command("/undo", self._said_something())

    async def close(self) -> None:
        """``/exit``: the app closes the session and leaves."""
        host, self._host = self._host, None
        if host is None:
            return

        async def leave(pilot: Any) -> None:
            await send(pilot, "/exit")
            loop = asyncio.get_running_loop()
            end = loop.time() + WAIT
            while self.app.return_code is None:  # the session closed, then the app exits
                assert loop.time() < end, "/exit did not end the app"
                await asyncio.sleep(0.02)

        try:
            if not host.done():
                self._host = host
                await self._do(leave)
                self._host = None
                await self._steps.put(None)
            await asyncio.wait_for(host, WAIT)  # run_test is over (and raises the app's error)
        finally:
            gc.unfreeze()  # the app froze objects out of the collector's sight (gcpolicy)
