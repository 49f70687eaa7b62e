"""Which host processes a test's commands left running, found by a mark in their environment.

A sandboxed command runs in its own pid namespace (issue 22 item 1): the pids it prints (``$$``,
``$!``, ``os.getpid()``) are that namespace's, not the host's, so a test cannot look them up in
the host's /proc. Every process a command starts inherits its environment, though: a test sets
``LARIK_TEST_MARK`` (a variable the bash tool passes on; the ``mark`` fixture of conftest.py) and
asks which processes carry it.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.patience import WAIT

MARK_VARIABLE = "LARIK_TEST_MARK"


def dead(pid: int) -> bool:
    """Whether host process ``pid`` has ended: gone, or a zombie nobody has reaped yet (it runs
    nothing). A process reaped while its ``stat`` is read fails the read with ESRCH
    (ProcessLookupError), not FileNotFoundError: dead too (seen in CI, at four workers)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


async def gone(pid: int, wait: float = WAIT) -> bool:
    """Whether process ``pid`` is :func:`dead` within ``wait`` seconds."""
    import asyncio

    loop = asyncio.get_running_loop()
    end = loop.time() + wait
    while not dead(pid):
        if loop.time() > end:
            return False
        await asyncio.sleep(0.02)
    return True


def carrying(mark: str) -> list[int]:
    """Host pids of the live processes (zombies excluded) started with ``mark``."""
    needle = f"{MARK_VARIABLE}={mark}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            env = (proc / "environ").read_bytes()
        except OSError:
            continue
        if needle in env.split(b"\0"):
            found.append(int(proc.name))
    return found


async def all_gone(mark: str, wait: float = WAIT) -> bool:
    """Whether every process started with ``mark`` has ended within ``wait`` seconds."""
    import asyncio

    loop = asyncio.get_running_loop()
    end = loop.time() + wait
    while carrying(mark):
        if loop.time() > end:
            return False
        await asyncio.sleep(0.02)
    return True
