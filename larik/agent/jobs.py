"""Background jobs: the commands ``bash`` started with ``background: true``.

A :class:`JobTable` belongs to the session (the main agent makes it; subagents share it, as they
share the permission policy). ``bash`` with ``background: true`` is checked by the permission
policy exactly as a foreground command (same rules, same plan-mode test, same OS sandbox: the
flag changes only *when* the tool returns), then :meth:`JobTable.run` starts it — in its own
session and process group, like a foreground command — and returns at once with the job's id
and the first lines it printed within :data:`FIRST_WAIT` (a dev server's "listening on …").

- ``job_output`` reads what a job printed since the last read (at most :data:`READ_CAP`
  characters, the tail kept) and its state and exit code; ``job_stop`` stops one: SIGTERM to its
  whole process group, SIGKILL after :data:`STOP_GRACE`. Both take the *job id* of this
  session's table, never a pid, so they cannot reach a process the session did not start.
- At most ``[jobs] max`` jobs run at once; each keeps the last ``[jobs] output_buffer`` bytes of
  its output (a ring: a job printing gigabytes holds no more than that).
- :meth:`JobTable.close` ends every job (SIGTERM, then SIGKILL) when the session ends: the TUI
  quits (``/exit``, Ctrl+C, SIGTERM, SIGHUP), print mode ends (however it ends), the session is
  replaced (``/clear``, ``/resume``). Should Python exit without it, an ``atexit`` hook sends
  SIGKILL to what is left. A process that leaves its process group (``setsid``, a daemon's
  double fork) is out of reach, as it is for a foreground command's timeout.
- An interrupt (Esc) ends the turn's foreground commands, not the jobs.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..others_text import clean
from ..processes import read_pipe, start_token
from ..words import count
from .tools import ToolError, ToolResult
from .tools.bash import spawn_shell

__all__ = ["DEFAULT_BUFFER", "DEFAULT_MAX", "Job", "JobTable", "Ring"]

DEFAULT_MAX = 8  # jobs running at once ([jobs] max)
DEFAULT_BUFFER = 1_000_000  # bytes of output kept per job ([jobs] output_buffer)
FIRST_WAIT = 1.0  # seconds a start waits for the first lines …
QUIET = 0.2  # … or, once some came, for this long without more
READ_CAP = 30_000  # characters of new output one read returns (the tail)
STOP_GRACE = 2.0  # seconds between SIGTERM and SIGKILL (job_stop)
CLOSE_GRACE = 1.0  # the same when the session ends
LAST_LINES = 10  # lines a listing (/jobs) shows

State = Literal["running", "exited", "stopped"]


class Ring:
    """The last ``cap`` bytes of a stream, and how many bytes came in all."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.buf = bytearray()
        self.total = 0
        self.last_at = 0.0  # monotonic time of the last chunk

    def add(self, chunk: bytes) -> None:
        self.buf += chunk
        self.total += len(chunk)
        self.last_at = time.monotonic()
        over = len(self.buf) - self.cap
        if over > 0:
            del self.buf[:over]

    def since(self, pos: int) -> tuple[bytes, int]:
        """What came after byte ``pos`` of the stream, and how many bytes after it were lost."""
        start = self.total - len(self.buf)
        return bytes(self.buf[max(pos - start, 0) :]), max(start - pos, 0)


