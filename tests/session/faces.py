"""Face drivers: one behaviour, driven through each face that builds a Session.

A scenario (tests/session/test_behaviour.py) says what the user does — a prompt, an approval
or a refusal, Esc, ``/model``, a mode, a resume, a fork, an undo, quitting — and checks what
follows, through a :class:`Face`. Each face does it its own way: :class:`SessionFace` calls the
Session API (as the TUI and an editor over ACP do), :class:`PrintFace` runs ``larik -p`` once
per prompt, going on with ``--resume`` and answering approvals by the user's allow rules (print
mode's "dialog"). A face that cannot do a step says so (``can``) and the scenario skips it.
The next faces (the TUI through Textual's pilot, ``larik acp`` through the SDK's client side)
are one more class each here.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from larik.agent.events import AgentEventType, Approval, PermissionRequest
from larik.config import load_config
from larik.session import Session, SessionOptions
from tests.patience import WAIT

E = AgentEventType


@dataclass
class Result:
    """A tool call's outcome as the model was told it."""

    tool: str
    content: str
    is_error: bool


@dataclass
class Outcome:
    stop: str  # end_turn, cancelled, error, max_turns, …
    text: str = ""
    results: list[Result] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)  # tools the approval hook was asked about


def script(path: Path, *turns: dict[str, Any]) -> str:
    """A scripted model (docs/scripted.md) playing ``turns``; its spec."""
    path.write_text(json.dumps({"turns": list(turns)}))
    return f"scripted/{path}"


class Face:
    name = ""
    cannot: dict[str, str] = {}  # a step this face has no way to take (fork, undo, cancel): why
    buffers: dict[str, str] = {}  # the editor's unsaved files by project path, for start()

    def __init__(self, project: Path) -> None:
        self.project = project
        self.session_id = ""

    async def start(self, model: str, *, mode: str = "ask", resume: str | None = None) -> None:
        raise NotImplementedError

    async def prompt(self, text: str, *, approve: bool | None = None) -> Outcome:
        """``approve``: how the user answers a permission question (None: none expected)."""
        raise NotImplementedError

    async def cancel_mid_stream(self, text: str) -> Outcome:
        """Send ``text``, and interrupt the turn once its reply has started streaming."""
        raise NotImplementedError

    async def switch_model(self, spec: str) -> None:
        raise NotImplementedError

    async def set_mode(self, mode: str) -> None:
        raise NotImplementedError

    async def resume(self, session_id: str) -> None:
        raise NotImplementedError

    async def fork(self) -> None:
        """Go on in a copy of the session (``session_id`` is the copy's after the next prompt;
        the original is kept as it was)."""
        raise NotImplementedError

    async def undo(self) -> str:
        raise NotImplementedError

    async def bad_mode(self, mode: str) -> str:
        """Ask for permission mode ``mode`` (not one of Larik's): what the face answers."""
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


def _results(events: list[Any]) -> list[Result]:
    return [Result(e.tool_name, e.text, e.is_error) for e in events if e.type is E.TOOL_END]


class SessionFace(Face):
    """The Session API itself, as the TUI and ACP drive it."""

    name = "session"
    cannot = {"editor": "an editor is ACP's client (SessionOptions.editor): none here"}

    def __init__(self, project: Path) -> None:
        super().__init__(project)
        self.session: Session | None = None
        self.answer: bool | None = None
        self.asked: list[str] = []

    async def _approve(self, request: PermissionRequest) -> Approval:
        self.asked.append(request.tool_name)
        if self.answer is None:
            raise AssertionError(f"nobody expected a question about {request.tool_name}")
        return Approval(self.answer, reason="" if self.answer else "the user said no")

    async def start(self, model: str, *, mode: str = "ask", resume: str | None = None) -> None:
        config = load_config(self.project)
        options = SessionOptions(model=model, permission_mode=mode, resume=resume)
        self.session = Session(self.project, config, options, approver=self._approve)
        await self.session.start()
        self.session_id = self.session.session_id

    @property
    def s(self) -> Session:
        assert self.session is not None, "start() first"
        return self.session

    async def prompt(self, text: str, *, approve: bool | None = None) -> Outcome:
        from larik.session.attachments import attach

        self.answer, self.asked = approve, []
        events: list[Any] = []
        attached = await attach(self.s, text, self.project)  # a face attaches what @ names
        turn = self.s.send(attached.prompt())
        result = await turn.run(events.append)
        return Outcome(result.stop, result.text, _results(events), list(self.asked))

    async def cancel_mid_stream(self, text: str) -> Outcome:
        events: list[Any] = []
        turn = self.s.send(text)

        def seen(ev: Any) -> None:
            events.append(ev)
            if ev.type is E.TEXT_DELTA:
                self.s.cancel()  # Esc, from the face's side

        result = await asyncio.wait_for(turn.run(seen), WAIT)
        return Outcome(result.stop, result.text, _results(events))

    async def switch_model(self, spec: str) -> None:
        await self.s.settings.switch_model(spec)

    async def set_mode(self, mode: str) -> None:
        self.s.settings.set_mode(mode)

    async def bad_mode(self, mode: str) -> str:
        from larik.llm.errors import LarikError

        try:
            self.s.settings.set_mode(mode)
        except LarikError as e:
            return str(e)
        raise AssertionError(f"mode {mode!r} was taken")

    async def resume(self, session_id: str) -> None:
        await self.s.store.resume(session_id)
        self.session_id = self.s.session_id

    async def fork(self) -> None:
        self.session_id = await self.s.store.fork()

    async def undo(self) -> str:
        done = await self.s.store.undo()
        return done.summary() if done is not None else ""

    async def close(self) -> None:
        if self.session is not None:
            await self.session.close("prompt_input_exit")


