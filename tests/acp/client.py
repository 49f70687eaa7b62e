"""The client side of the ACP tests: ``larik acp`` as a real subprocess, driven by the SDK's
own client (``acp.spawn_agent_process`` → ``ClientSideConnection``), and a client that records
what it is told and answers what it is asked as a test scripts it."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    FileSystemCapabilities,
    KillTerminalResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from tests.patience import WAIT

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Asked:
    title: str
    options: list[tuple[str, str]]  # (option id, kind)
    tool_call_id: str
    names: list[str] = field(default_factory=list)  # the options' labels


@dataclass
class Recorder:
    """An ACP client: every update kept; permissions answered from ``answers`` (an option
    kind: allow_once, allow_always, reject_once; "cancel": the cancelled outcome)."""

    updates: list[tuple[str, Any]] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    asked: list[Asked] = field(default_factory=list)
    on_update: Callable[[Any], None] | None = None
    files: dict[str, str] | None = None  # the editor's buffers (None: no fs capability)
    reads: list[str] = field(default_factory=list)
    writes: list[tuple[str, str]] = field(default_factory=list)
    read_reply: Callable[[str], Any] | None = None  # a lying editor's answer to fs reads
    terminals: bool = False
    commands: list[tuple[str, list[str]]] = field(default_factory=list)
    killed: list[str] = field(default_factory=list)
    _procs: dict[str, Any] = field(default_factory=dict)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))
        if self.on_update is not None:
            self.on_update(update)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.asked.append(
            Asked(
                tool_call.title or "",
                [(o.option_id, o.kind) for o in options],
                tool_call.tool_call_id,
                [o.name for o in options],
            )
        )
        want = self.answers.pop(0) if self.answers else "reject_once"
        if want == "cancel":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        picked = next(o.option_id for o in options if o.kind == want)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=picked)
        )

    # fs/*: the editor's buffers
    async def read_text_file(
        self, path: str, session_id: str, **kwargs: Any
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        if self.read_reply is not None:
            return self.read_reply(path)
        assert self.files is not None
        if path not in self.files:
            raise acp.RequestError.resource_not_found(path)
        return ReadTextFileResponse(content=self.files[path])

    async def write_text_file(
        self, content: str, path: str, session_id: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.writes.append((path, content))
        assert self.files is not None
        self.files[path] = content
        return WriteTextFileResponse()

    # terminal/*: commands run by the editor (here: real processes)
    async def create_terminal(
        self, command: str, session_id: str, args: list[str] | None = None, cwd: str | None = None,
        env: Any = None, output_byte_limit: int | None = None, **kwargs: Any,
    ) -> CreateTerminalResponse:  # fmt: skip
        self.commands.append((command, list(args or [])))
        proc = await asyncio.create_subprocess_exec(
            command, *(args or []), cwd=cwd, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        tid = f"term-{len(self._procs) + 1}"
        self._procs[tid] = [proc, bytearray(), asyncio.ensure_future(self._read(proc, tid))]
        return CreateTerminalResponse(terminal_id=tid)

    async def _read(self, proc: Any, tid: str) -> None:
        while chunk := await proc.stdout.read(65536):
            self._procs[tid][1] += chunk

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> TerminalOutputResponse:
        proc, buf, _ = self._procs[terminal_id]
        status = None
        if proc.returncode is not None:
            status = TerminalExitStatus(exit_code=proc.returncode if proc.returncode >= 0 else None)
        return TerminalOutputResponse(
            output=buf.decode(errors="replace"), truncated=False, exit_status=status
        )

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        proc, _, reader = self._procs[terminal_id]
        code = await proc.wait()
        await reader
        if code < 0:
            return WaitForTerminalExitResponse(exit_code=None, signal=f"signal {-code}")
        return WaitForTerminalExitResponse(exit_code=code)

    async def kill_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> KillTerminalResponse:
        self.killed.append(terminal_id)
        _end(self._procs[terminal_id][0])
        return KillTerminalResponse()

    async def release_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> ReleaseTerminalResponse:
        _end(self._procs[terminal_id][0])
        return ReleaseTerminalResponse()

    async def aclose(self) -> None:
        """Every terminal's process ended and reaped (none outlives the test's loop)."""
        for proc, _, reader in self._procs.values():
            _end(proc)
            await proc.wait()
            await reader

    # what was said
    def of(self, kind: str) -> list[Any]:
        return [u for _, u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(
            u.content.text for u in self.of(kind) if getattr(u.content, "type", "") == "text"
        )

    def capabilities(self) -> ClientCapabilities:
        fs = FileSystemCapabilities(
            read_text_file=self.files is not None, write_text_file=self.files is not None
        )
        return ClientCapabilities(fs=fs, terminal=self.terminals)


def _end(proc: Any) -> None:
    if proc.returncode is None:
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:  # it has just ended
            pass


def env() -> dict[str, str]:
    keep = ("LARIK_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "CLAUDE_CONFIG_DIR", "NO_COLOR")
    out = {k: os.environ[k] for k in keep if k in os.environ}
    out["PYTHONPATH"] = str(ROOT)
    return out


@asynccontextmanager
async def larik_acp(project: Path, client: Recorder, *args: str) -> AsyncIterator[tuple[Any, Any]]:
    """``larik acp ARGS`` in ``project``, connected to ``client``: (connection, process)."""
    async with acp.spawn_agent_process(
        client, sys.executable, "-m", "larik.cli", "acp", *args, env=env(), cwd=project,
        use_unstable_protocol=True,
    ) as (conn, proc):  # fmt: skip
        try:
            yield conn, proc
        finally:
            await client.aclose()


async def until(check: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
    """Poll ``check`` until it is truthy (no fixed sleeps)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def script(path: Path, *turns: dict[str, Any]) -> str:
    import json

    path.write_text(json.dumps({"turns": list(turns)}))
    return f"scripted/{path}"
