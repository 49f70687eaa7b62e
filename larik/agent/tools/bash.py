"""bash(command, timeout?): run a shell command in the project root.

The command runs in its own session (``start_new_session``), so on timeout or interrupt the
whole process group is killed (``os.killpg``), children included — also when the interrupt
comes while the shell is still being started. Output (stdout and stderr together) is capped
with the *tail* kept, since that is where errors are; the exit code is always reported.
Background processes that keep the output open are stopped shortly after the shell exits.
``background: true`` starts the command as a job of the session instead (:mod:`..jobs`:
the same permission check and sandbox; read with ``job_output``, stop with ``job_stop``).

When the session has an OS sandbox (``ctx.sandbox``, :mod:`larik.sandbox`) the command
runs inside bubblewrap; a failure that looks like the sandbox's doing says so in the result, and
so does what the sandbox undid after it (a protected file it made: :mod:`larik.sandbox.kept`).
``sandbox: false`` runs it outside — the permission policy asks the user for that, always.

The process-group helpers (the start token, killing a group, waiting for the shell, reading
its output, the environment without credentials) are :mod:`larik.processes`', which the jobs,
the hooks and the MCP servers use too. Commands do not see credentials (``child_env``): the variables Larik's providers read their
keys from (each registered provider's ``credential_env_names``) and, as Codex's default shell
environment policy does, every variable whose name contains KEY, SECRET, TOKEN or PASSWORD
(any case) are left out, so neither a model nor a repository's script can ``echo
$ANTHROPIC_API_KEY``. ``LARIK_BASH_KEEP_ENV`` (comma-separated names, in the user's own
environment) keeps the ones a user wants their commands to have, e.g. ``GITHUB_TOKEN``.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

from pydantic import Field

from ... import host_programs
from ...others_text import clean
from ...processes import child_env, kill_group, read_pipe, start_token, wait_exit
from ...sandbox import Sandbox, kept
from . import ToolArgs, ToolContext, ToolError, ToolResult

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
    sandbox: bool = Field(
        True,
        description="false runs the command outside the OS sandbox; only after the user "
        "approves. Use it only when a command failed because of the sandbox.",
    )
    background: bool = Field(
        default=False,
        description="true starts it as a background job (a dev server, a watcher) and returns "
        "at once with its job id and first lines; read it with job_output, stop it with "
        "job_stop. The timeout does not apply.",
    )


def target(args: Args) -> str:
    return args.command


def summary(args: Args) -> str:
    first = args.command.strip().splitlines()[0] if args.command.strip() else ""
    return first + (" …" if "\n" in args.command.strip() else "")


class _Tail:
    def __init__(self, cap: int, on_add: Callable[[bytes], None] | None = None) -> None:
        self.cap = cap
        self.buf = bytearray()
        self.dropped = 0
        self.on_add = on_add  # sees every chunk as it comes (a live view); never fails the read

    def add(self, chunk: bytes) -> None:
        if self.on_add is not None:
            try:
                self.on_add(chunk)
            except Exception:  # a view's bug must not lose the command's output
                self.on_add = None
        self.buf += chunk
        over = len(self.buf) - self.cap * 2
        if over > 0:
            del self.buf[:over]
            self.dropped += over

    def text(self) -> str:
        # cleaned before the tail is cut, so the bound holds for what the model gets (the
        # buffer is at most twice the cap: the cleaning is bounded too)
        s = clean(self.buf.decode("utf-8", "replace"))
        if len(s) > self.cap:
            self.dropped += len(s[: len(s) - self.cap].encode("utf-8"))
            s = s[len(s) - self.cap :]
        return s


async def run(args: Args, ctx: ToolContext) -> ToolResult:
    box = ctx.sandbox if ctx.sandbox is not None and ctx.sandbox.active and args.sandbox else None
    if args.background:  # permission-checked as any command; jobs.py runs it
        if ctx.jobs is None:
            raise ToolError("background jobs are not available here; run it in the foreground")
        return await ctx.jobs.run(args.command, ctx.root, box)
    guard = box.guard(ctx.root) if box is not None else None
    if ctx.editor is not None and ctx.editor.runs:
        return await _in_editor(args, ctx, box, guard)
    proc = spawn_shell(args.command, ctx.root, box, guard)
    pgid = proc.pid  # a new session: its leader's pid is the group id
    token = start_token(pgid)
    ctx.processes[pgid] = token  # known before the first await: an interrupt can always kill it
    tail = _Tail(MAX_OUTPUT, ctx.on_output)
    assert proc.stdout is not None
    reader = asyncio.create_task(read_pipe(proc.stdout, tail.add))
    timed_out = stray = False
    try:
        try:
            async with asyncio.timeout(args.timeout):
                await wait_exit(proc)
        except TimeoutError:
            timed_out = True
            kill_group(pgid, token)
            await wait_exit(proc)
        try:
            async with asyncio.timeout(GRACE):
                await asyncio.shield(reader)
        except TimeoutError:
            stray = True  # a background child still holds the output open
            kill_group(pgid, token)
            async with asyncio.timeout(GRACE):
                await asyncio.shield(reader)
    finally:
        if proc.poll() is None or not reader.done():
            kill_group(pgid, token)  # interrupted (cancelled): take the whole group down
            proc.poll()
        if not reader.done():
            reader.cancel()
        ctx.processes.pop(pgid, None)
        undone = guard.settle() if guard is not None else []
    return await _told(ctx, _result(args, proc.returncode, tail, timed_out, stray, box, undone))


async def _told(ctx: ToolContext, result: ToolResult) -> ToolResult:
    """The result, with what the language servers say of the files the command changed
    (those they have open: ``LspSession.after_command``)."""
    if ctx.lsp is None:
        return result
    said: str = await ctx.lsp.after_command()
    if said:
        result.content += "\n" + said
        lines = [x for x in said.splitlines() if x != ctx.lsp.HEADING and not x.startswith("lsp:")]
        if lines:
            result.data["diagnostics"] = lines
    return result


def editor_argv(
    command: str, cwd: Path, box: Sandbox | None = None, guard: kept.Guard | None = None
) -> list[str]:
    """The command line an editor's terminal runs for ``command``: the same sandbox as
    :func:`spawn_shell`'s, and the environment without credentials set from nothing
    (``env -i``: the editor's own environment is not the command's)."""
    env = _own("env", cwd)  # the editor starts it: never one its PATH finds in the project
    return [
        env,
        "-i",
        *(f"{k}={v}" for k, v in child_env().items()),
        *shell_argv(command, cwd, box, guard),
    ]


async def _in_editor(
    args: Args, ctx: ToolContext, box: Sandbox | None, guard: kept.Guard | None
) -> ToolResult:
    """The command in the editor's terminal (``tools/_editor.py``), its output bounded as
    ever (the end kept), whatever the editor sends; the sandbox's guard settled after it."""
    assert ctx.editor is not None
    argv = editor_argv(args.command, ctx.root, box, guard)
    try:
        done = await ctx.editor.run(argv, ctx.root, args.timeout)
    finally:
        undone = guard.settle() if guard is not None else []
    tail = _Tail(MAX_OUTPUT)
    tail.add(done.output.encode("utf-8", errors="replace"))
    code = done.exit_code
    if code is None and done.signal:  # "SIGKILL", "9", "signal 9": the form is the editor's
        name = done.signal.upper().removeprefix("SIGNAL").strip()
        number = int(name) if name.isdigit() else getattr(signal.Signals, name, None)
        code = -int(number) if number else None
    result = _result(args, code, tail, done.timed_out, False, box, undone)
    if done.truncated:
        result.content = "[… the editor kept only the end of the output …]\n" + result.content
    result.data["terminal"] = True
    return await _told(ctx, result)


