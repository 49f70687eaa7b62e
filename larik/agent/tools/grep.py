"""grep(pattern, path?, glob?): search file contents by regex; ripgrep when on PATH.

Without ripgrep a Python search (the ``regex`` module) runs over the files glob would show
(.gitignore respected, binary files skipped). Output is ``path:line:text``, capped.

What grep may see is what read_file may read: it never leaves the project through a symlink
(ripgrep does not follow links; the Python search skips a link whose target is outside the
project), it skips FIFOs, sockets and devices (and refuses one named as ``path``), and it drops
every file a ``permissions.deny`` rule covers (``ctx.denied``), ripgrep's matches included.

A search has a time limit (``TIMEOUT``): ripgrep is killed at it, and the Python search gives up
on a line that takes a pattern more than ``LINE_TIMEOUT`` (catastrophic backtracking). Either way
the matches found so far come back with a note saying the search was stopped. Cancelling the
task (an interrupt) stops both at once: ripgrep is killed, the Python search's thread stops at
its next line or within ``LINE_TIMEOUT`` (``regex`` releases the GIL while it matches, so the
loop never freezes).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import Field

from ... import host_programs
from ...paths import shown
from . import ToolArgs, ToolContext, ToolError, ToolResult
from ._files import glob_regex, open_regular, special_kind, visible_files

if TYPE_CHECKING:
    import regex

NAME = "grep"
KIND = "read"
PATH_TARGET = True
DESCRIPTION = (
    "Search file contents with a regular expression. Returns matching lines as "
    "`path:line:text`. `path` is a file or directory (default: the project root); `glob` "
    "limits the files searched, e.g. `*.py`. Files ignored by .gitignore are skipped."
)
MAX_MATCHES = 200
MAX_LINE = 300
TIMEOUT = 20.0  # seconds for one search
LINE_TIMEOUT = 1.0  # seconds the Python search gives a pattern on one line
SNIFF = 8192

T = TypeVar("T")


class Args(ToolArgs):
    pattern: str = Field(description="Regular expression (Rust/Python syntax).")
    path: str = Field(".", description="File or directory to search (default: project root).")
    glob: str = Field("", description="Only search files matching this glob, e.g. *.py")


def target(args: Args) -> str:
    return args.path


def summary(args: Args) -> str:
    where = "" if args.path == "." else f" in {args.path}"
    return f"/{args.pattern}/{where}" + (f" ({args.glob})" if args.glob else "")


def ripgrep(root: Path | None = None) -> str | None:
    """The ripgrep to run (Larik's own: never one in the project), or None for the Python
    search."""
    return host_programs.which("rg", *([root] if root is not None else []))


async def run(args: Args, ctx: ToolContext) -> ToolResult:
    import regex

    root = ctx.root.resolve()
    base = ctx.path(args.path)
    if not base.exists():
        raise ToolError(f"no such file or directory: {ctx.show(base)}")
    try:
        rx = regex.compile(args.pattern)
    except regex.error as e:
        raise ToolError(f"invalid regular expression: {e}") from None
    if not base.is_dir():
        kind = special_kind(base.stat(), base)
        if kind:
            raise ToolError(f"{ctx.show(base)} is {kind}; grep searches only regular files")
        if ctx.denied(NAME, base):
            raise ToolError(f"{ctx.show(base)} is covered by a permissions.deny rule")
    rg = ripgrep(root)
    if rg:
        lines, stopped = await _ripgrep(rg, args, base, root, ctx)
    else:
        stop = threading.Event()
        lines, stopped = await _in_thread(
            lambda: _python_grep(rx, args.glob, base, root, ctx, stop), stop
        )
    data: dict[str, Any] = {"engine": "rg" if rg else "python"}
    if not lines and not stopped:
        return ToolResult(f"no matches for /{args.pattern}/", data=data)
    text = "\n".join(lines[:MAX_MATCHES])
    if len(lines) > MAX_MATCHES:
        text += f"\n[more than {MAX_MATCHES} matches; narrow the pattern, path or glob]"
    if stopped:
        text += f"\n[search stopped: {stopped}; the matches above are only those found before]"
        data["stopped"] = stopped
    return ToolResult(text.lstrip("\n"), data=data, exact=True)


def _where(base: Path, root: Path) -> str:
    """``base`` as ripgrep is given it (cwd is the root): the real path, not a shown one."""
    try:
        return base.relative_to(root).as_posix() or "."
    except ValueError:
        return str(base)


async def _ripgrep(
    rg: str, args: Args, base: Path, root: Path, ctx: ToolContext
) -> tuple[list[str], str]:
    cmd = [rg, "--no-config", "--no-follow", "--line-number", "--no-heading", "--null"]
    cmd += ["--color", "never", "--with-filename"]
    cmd += ["--max-columns", str(MAX_LINE), "--max-columns-preview"]
    if args.glob:
        cmd += ["--glob", args.glob]
    cmd += ["-e", args.pattern, "--", _where(base, root)]
    proc = await asyncio.create_subprocess_exec(
        *cmd,
        cwd=root,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        stdin=asyncio.subprocess.DEVNULL,
        limit=1 << 20,
    )
    assert proc.stdout is not None and proc.stderr is not None
    errors = asyncio.create_task(_head(proc.stderr))
    lines: list[str] = []
    stopped = ""
    ended = False  # ripgrep closed its output: it is exiting by itself
    allowed: dict[bytes, str | None] = {}  # file as ripgrep printed it -> as shown, or denied
    try:
        async with asyncio.timeout(TIMEOUT):
            async for raw in proc.stdout:
                name, sep, rest = raw.rstrip(b"\n").partition(b"\0")
                if not sep:
                    continue
                if name not in allowed:
                    path = os.fsdecode(name)
                    denied = ctx.denied(NAME, root / path)
                    allowed[name] = None if denied else shown(path.removeprefix("./"))
                if allowed[name] is not None:
                    lines.append(f"{allowed[name]}:{rest.decode('utf-8', 'replace')}")
                    if len(lines) > MAX_MATCHES:
                        break
            else:
                ended = True
    except TimeoutError:
        stopped = f"ripgrep ran past the {TIMEOUT:g} s time limit"
    finally:
        await _end(proc, ended)
        err = await errors
    if (proc.returncode or 0) > 1 and not lines and not stopped:
        raise ToolError("ripgrep failed: " + err.decode("utf-8", "replace").strip()[:300])
    return lines, stopped


async def _end(proc: asyncio.subprocess.Process, ended: bool) -> None:
    """Wait for ripgrep, killing it first unless it is ending by itself: killing a process that
    has just exited makes ``subprocess`` reap it behind asyncio's back ("Unknown child process",
    exit status 255)."""
    if ended:
        try:
            async with asyncio.timeout(2):
                await proc.wait()
                return
        except TimeoutError:
            pass
    if proc.returncode is None:
        try:
            proc.kill()
        except ProcessLookupError:
            pass
    await proc.wait()


async def _head(stream: asyncio.StreamReader, keep: int = 2000) -> bytes:
    """The first ``keep`` bytes of a stream, reading (and dropping) the rest so the writer
    never blocks on a full pipe."""
    head = b""
    while chunk := await stream.read(65536):
        head += chunk[: max(0, keep - len(head))]
    return head


async def _in_thread(fn: Callable[[], T], stop: threading.Event) -> T:
    """``fn()`` in a daemon thread; on cancel, ``stop`` is set and the await ends at once."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if not done.done():
            done.set_result(value) if ok else done.set_exception(value)

    def work() -> None:
        outcome: tuple[bool, Any]
        try:
            outcome = (True, fn())
        except BaseException as e:
            outcome = (False, e)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass

    threading.Thread(target=work, name="larik-grep", daemon=True).start()
    try:
        return await done
    finally:
        stop.set()