class PrintFace(Face):
    """``larik -p``: one run per prompt, each going on with the session before it. The user's
    approval is the allow rule print mode applies (there is nobody to ask)."""

    name = "print"
    cannot = {"editor": "print mode runs in no editor: its file tools are Larik's own"}

    def __init__(self, project: Path) -> None:
        super().__init__(project)
        self.model = ""
        self.mode = "ask"
        self.resuming: str | None = None
        self.forking = False

    async def start(self, model: str, *, mode: str = "ask", resume: str | None = None) -> None:
        self.model, self.mode, self.resuming = model, mode, resume

    def _argv(self, text: str) -> list[str]:
        argv = ["-p", text, "-m", self.model, "--permission-mode", self.mode]
        if self.resuming:
            argv += ["--resume", self.resuming]
        if self.forking:  # the next run goes on in a copy: ``--resume ID --fork``
            argv.append("--fork")
            self.forking = False
        return [*argv, "--output-format", "stream-json"]

    def _allow(self, approve: bool | None) -> None:
        from larik.config import user_config_path

        path = user_config_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text('[permissions]\nallow = ["bash: echo *"]\n' if approve else "")

    async def prompt(self, text: str, *, approve: bool | None = None) -> Outcome:
        self._allow(approve)
        code, out, err = await asyncio.to_thread(_larik, self.project, *self._argv(text))
        return self._outcome(out, err)

    def _outcome(self, out: str, err: str) -> Outcome:
        lines = [json.loads(line) for line in out.splitlines() if line.strip()]
        assert lines and lines[-1]["type"] == "result", err
        result = lines[-1]
        self.session_id = self.resuming = result["session_id"]
        stop = {"interrupted": "cancelled"}.get(result["stop_reason"], result["stop_reason"])
        results = [
            Result(ev["tool_name"], ev.get("text", ""), ev["is_error"])
            for ev in lines
            if ev["type"] == "tool_end"
        ]
        return Outcome(stop, result["text"], results)

    async def cancel_mid_stream(self, text: str) -> Outcome:
        """A real process and a real Ctrl+C (SIGINT), once the reply streams."""
        proc = subprocess.Popen(
            [sys.executable, "-m", "larik.cli", *self._argv(text)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=self.project,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert proc.stdout is not None
        seen: list[str] = []
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            line = await asyncio.to_thread(proc.stdout.readline)
            seen.append(line)
            if not line or '"text_delta"' in line:
                break
        proc.send_signal(signal.SIGINT)
        rest, err = await asyncio.to_thread(proc.communicate, timeout=WAIT)
        return self._outcome("".join(seen) + rest, err)

    async def switch_model(self, spec: str) -> None:
        self.model = spec

    async def set_mode(self, mode: str) -> None:
        self.mode = mode

    async def bad_mode(self, mode: str) -> str:
        argv = ["-p", "hi", "-m", self.model, "--permission-mode", mode]
        code, out, err = await asyncio.to_thread(_larik, self.project, *argv)
        assert code == 2 and out == "", (code, out)
        return err.strip()

    async def resume(self, session_id: str) -> None:
        self.resuming = self.session_id = session_id

    async def fork(self) -> None:
        self.forking = True

    async def undo(self) -> str:
        code, out, err = await asyncio.to_thread(
            _larik, self.project, "undo", "--resume", self.session_id
        )
        assert code == 0, err
        return out.strip()

    async def close(self) -> None:
        pass  # every run closed its session as it ended


def _larik(cwd: Path, *argv: str) -> tuple[int, str, str]:
    """The real CLI entry, in this process (so a scripted model's requests can be read)."""
    from larik import cli

    out, err = io.StringIO(), io.StringIO()
    old = sys.argv, sys.stdin, sys.stdout, sys.stderr, Path.cwd()
    sys.argv, sys.stdin, sys.stdout, sys.stderr = ["larik", *argv], io.StringIO(), out, err
    os.chdir(cwd)
    try:
        cli.main()
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    finally:
        sys.argv, sys.stdin, sys.stdout, sys.stderr = old[:4]
        os.chdir(old[4])
    return code, out.getvalue(), err.getvalue()


from .acp_face import AcpFace  # noqa: E402  (built on the classes above)
from .tui_face import TuiFace  # noqa: E402

FACES = {f.name: f for f in (SessionFace, PrintFace, AcpFace, TuiFace)}
