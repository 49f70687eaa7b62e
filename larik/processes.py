"""Child processes in their own process group: the helpers the bash tool, the background jobs,
the hooks and the MCP servers all start, watch, read and end theirs with.

A child starts in a session of its own (``start_new_session``), so ending it ends what it
started too (``os.killpg``). Its leader's start time (:func:`start_token`) tells the group
apart from a later process that reuses the pid. Its output is read until every process holding
it open has closed it (:func:`read_pipe`), its exit seen as it happens (:func:`wait_exit`: a
pidfd on Linux). It never sees credentials (:func:`child_env`): the variables Larik's providers
read their keys from and, as Codex's default shell environment policy does, every variable
whose name contains KEY, SECRET, TOKEN or PASSWORD (any case) are left out, unless named in
``LARIK_BASH_KEEP_ENV`` (comma-separated names, in the user's own environment).

A leaf: it imports the standard library and, for the credential-free environment, which
lives in the lowest layer (:mod:`larik.llm.childenv`: the local engine uses it too), ``llm``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import IO

from .llm.childenv import KEEP_ENV, SECRET_NAME_PARTS, child_env, is_secret_name

__all__ = [
    "KEEP_ENV",
    "SECRET_NAME_PARTS",
    "child_env",
    "end_group",
    "is_secret_name",
    "kill_group",
    "read_pipe",
    "start_token",
    "wait_exit",
]


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


async def end_group(pgid: int, grace: float = 2.0) -> None:
    """SIGTERM process group ``pgid``, then SIGKILL what is left after ``grace`` seconds (an
    MCP server's children once the SDK's shutdown is over)."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            return
        for _ in range(int(wait / 0.05)):
            await asyncio.sleep(0.05)
            try:
                os.killpg(pgid, 0)
            except (ProcessLookupError, PermissionError):
                return


async def wait_exit(proc: subprocess.Popen[bytes]) -> None:
    """Wait for the shell itself to exit. (Waiting for the output to close would also wait for
    every process holding it open, such as a background server the command started.) On Linux
    a pidfd says the moment it exits; elsewhere it is polled, every 2 ms at first, then up to
    every 50 ms (a command that took 15 ms would be seen at 30 ms: benchmarks/sandbox.py)."""
    if proc.poll() is not None:
        return
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # not Linux, or a kernel before 5.3
        pidfd = -1
    if pidfd >= 0:
        loop = asyncio.get_running_loop()
        exited: asyncio.Future[None] = loop.create_future()

        def readable() -> None:
            if not exited.done():
                exited.set_result(None)

        loop.add_reader(pidfd, readable)
        try:
            await exited
        finally:
            loop.remove_reader(pidfd)
            os.close(pidfd)
        proc.wait()  # it has exited: this reaps it at once
        return
    delay = 0.002
    while proc.poll() is None:
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.05)


async def read_pipe(pipe: IO[bytes], add: Callable[[bytes], None]) -> None:
    """Read a child's output into ``add`` until every process holding it open has closed it
    (the hooks read theirs with it too)."""
    loop = asyncio.get_running_loop()
    fd = pipe.fileno()
    os.set_blocking(fd, False)
    eof = loop.create_future()

    def readable() -> None:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if chunk:
            add(chunk)
        elif not eof.done():
            eof.set_result(None)

    loop.add_reader(fd, readable)
    try:
        await eof
    finally:
        loop.remove_reader(fd)
        pipe.close()
