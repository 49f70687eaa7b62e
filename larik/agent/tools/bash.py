"""bash(command, timeout?): run a shell command in the project root.

The command runs in its own session (``start_new_session``), so on timeout or interrupt the
whole process group is killed (``os.killpg``), children included. Output (stdout and stderr
together) is capped with the *tail* kept, since that is where errors are; the exit code is
always reported. Background processes that keep the output open are stopped shortly after the
shell exits.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from pydantic import Field

from . import ToolArgs, ToolContext, ToolResult

NAME = "bash"
KIND = "exec"
DESCRIPTION = (
    "Run a bash command in the project root and return its output (stdout and stderr "
    "together, the end kept when long) and exit code. Default timeout 120 s, at most 600; "
    "on timeout the command and its children are killed. Do not start interactive programs."
)
DEFAULT_TIMEOUT = 120
MAX_TIMEOUT = 600
MAX_OUTPUT = 30_000  # characters of output kept (the tail)
GRACE = 1.0  # seconds to wait for the output to close after the shell exits


class Args(ToolArgs):
    command: str = Field(description="The command, run with bash -c.")
    timeout: float = Field(
        DEFAULT_TIMEOUT, gt=0, le=MAX_TIMEOUT, description="Seconds before it is killed."
    )


def target(args: Args) -> str:
    return args.command


def summary(args: Args) -> str:
    first = args.command.strip().splitlines()[0] if args.command.strip() else ""
    return first + (" …" if "\n" in args.command.strip() else "")


class _Tail:
    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.buf = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        self.buf += chunk
        over = len(self.buf) - self.cap * 2
        if over > 0:
            del self.buf[:over]
            self.dropped += over

    def text(self) -> str:
        s = self.buf.decode("utf-8", "replace")
        if len(s) > self.cap:
            self.dropped += len(s[: len(s) - self.cap].encode("utf-8"))
            s = s[len(s) - self.cap :]
        return s


def start_token(pid: int) -> str:
    """When process ``pid`` started (Linux: /proc), to tell it from a later process that reuses
    the pid; "" where that cannot be known."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[1].split()[19]


def kill_group(pgid: int, token: str = "") -> None:
    """SIGKILL process group ``pgid`` — unless its id now belongs to a different process.

    A group id stays reserved while any member lives, so the only reuse risk is a *new* process
    given the leader's pid after the whole group died; ``token`` (the leader's start time)
    tells it apart."""
    if token:
        now = start_token(pgid)
        if now and now != token:
            return
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


async def run(args: Args, ctx: ToolContext) -> ToolResult:
    env = {**os.environ, "PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
    proc = await asyncio.create_subprocess_exec(
        "bash",
        "-c",
        args.command,
        cwd=ctx.root,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
        env=env,
    )
    pgid = proc.pid  # a new session: its leader's pid is the group id
    token = start_token(pgid)
    ctx.processes[pgid] = token
    tail = _Tail(MAX_OUTPUT)
    reader = asyncio.create_task(_read(proc, tail))
    timed_out = stray = False
    try:
        try:
            async with asyncio.timeout(args.timeout):
                await _exited(proc)
        except TimeoutError:
            timed_out = True
            kill_group(pgid, token)
            await _exited(proc)
        try:
            async with asyncio.timeout(GRACE):
                await asyncio.shield(reader)
        except TimeoutError:
            stray = True  # a background child still holds the output open
            kill_group(pgid, token)
            async with asyncio.timeout(GRACE):
                await asyncio.shield(reader)
    finally:
        if proc.returncode is None:
            kill_group(pgid, token)  # interrupted (cancelled): take the whole group down
        if not reader.done():
            reader.cancel()
        ctx.processes.pop(pgid, None)
    return _result(args, proc.returncode, tail, timed_out, stray)


async def _exited(proc: asyncio.subprocess.Process) -> None:
    """Wait for the shell itself to exit. (``proc.wait()`` would also wait for every process
    holding its output open, such as a background server the command started.)"""
    delay = 0.002
    while proc.returncode is None:
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.05)


async def _read(proc: asyncio.subprocess.Process, tail: _Tail) -> None:
    assert proc.stdout is not None
    while chunk := await proc.stdout.read(65536):
        tail.add(chunk)


def _result(args: Args, code: int | None, tail: _Tail, timed_out: bool, stray: bool) -> ToolResult:
    out = tail.text()
    parts = []
    if tail.dropped:
        parts.append(f"[… {tail.dropped:,} bytes of earlier output omitted …]")
    parts.append(out.rstrip("\n") if out.strip() else "(no output)")
    if timed_out:
        parts.append(
            f"[timed out after {args.timeout:g} s: the command and its children were killed]"
        )
    elif stray:
        parts.append("[background processes still holding the output were stopped]")
    exit_code = code if code is not None else -1
    if code is not None and code < 0:
        parts.append(f"[killed by signal {-code}]")
    parts.append(f"[exit code {exit_code}]")
    return ToolResult(
        "\n".join(parts),
        is_error=timed_out,
        data={"exit_code": exit_code, "timed_out": timed_out},
    )
