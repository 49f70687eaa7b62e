"""Running one hook command: ``bash -c COMMAND`` in the project root, the event's JSON on stdin
(inside the OS sandbox when the caller gives its command line: :mod:`larik.hooks.runner`).

Like the bash tool (with the process-group helpers of :mod:`larik.processes`): the hook starts in
its own session, synchronously, so its process group is known before anything can interrupt
the start; on timeout, on an interrupt, or when something it left in the background still holds
its output open after it exited, the whole group is killed. It gets the bash tool's environment
(no credential variables; ``LARIK_BASH_KEEP_ENV`` keeps named ones) plus ``LARIK_PROJECT_DIR``
and ``CLAUDE_PROJECT_DIR`` (the project root, the variable Claude Code's hook scripts use).

Output is bounded: the first :data:`MAX_STDOUT` bytes of stdout and :data:`MAX_STDERR` of
stderr are kept, the rest read and dropped (counted), so a hook printing without end costs
memory it cannot grow. stdin is written without blocking, and a hook that does not read it is
fine (the broken pipe is expected).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from .. import host_programs
from ..processes import child_env, kill_group, read_pipe, start_token, wait_exit

__all__ = ["GRACE", "MAX_STDERR", "MAX_STDOUT", "Finished", "Head", "run_hook"]

MAX_STDOUT = 1 << 20  # a JSON answer, or context for the model: a mebibyte is plenty
MAX_STDERR = 64 << 10
GRACE = 1.0  # seconds the output may stay open after the hook exits


@dataclass
class Head:
    """The first ``cap`` bytes of a stream, and how many there were in all."""

    cap: int
    buf: bytearray = field(default_factory=bytearray)
    total: int = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.cap - len(self.buf)
        if room > 0:
            self.buf += chunk[:room]

    @property
    def over(self) -> bool:
        return self.total > self.cap

    def text(self) -> str:
        return self.buf.decode("utf-8", "replace")


@dataclass
class Finished:
    """How a hook ended. ``code`` is None when it never ran or was killed on timeout."""

    code: int | None
    stdout: Head
    stderr: Head
    timed_out: bool = False
    stray: bool = False  # it exited, but something it started held its output open: killed
    error: str = ""  # it could not be started


def hook_env(root: Path, *, sandboxed: bool = True) -> dict[str, str]:
    """The hook's environment: no credentials; unsandboxed, a ``PATH`` that leads into no
    project (:func:`larik.host_programs.host_env`: what a project, a model or a sandboxed
    command wrote does not run outside the sandbox by being found first)."""
    env = child_env()
    if not sandboxed:
        env = host_programs.host_env(env, root)
    env.update(LARIK_PROJECT_DIR=str(root), CLAUDE_PROJECT_DIR=str(root))
    return env


async def run_hook(
    command: str, payload: bytes, *, cwd: Path, timeout: float, argv: list[str] | None = None
) -> Finished:
    """``argv``: how it starts, when not ``bash -c COMMAND`` as it is (the OS sandbox's command
    line for it)."""
    out, err = Head(MAX_STDOUT), Head(MAX_STDERR)
    try:
        proc = subprocess.Popen(
            argv or [host_programs.find("bash", cwd), "-c", command],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env=hook_env(cwd, sandboxed=argv is not None),
        )
    except OSError as e:
        return Finished(None, out, err, error=e.strerror or str(e))
    pgid = proc.pid
    token = start_token(pgid)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    readers = [
        asyncio.create_task(read_pipe(proc.stdout, out.add)),
        asyncio.create_task(read_pipe(proc.stderr, err.add)),
    ]
    writer = asyncio.create_task(_write(proc.stdin, payload))
    timed_out = stray = False
    try:
        try:
            async with asyncio.timeout(timeout):
                await wait_exit(proc)
        except TimeoutError:
            timed_out = True
            kill_group(pgid, token)
            await wait_exit(proc)
        if not await _settled(readers):
            stray = True
            kill_group(pgid, token)
            await _settled(readers)
    finally:
        if proc.poll() is None or not all(r.done() for r in readers):
            kill_group(pgid, token)  # interrupted: take the whole group down
            proc.poll()
        for task in (*readers, writer):
            if not task.done():
                task.cancel()
        if not proc.stdin.closed:
            proc.stdin.close()
    code = None if timed_out else proc.returncode
    return Finished(code, out, err, timed_out=timed_out, stray=stray)


async def _settled(readers: list[asyncio.Task[None]]) -> bool:
    """Whether the output closed within GRACE."""
    try:
        async with asyncio.timeout(GRACE):
            await asyncio.shield(asyncio.gather(*readers))
    except TimeoutError:
        return False
    return True


async def _write(pipe: IO[bytes], data: bytes) -> None:
    """Write ``data`` to the hook's stdin without blocking the loop, then close it. A hook that
    exits without reading it breaks the pipe: that ends the write, it is no error."""
    loop = asyncio.get_running_loop()
    fd = pipe.fileno()
    os.set_blocking(fd, False)
    view = memoryview(data)
    done = loop.create_future()

    def writable() -> None:
        nonlocal view
        try:
            n = os.write(fd, view[:65536])
        except BlockingIOError:
            return
        except OSError:  # EPIPE: the hook closed its stdin
            n, view = 0, view[:0]
        view = view[n:]
        if not view and not done.done():
            done.set_result(None)

    try:
        if view:
            loop.add_writer(fd, writable)
            try:
                await done
            finally:
                loop.remove_writer(fd)
    finally:
        pipe.close()