def _python_grep(
    rx: regex.Pattern[str],
    glob: str,
    base: Path,
    root: Path,
    ctx: ToolContext,
    stop: threading.Event,
) -> tuple[list[str], str]:
    deadline = time.monotonic() + TIMEOUT
    if base.is_file():
        files, folder = [base.name], base.parent
    else:
        files, folder = visible_files(base, root, lambda p: ctx.denied(NAME, p)), base
    grx = glob_regex(glob) if glob else None
    out: list[str] = []
    for rel in files:
        if grx and not (grx.match(rel) or grx.match(rel.rsplit("/", 1)[-1])):
            continue
        path = folder / rel
        where = ctx.show(path)
        try:
            fh = open_regular(path, where)
        except ToolError:
            continue
        with fh:
            if b"\x00" in fh.read(SNIFF):
                continue
            fh.seek(0)
            for n, raw in enumerate(fh, start=1):
                if stop.is_set():
                    return out, "interrupted"
                left = deadline - time.monotonic()
                if left <= 0:
                    return out, f"the {TIMEOUT:g} s time limit was reached in {where}"
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                try:
                    hit = rx.search(line, timeout=min(left, LINE_TIMEOUT), concurrent=True)
                except TimeoutError:
                    if left <= LINE_TIMEOUT:
                        return out, f"the {TIMEOUT:g} s time limit was reached at {where}:{n}"
                    return out, (
                        f"the pattern took over {LINE_TIMEOUT:g} s on one line, {where}:{n} "
                        "(nested repetition such as (a+)* backtracks without end); simplify it"
                    )
                if hit:
                    cut = line if len(line) <= MAX_LINE else line[:MAX_LINE] + " …"
                    out.append(f"{where}:{n}:{cut}")
                    if len(out) > MAX_MATCHES:
                        return out, ""
    return out, ""