@dataclass(eq=False)
class Job:
    id: int
    command: str
    proc: subprocess.Popen[bytes]
    token: str  # the leader's start time: its pid reused later is not this job
    out: Ring
    box: Any = None  # the sandbox.Sandbox it runs in (None: none)
    guard: Any = None  # its kept.Guard: what it made of the protected files, undone at its end
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None
    stopped: bool = False  # stopped by job_stop, /jobs or the session's end
    read_pos: int = 0  # the model's reads (job_output) have seen the output up to here
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    @property
    def sandboxed(self) -> bool:
        return self.box is not None

    @property
    def pgid(self) -> int:
        return self.proc.pid  # a new session: its leader's pid is the group id

    @property
    def state(self) -> State:
        if self.proc.poll() is None:
            return "running"
        return "stopped" if self.stopped else "exited"

    @property
    def exit_code(self) -> int | None:
        return self.proc.poll()

    def runtime(self) -> float:
        return (self.ended or time.monotonic()) - self.started

    def last_lines(self, n: int = LAST_LINES) -> list[str]:
        """Its last ``n`` lines as printed: split at newlines only, so a line a progress bar
        rewrites with carriage returns stays one line (``terminal_safe`` shows its last state)."""
        text = bytes(self.out.buf[-8192:]).decode("utf-8", "replace")
        return text.removesuffix("\n").split("\n")[-n:] if text else []

    def describe(self) -> str:
        """``job 3 (running, 12 s): npm run dev`` — one line."""
        code = self.exit_code
        what: str = self.state
        if code is not None:
            what += f", killed by signal {-code}" if code < 0 else f", exit code {code}"
        return f"job {self.id} ({what}, {_seconds(self.runtime())}): {_one_line(self.command)}"

    def alive(self) -> bool:
        """Whether any process of its group is left (the leader reaped first)."""
        self.proc.poll()
        try:
            os.killpg(self.pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    def signal(self, sig: int) -> None:
        """Send ``sig`` to the job's process group, unless its id is now another process's."""
        now = start_token(self.pgid)
        if self.token and now and now != self.token:
            return
        try:
            os.killpg(self.pgid, sig)
        except (ProcessLookupError, PermissionError):
            pass


_open: set[JobTable] = set()  # tables with jobs, not closed: held until closed, never collected


@atexit.register
def _kill_everything() -> None:
    """Python exits without a table having been closed: no job outlives Larik."""
    for table in list(_open):
        table.kill_all()


class JobTable:
    """The session's background jobs, by id (1, 2, …; never reused in a session)."""

    def __init__(self, max_jobs: int = DEFAULT_MAX, buffer: int = DEFAULT_BUFFER) -> None:
        self.max_jobs = max_jobs
        self.buffer = buffer
        self.jobs: dict[int, Job] = {}
        self.closed = False
        self._next = 1
        self.on_change: Callable[[], None] | None = None  # a job started or ended (a face's)
        self.listeners: list[Callable[[Job], None]] = []  # told when a job ends by itself

    def changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def running(self) -> list[Job]:
        return [j for j in self.jobs.values() if j.state == "running"]

    def get(self, job_id: int) -> Job:
        job = self.jobs.get(job_id)
        if job is None:
            have = ", ".join(str(i) for i in self.jobs) or "none"
            raise ToolError(
                f"no job {job_id} in this session (its jobs: {have}); job ids come from "
                "bash with background: true, and only those jobs can be read or stopped"
            )
        return job

    # -- starting --------------------------------------------------------------------------
    def start(self, command: str, root: Path, sandbox: Any = None) -> Job:
        """Start ``command`` as a job (no waiting); ToolError at the limit or after close."""
        if self.closed:
            raise ToolError("the session is ending: no new background jobs")
        if len(self.running()) >= self.max_jobs:
            raise ToolError(
                f"{count(self.max_jobs, 'background job')} {'is' if self.max_jobs == 1 else 'are'} "
                "running, the most this session allows "
                "([jobs] max); stop one with job_stop first"
            )
        guard = sandbox.guard(root) if sandbox is not None else None
        proc = spawn_shell(command, root, sandbox, guard)
        job = Job(self._next, command, proc, start_token(proc.pid), Ring(self.buffer))
        job.box = sandbox
        job.guard = guard
        self._next += 1
        self.jobs[job.id] = job
        _open.add(self)
        assert proc.stdout is not None
        job.tasks = [
            asyncio.create_task(read_pipe(proc.stdout, job.out.add)),
            asyncio.create_task(_watch(job, self)),
        ]
        self.changed()
        return job

    async def run(self, command: str, root: Path, sandbox: Any = None) -> ToolResult:
        """The bash tool's ``background: true``: start the job, wait for its first lines."""
        job = self.start(command, root, sandbox)
        await _first_lines(job)
        return self.read(job.id, started=True)

    # -- reading -----------------------------------------------------------------------------
    async def wait(self, job_id: int, seconds: float) -> None:
        """Until job ``job_id`` prints something new or ends, at most ``seconds``."""
        job = self.get(job_id)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and job.state == "running":
            if job.out.total > job.read_pos:
                break
            await asyncio.sleep(0.05)

    def read(self, job_id: int, started: bool = False) -> ToolResult:
        """What job ``job_id`` printed since the last read (the tail when long), its state."""
        job = self.get(job_id)
        data, lost = job.out.since(job.read_pos)
        job.read_pos = job.out.total
        text = clean(data.decode("utf-8", "replace"))  # the one rule, before the cut
        if len(text) > READ_CAP:
            lost += len(text[: len(text) - READ_CAP].encode("utf-8"))
            text = text[len(text) - READ_CAP :]
        parts = []
        if started:
            parts.append(
                f"[started background job {job.id}: read what it prints with job_output, "
                "stop it with job_stop; it ends when the session ends]"
            )
            space = getattr(job.box, "space", None)
            if space is not None and space.problem:
                parts.append(f"[{space.problem}]")
        parts.append(f"[{job.describe()}]")
        if lost:
            parts.append(f"[… {lost:,} bytes of output skipped …]")
        parts.append(text.rstrip("\n") if text.strip() else "(no new output)")
        code = job.exit_code
        if job.box is not None and code and code > 0 and (why := job.box.explain(text, code)):
            parts.append(why)  # as a foreground command's result says it
        return ToolResult(
            "\n".join(parts),
            data={
                "job_id": job.id,
                "state": job.state,
                "exit_code": job.exit_code,
                "sandboxed": job.sandboxed,
            },
        )

    def listing(self) -> ToolResult:
        """Every job of the session, one line each."""
        if not self.jobs:
            return ToolResult("no background jobs in this session")
        lines = [j.describe() for j in self.jobs.values()]
        return ToolResult("\n".join(lines), data={"jobs": len(lines)})

    # -- stopping ----------------------------------------------------------------------------
    async def stop(self, job_id: int, grace: float = STOP_GRACE) -> Job:
        """Stop job ``job_id``: SIGTERM to its process group, SIGKILL after ``grace``."""
        job = self.get(job_id)
        await _end([job], grace)
        self.changed()  # its watcher, cancelled by _end, may not have said so
        return job

    async def close(self, grace: float = CLOSE_GRACE) -> None:
        """The session ends: every job ends (all at once), none is started again."""
        self.closed = True
        try:
            await _end(list(self.jobs.values()), grace)
        except asyncio.CancelledError:  # the app leaves at once (asked twice): no grace
            self.kill_all()
            raise
        _open.discard(self)

    def kill_all(self) -> None:
        """SIGKILL every job's group now (synchronous: for the way out)."""
        self.closed = True
        for job in self.jobs.values():
            if job.alive():
                job.stopped = job.stopped or job.state == "running"
                job.signal(signal.SIGKILL)
            job.proc.poll()
            _settle(job)
        _open.discard(self)


async def _end(jobs: list[Job], grace: float) -> None:
    live = [j for j in jobs if j.alive()]
    for job in live:
        job.stopped = job.stopped or job.state == "running"
        job.signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    while live and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
        live = [j for j in live if j.alive()]
    for job in live:
        job.signal(signal.SIGKILL)
    for job in jobs:
        for _ in range(50):  # reaped, so no zombie is left behind either
            if job.proc.poll() is not None:
                break
            await asyncio.sleep(0.01)
        if job.ended is None and job.proc.poll() is not None:
            job.ended = time.monotonic()
        _settle(job)
        for task in job.tasks:
            if not task.done():
                task.cancel()


async def _watch(job: Job, table: JobTable) -> None:
    delay = 0.01
    while job.proc.poll() is None:
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.25)
    job.ended = time.monotonic()
    _settle(job)
    table.changed()
    if job.state == "exited" and not table.closed:  # not stopped, not the session ending
        for listener in list(table.listeners):
            listener(job)


def _settle(job: Job) -> None:
    """The job has ended: undo what it made of the protected files, and say so in its output."""
    if job.guard is not None:
        for line in job.guard.settle():
            job.out.add(f"\n{line}\n".encode())


async def _first_lines(job: Job) -> None:
    deadline = time.monotonic() + FIRST_WAIT
    while time.monotonic() < deadline:
        now = time.monotonic()
        if job.ended is not None and job.tasks[0].done():
            return
        if job.out.total and now - job.out.last_at >= QUIET:
            return
        await asyncio.sleep(0.02)


def _seconds(s: float) -> str:
    s = int(s)
    return f"{s} s" if s < 60 else f"{s // 60} min {s % 60:02d} s"


def _one_line(command: str, limit: int = 100) -> str:
    one = " ".join(command.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"
