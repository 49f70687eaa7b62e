"""A stdio MCP server's process: its command line (in the OS sandbox, or the user's own program
found outside the project), the last lines it writes on stderr, and the end of its process
group after the SDK's shutdown (a server that exits on EOF can leave children: npx and its
node). The SDK starts the process (``stdio_client``) and does not expose it; /proc finds it.
"""

from __future__ import annotations

import asyncio
import os
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import host_programs
from ..processes import end_group
from .config import ExpandedServer, McpServerConfig
from .sdk import StartError

if TYPE_CHECKING:
    from ..sandbox import Sandbox

__all__ = [
    "STDERR_BYTES",
    "STDERR_LINES",
    "StderrTail",
    "box_for",
    "command_line",
    "last",
    "stdio_streams",
]

STDERR_LINES = 20
STDERR_BYTES = 8192


@dataclass
class StderrTail:
    """The last lines a server wrote to stderr (bounded in lines and bytes)."""

    lines: deque[str] = field(default_factory=lambda: deque(maxlen=STDERR_LINES))
    partial: str = ""

    def feed(self, data: bytes) -> None:
        text = self.partial + data.decode("utf-8", "replace")
        *done, self.partial = text.split("\n")
        self.partial = self.partial[-STDERR_BYTES:]
        for line in done[-STDERR_LINES:]:
            self.lines.append(line[:500])

    def text(self) -> str:
        lines = [*self.lines, *([self.partial] if self.partial else [])]
        return "\n".join(line for line in lines if line.strip())[-STDERR_BYTES:]


def last(tail: str) -> str:
    """The last three lines of a stderr tail, on one line."""
    lines = [line for line in tail.splitlines() if line.strip()]
    return " | ".join(lines[-3:])[-300:]


class _StderrReader(asyncio.Protocol):
    def __init__(self, tail: StderrTail, on_eof: Callable[[], None]) -> None:
        self.tail, self.on_eof = tail, on_eof

    def data_received(self, data: bytes) -> None:
        self.tail.feed(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.on_eof()


def box_for(
    exp: ExpandedServer, config: McpServerConfig, sandbox: Sandbox | None, root: Path
) -> Sandbox | None:
    """The OS sandbox the server runs in (``sandbox``: the session's), None for none."""
    from ..sandbox.programs import entry_box

    return entry_box(
        sandbox,
        user=config.user,
        unsandboxed=config.unsandboxed,
        network=config.network,
        words=[exp.command, *exp.args],
        root=root,
    )


def command_line(exp: ExpandedServer, cwd: Path, box: Sandbox | None, root: Path) -> list[str]:
    """The server's command line, inside ``box`` unless it runs outside."""
    from ..sandbox.programs import program_path

    if box is None:
        return [_own_program(exp.command, cwd), *exp.args]
    program = program_path(exp.command, exp.env, cwd)
    if program is None:  # said as the unsandboxed start says it, not as bwrap would
        raise StartError(f"cannot start {exp.command!r}: No such file or directory")
    argv = [program, *exp.args]
    if cwd.resolve() != root.resolve():  # bwrap starts it in the root
        return box.wrap(["env", "-C", str(cwd), "--", *argv], root)
    return box.wrap(argv, root)


@asynccontextmanager
async def stdio_streams(
    exp: ExpandedServer,
    argv: list[str],
    cwd: Path,
    *,
    sandboxed: bool,
    tail: StderrTail,
    on_eof: Callable[[], None],
) -> AsyncIterator[Any]:
    """The SDK's streams to the server ``argv`` starts; its stderr goes to ``tail``, and
    ``on_eof`` is called when it closes (the server exited)."""
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = exp.env or None
    if not sandboxed:  # what it starts is found outside the project too
        from mcp.client.stdio import get_default_environment

        env = host_programs.host_env({**get_default_environment(), **(exp.env or {})}, cwd)
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=str(cwd))
    read_fd, write_fd = os.pipe()
    pipe_inode = os.fstat(write_fd).st_ino
    errlog = os.fdopen(write_fd, "w")
    loop = asyncio.get_running_loop()
    transport: asyncio.ReadTransport | None = None
    group: int | None = None
    try:
        try:
            async with stdio_client(params, errlog=errlog) as streams:
                group = _child_by_stderr(pipe_inode)
                errlog.close()  # the server holds its own copy; EOF then means it exited
                transport, _ = await loop.connect_read_pipe(
                    lambda: _StderrReader(tail, on_eof),
                    os.fdopen(read_fd, "rb", buffering=0),
                )
                read_fd = -1
                yield streams
        except OSError as e:  # the command could not start
            raise StartError(f"cannot start {exp.command!r}: {e.strerror or e}") from None
    finally:
        errlog.close()
        if read_fd >= 0:
            os.close(read_fd)
        if transport is not None:
            transport.close()
        if group is not None:
            # after the SDK's shutdown: end what the server left in its process group
            # (it leads the group; the SDK kills it only when the server itself does not
            # exit, and one that exits on EOF can leave children: npx and its node)
            await end_group(group)


def _own_program(command: str, cwd: Path) -> str:
    """An unsandboxed server's program: a path as written (the user's own config named it),
    a name found outside the project (:mod:`larik.host_programs`), else why it is not run."""
    if "/" in command:
        return command
    try:
        return host_programs.find(command, cwd)
    except host_programs.NotOwn as e:
        raise StartError(f"cannot start {command!r}: {e}") from None


def _child_by_stderr(inode: int) -> int | None:
    """The process id of the server just started: our child whose stderr is our pipe. The SDK
    does not expose its process; on Linux /proc tells. None elsewhere (or if it already left)."""
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return None
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                children = f.read().split()
        except OSError:
            continue
        for pid in children:
            try:
                if os.readlink(f"/proc/{pid}/fd/2") == f"pipe:[{inode}]":
                    return int(pid)
            except OSError:
                continue
    return None