def spawn_shell(
    command: str, cwd: Path, box: Sandbox | None = None, guard: kept.Guard | None = None
) -> subprocess.Popen[bytes]:
    """``bash -c command`` started in a new session, synchronously: its pid is known before
    anything can interrupt the start (asyncio's own start, interrupted, kills only the shell
    and leaves what it already started running)."""
    return subprocess.Popen(
        shell_argv(command, cwd, box, guard),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=child_env(),
    )


def shell_argv(
    command: str, cwd: Path, box: Sandbox | None = None, guard: kept.Guard | None = None
) -> list[str]:
    """``bash -c command``: in the sandbox, the bash the sandbox finds (on the user's ``PATH``,
    inside it: a virtualenv's tools are what the user means); without one, Larik's own bash
    (:mod:`larik.host_programs`: never one a project put on ``PATH``)."""
    if box is not None:
        return box.wrap(["bash", "-c", command], cwd, guard)
    return [_own("bash", cwd), "-c", command]


def _own(name: str, cwd: Path) -> str:
    """Larik's own ``name`` (an absolute path), or a ToolError that says why there is none."""
    try:
        return host_programs.find(name, cwd)
    except host_programs.NotOwn as e:
        raise ToolError(str(e)) from None


def _result(
    args: Args,
    code: int | None,
    tail: _Tail,
    timed_out: bool,
    stray: bool,
    box: Sandbox | None = None,
    undone: list[str] | None = None,
) -> ToolResult:
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
        parts.append(
            "[background processes still holding the output were stopped; to keep one "
            "running, start it with background: true]"
        )
    exit_code = code if code is not None else -1
    if code is not None and code < 0:
        parts.append(f"[killed by signal {-code}]")
    parts.append(f"[exit code {exit_code}]")
    if box is not None and not timed_out and (why := box.explain(out, exit_code)):
        parts.append(why)
    parts += undone or []
    return ToolResult(
        "\n".join(parts),
        is_error=timed_out,
        data={"exit_code": exit_code, "timed_out": timed_out, "sandboxed": box is not None},
    )
