"""Print mode: ``larik -p PROMPT`` runs one task without the TUI and prints the outcome.

Output formats: ``text`` (the final answer on stdout; warnings and errors on stderr), ``json``
(one object at the end: final text, stop reason, usage, cost, session id) and ``stream-json``
(every agent event as one JSON line, then the same result object). Nobody can approve a tool
call, so in ``ask`` mode anything that would need a prompt is denied and the model is told why.

Exit codes: 0 the model finished its turn; 1 it could not (a model or tool failure, the
max-turns limit, a reply cut off or refused); 2 bad usage or config (one line on stderr);
130 interrupted (Ctrl+C), 143 terminated (SIGTERM), 129 hung up (SIGHUP) — each stops the run
the same way: running commands killed, the session saved and resumable, the result object still
written in json/stream-json; 141 the reader of stdout went away (``larik -p … | head``): Larik
stops quietly, the session saved, as a shell reports SIGPIPE.

The prompt (``-p -`` reads it from stdin as bytes) is UTF-8; bytes that are not (a Latin-1 file
in ``git diff``) are kept as ``\\xNN`` escapes and a warning says how many.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, cast

from .agent.events import AgentEvent, AgentEventType
from .llm.effort import Effort
from .llm.errors import ConfigError, LarikError, LoginExpired, ResolveError
from .llm.secrets import MaskingWriter
from .llm.types import StopReason
from .print_lines import event_json, json_line, progress, target
from .refusal import Phrasing, from_data
from .session import Session, SessionEvent, SessionEventType, SessionOptions, Turn
from .session.core import Subscription
from .session.plans import plan_json
from .terminal_text import is_terminal as _is_terminal
from .terminal_text import terminal as _for_terminal
from .words import count

__all__ = ["OUTPUT_FORMATS", "STOP_SIGNALS", "PrintOptions", "event_json", "run_print", "utf8_text"]

OUTPUT_FORMATS = ("text", "json", "stream-json")
E = AgentEventType
_OK = (StopReason.END_TURN, StopReason.STOP_SEQUENCE)
INTERRUPTED = "larik: interrupted; the session was saved (larik --continue resumes it)"
PLAN_HINT = (
    "larik: plan mode changed nothing; to carry the plan out: "
    'larik --continue --permission-mode edits -p "carry out the plan"'
)
EXIT_PIPE_CLOSED = 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader left

# The signals that stop a run like Ctrl+C does, and the stop reason each gives. The exit code is
# 128 + the signal's number, as a shell reports a program a signal ended.
STOP_SIGNALS: dict[int, str] = {
    signal.SIGINT: "interrupted",
    signal.SIGTERM: "terminated",
    signal.SIGHUP: "terminated",
}


class UsageError(LarikError):
    """Bad command-line usage (exit code 2)."""


#: How print mode says a refused call's remedy (larik/refusal.py): the flag to rerun with
REFUSALS = Phrasing(lambda mode: f"rerun with --permission-mode {mode}", alone="print mode")


@dataclass
class PrintOptions:
    prompt: str
    cwd: Path
    model: str = ""
    effort: str | None = None
    permission_mode: str | None = None
    max_turns: int | None = None
    max_budget_usd: float | None = None  # --max-budget-usd: the session's budget (budget.py)
    attempts: int = 1  # --attempts: independent tries from the same files (session/attempts.py)
    output_format: str = "text"
    resume: str | None = None  # None: new session; "latest"; or a session id
    trust_project: bool = False  # --trust-project: apply the project's loosening settings
    verbose: bool = False  # --verbose: progress on stderr even when it is not a terminal


@dataclass
class _Outcome:
    text: str = ""
    stop: str = ""
    error: str = ""
    login: bool = False  # the error was a sign-in that must be redone (exit code 2)
    plan: str = ""  # plan mode: the plan the turn ended with
    verify: dict[str, Any] | None = None  # the turn's check of its edits (agent/verify.py)
    budget: dict[str, Any] | None = None  # the session's budget, when one was set
    running: dict[str, AgentEvent] = field(default_factory=dict)  # tool_start without an end


class _Stopped(KeyboardInterrupt):
    """A stop signal came before the run's task existed (reading the prompt, starting up).
    A KeyboardInterrupt, so asyncio lets it through as it does Ctrl+C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _StopSignals:
    """SIGINT, SIGTERM and SIGHUP stop a run the same way. The first one cancels the run's task,
    whose cleanup kills running commands and closes the session (as asyncio.run does for
    Ctrl+C, which this replaces); before that task exists it raises :class:`_Stopped`.
    Repeats are ignored — a quick double Ctrl+C is one — except a Ctrl+C ``FORCE_AFTER``
    seconds or more into a stop that has not finished: it raises KeyboardInterrupt at once.
    Installed only in the main thread (the only one that receives signals)."""

    FORCE_AFTER = 1.0

    def __init__(self) -> None:
        self.signum = 0
        self.task: asyncio.Task[Any] | None = None
        self.session: Session | None = None  # once it exists: what a forced stop reports
        self._since = 0.0
        self._old: dict[int, Any] = {}

    def __enter__(self) -> _StopSignals:
        if threading.current_thread() is threading.main_thread():
            for sig in STOP_SIGNALS:
                self._old[sig] = signal.signal(sig, self._on_signal)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)

    def _on_signal(self, signum: int, frame: object) -> None:
        if self.signum:
            if signum == signal.SIGINT and time.monotonic() - self._since >= self.FORCE_AFTER:
                raise KeyboardInterrupt
            return
        self.signum, self._since = signum, time.monotonic()
        task = self.task
        if task is None:
            raise _Stopped(signum)
        if not task.done():
            task.cancel()
            task.get_loop().call_soon_threadsafe(lambda: None)  # wake the loop's select

    @property
    def stop_reason(self) -> str:
        return STOP_SIGNALS.get(self.signum, "interrupted")


def run_print(
    opts: PrintOptions,
    *,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    raw_out = stdout or sys.stdout
    # keys masked by value in everything written (a MaskingWriter is used as a text stream);
    # on a terminal, no escape sequence from a reply or a message either (terminal_text)
    out = cast(IO[str], MaskingWriter(_for_terminal(raw_out)))
    err = cast(IO[str], MaskingWriter(_for_terminal(stderr or sys.stderr)))
    with _StopSignals() as signals:
        try:
            prompt = _check(opts, stdin or sys.stdin, err)
            return asyncio.run(_run(opts, prompt, out, err, signals))
        except (UsageError, ConfigError, ResolveError) as e:
            print(f"larik: {e}", file=err)
            return 2
        except LarikError as e:  # e.g. the session could not start: one line, not a traceback
            print(f"larik: {e}", file=err)
            return 1
        except _Stopped as e:
            signals.signum = e.signum
            return _stopped(opts, None, _Outcome(stop=signals.stop_reason), signals, out, err)
        except KeyboardInterrupt:  # a forced stop (or Ctrl+C where no handler of ours was set)
            signals.signum = signals.signum or signal.SIGINT
            outcome = _Outcome(stop=signals.stop_reason)
            return _stopped(opts, signals.session, outcome, signals, out, err)
        except BrokenPipeError:
            if raw_out is sys.stdout:  # nothing more can reach the reader; keep exit's flush quiet
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_PIPE_CLOSED
        except OSError as e:  # the session's files could not be written (a full disk)
            return _write_failed_result(opts, write_failed(e), out, err)


def write_failed(e: OSError) -> str:
    """One line for a write of the session's files (transcript, session log, checkpoints)
    that failed: a full disk (ENOSPC), a file-size limit (EFBIG), a read-only or forbidden
    folder (EROFS, EACCES)."""
    where = f" ({e.filename})" if e.filename else ""
    return f"cannot write the session's files{where}: {e.strerror or e}"


def _say_write_failed(opts: PrintOptions, line: str, err: IO[str]) -> None:
    """The line on stderr in json and stream-json too (text mode says its error at the end)."""
    if opts.output_format != "text":
        with contextlib.suppress(OSError):
            print(f"larik: {line}", file=err)


def _write_failed_result(opts: PrintOptions, line: str, out: IO[str], err: IO[str]) -> int:
    """The end of a run whose session could not be written: the line on stderr, the result
    (with the error) in json and stream-json, exit code 1."""
    with contextlib.suppress(OSError):
        print(f"larik: {line}", file=err)
        if opts.output_format != "text":
            result = _result(None, _Outcome(stop="error", error=line), False, opts)
            out.write(json_line(result))
        out.flush()
    return 1


def _check(opts: PrintOptions, stdin: IO[str], err: IO[str]) -> str:
    if opts.output_format not in OUTPUT_FORMATS:
        raise UsageError(
            f"unknown output format {opts.output_format!r}: use {', '.join(OUTPUT_FORMATS)}"
        )
    if opts.effort is not None:
        try:
            Effort.parse(opts.effort)
        except ConfigError as e:
            raise UsageError(str(e)) from None
    if opts.max_turns is not None and opts.max_turns < 1:
        raise UsageError("--max-turns must be at least 1")
    if opts.max_budget_usd is not None and not opts.max_budget_usd > 0:
        raise UsageError("--max-budget-usd must be more than 0 (USD)")
    if opts.attempts < 1:
        raise UsageError("--attempts must be at least 1")
    if opts.attempts > 1 and opts.resume is not None:
        raise UsageError(
            "--attempts starts every try from the same files in a new session; it does not "
            "go with --continue or --resume"
        )
    if opts.resume == "":
        raise UsageError(
            "--resume needs a session id in print mode: use --continue (-c) for the latest "
            "session, or run `larik --resume` to list them"
        )
    wide = "" if opts.trust_project else _wide_root(opts.cwd)
    if wide:
        raise UsageError(f"{wide} (or pass --trust-project to work here all the same)")
    if opts.prompt == "-":
        buffer = getattr(stdin, "buffer", None)  # bytes: the pipe's encoding is not ours to guess
        prompt, bad = utf8_text(buffer.read() if buffer is not None else stdin.read())
    else:
        prompt, bad = utf8_text(opts.prompt)
    if not prompt.strip():
        raise UsageError("no prompt: pass -p PROMPT, or -p - to read it from stdin")
    if bad:
        print(
            f"larik: warning: the prompt is not valid UTF-8: {count(bad, 'byte')} "
            "kept as \\xNN escapes",
            file=err,
        )
    return prompt


def _wide_root(cwd: Path) -> str:
    from .paths import wide_root, wide_root_line

    what = wide_root(cwd)
    return wide_root_line(cwd.resolve(), what) if what else ""


def utf8_text(value: str | bytes) -> tuple[str, int]:
    """``value`` as text every provider and the transcript accept, and how many bytes of it
    were not UTF-8. Those bytes (in ``str``: the surrogate escapes Python makes of them in argv
    and stdin) become ``\\xNN`` escapes: the model still sees what was there."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value, 0
        except UnicodeEncodeError:
            try:
                raw = value.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:  # a lone surrogate that is no escaped byte
                raw = value.encode("utf-8", "surrogatepass")
    else:
        raw = value
    try:
        return raw.decode("utf-8"), 0
    except UnicodeDecodeError:
        text = raw.decode("utf-8", "backslashreplace")
        return text, len(raw) - len(raw.decode("utf-8", "ignore").encode("utf-8"))


async def _run(
    opts: PrintOptions, prompt: str, out: IO[str], err: IO[str], signals: _StopSignals
) -> int:
    signals.task = asyncio.current_task()
    tries = await _start_tries(opts) if opts.attempts > 1 else None
    made: list[Any] = []  # session/attempts.py's Attempt, one per try
    for n in range(1, opts.attempts + 1):
        if tries is not None and n > 1:
            await tries.areset()
            print(f"larik: try {n} of {opts.attempts}, from the same files", file=err)
        outcome = _Outcome()
        session, stopped = await _one_try(opts, prompt, out, err, signals, outcome, tries, made)
        if stopped is not None:
            return stopped
        if tries is None or made[-1].passed:
            break
    if tries is not None:
        _say_tries(made, opts.attempts, err)
    ok = not outcome.error and outcome.stop in _OK and (tries is None or bool(made[-1].passed))
    if opts.output_format == "text":
        if outcome.text:
            out.write(outcome.text.rstrip("\n") + "\n")
        if outcome.error:
            print(f"larik: {outcome.error}", file=err)
        elif not ok and tries is None:
            print(f"larik: the turn ended without finishing ({outcome.stop})", file=err)
        elif outcome.plan:
            print(PLAN_HINT, file=err)
    else:
        result = _result(session, outcome, ok, opts)
        if tries is not None:
            result["attempts"] = [a.to_json() for a in made]
        out.write(json_line(result))
    out.flush()
    if outcome.login:  # like a missing key: the user must act (larik login NAME)
        return 2
    return 0 if ok else 1


async def _start_tries(opts: PrintOptions) -> Any:
    from .session.attempts import Tries

    try:
        return await asyncio.to_thread(Tries, opts.cwd)
    except LarikError as e:
        raise UsageError(f"--attempts needs a snapshot of the project's files: {e}") from None


async def _one_try(
    opts: PrintOptions,
    prompt: str,
    out: IO[str],
    err: IO[str],
    signals: _StopSignals,
    outcome: _Outcome,
    tries: Any,
    made: list[Any],
) -> tuple[Any, int | None]:
    """One session, one turn (with ``tries``: then its check, into ``made``). Returns the
    session and, when a signal stopped the run, its exit code."""
    show_progress = opts.verbose or _is_terminal(err)
    before = len(made)
    try:
        session = await _open_session(opts, err)
        signals.session = session
        if tries is not None:
            from .session.attempts import warm

            warm(session, before + 1)
    except asyncio.CancelledError:  # stopped while starting: nothing was saved
        outcome.stop = signals.stop_reason
        return None, _stopped(opts, None, outcome, signals, out, err)
    try:
        turn = await _turn(session, prompt, err)
        async with aclosing(aiter(turn)) as events:
            async for ev in events:
                if ev.type is E.USAGE and ev.model:  # provider/model, as the result names it
                    ev = replace(ev, model=_usage_spec(session, ev.model))
                _on_event(ev, opts.output_format, outcome, out, err)
                if show_progress:
                    progress(ev, err)
        if tries is not None:
            made.append(await _check_try(session, prompt, outcome, tries, len(made) + 1))
    except BrokenPipeError:
        raise  # the reader went away: stop (the turn is closed and saved), say nothing
    except asyncio.CancelledError:  # a stop signal: _StopSignals cancelled this task
        outcome.stop = signals.stop_reason
        with contextlib.suppress(OSError):  # every call a reader saw start is seen to end
            for ev in _cut_short(outcome):
                _on_event(ev, opts.output_format, outcome, out, err)
    except LarikError as e:
        outcome.error, outcome.stop = str(e), "error"
        outcome.login = isinstance(e, LoginExpired)
    except OSError as e:  # the transcript, the session log, a checkpoint: a full disk
        outcome.error, outcome.stop = write_failed(e), "error"
        _say_write_failed(opts, outcome.error, err)
    except Exception as e:  # a bug: one line, not a traceback
        outcome.error, outcome.stop = f"internal error: {type(e).__name__}: {e}", "error"
    finally:
        # kills running commands, runs SessionEnd hooks, closes (and unlocks) the transcript,
        # stops every MCP server before Larik exits
        if session.settings.budget.limits.any:
            outcome.budget = session.settings.budget.to_json()
        try:
            said = await session.close()
        except OSError as e:  # the transcript's last write, on a full disk
            said = []
            if not outcome.error:
                outcome.error = write_failed(e)
                _say_write_failed(opts, outcome.error, err)
            outcome.stop = "error"
        for ev in said:  # SessionEnd hooks' notices
            with contextlib.suppress(BrokenPipeError):
                _on_event(ev, opts.output_format, outcome, out, err)
    if outcome.stop in ("interrupted", "terminated"):
        return session, _stopped(opts, session, outcome, signals, out, err)
    if tries is not None and len(made) < before + 1:  # it failed before its check
        made.append(_failed_try(session, outcome, len(made) + 1))
    return session, None


def _usage_spec(session: Session, model: str) -> str:
    """``provider/model`` of a model that answered, as the result names it."""
    usage = session.status.usage
    return usage.spec(model) if usage is not None else model


async def _check_try(session: Session, prompt: str, outcome: _Outcome, tries: Any, n: int) -> Any:
    from .session.attempts import Attempt, judge

    passed, how = await judge(session, prompt, outcome.verify)
    status = session.status
    return Attempt(
        n,
        session_id=status.session_id,
        transcript=status.transcript_path,
        stop=outcome.stop,
        passed=passed,
        check=how,
        files=await tries.achanged(),
    )


def _failed_try(session: Session | None, outcome: _Outcome, n: int) -> Any:
    from .session.attempts import Attempt

    sid = session.session_id if session is not None else ""
    return Attempt(n, session_id=sid, stop=outcome.stop or "error", check=outcome.error)


def _say_tries(made: list[Any], of: int, err: IO[str]) -> None:
    for a in made:
        print(f"larik: {a.line(of)}", file=err)
    if made and made[-1].passed:
        print(f"larik: kept try {made[-1].n}'s changes", file=err)
    else:
        print(
            f"larik: no try passed its check; the files are as try {len(made)} left them", file=err
        )


async def _turn(session: Session, prompt: str, err: IO[str]) -> Turn:
    """The run's turn: a custom command's (or an MCP server prompt's) when the prompt is
    ``/name args`` and ``name`` is one (docs/commands.md), else the prompt with the files its
    ``@path``s name attached, as the TUI attaches them (what is not: a warning each)."""
    from .session import AmbiguousCommand
    from .session.attachments import attach
    from .session.commands import parse

    parsed = parse(prompt)
    if parsed is None:
        attached = await attach(session, prompt, session.cwd)
        for problem in attached.problems:
            print(f"larik: warning: {problem}", file=err)
        return session.send(attached.prompt(), prompt)  # as typed, for the lists
    said = session.events()
    try:
        turn = await session.run_command(*parsed)
    except AmbiguousCommand as e:
        print(f"larik: warning: {e}; sent as written", file=err)
        turn = None
    finally:
        _warn(said, err)  # a command file's problems
    return turn if turn is not None else session.send(prompt)


def _warn(said: Subscription, err: IO[str]) -> None:
    """The session's notices so far, as warnings on stderr; the subscription ends."""
    for ev in said.drain():
        if isinstance(ev, SessionEvent) and ev.type is SessionEventType.NOTICE:
            print(f"larik: warning: {ev.text}", file=err)
    said.close()


async def _open_session(opts: PrintOptions, err: IO[str]) -> Session:
    """The session for this run, its MCP servers settled first (a one-shot task needs their
    tools from the first request; one that failed is a warning, the task goes on without
    it). A server's OAuth login is shown on stderr when it is a terminal; otherwise that
    server fails, saying to run ``larik mcp login NAME`` once. ``--continue`` on a session
    another Larik is writing starts a new session (and says so); ``--resume ID`` on one is
    bad usage, like a missing session."""
    from .config import load_config
    from .mcp.manager import login_on
    from .routing.no_model import NoModelError, explain
    from .session.store import SessionLocked, TranscriptError

    config = load_config(opts.cwd, trust_project=opts.trust_project)
    if config.project_trust and config.project_trust.notice:
        print(f"larik: {config.project_trust.notice}", file=err)
    if config.project_trust and not config.project_trust.trusted:
        print(config.project_trust.ignored_line(), file=err)
    options = SessionOptions(
        model=opts.model,
        effort=opts.effort,
        permission_mode=opts.permission_mode,
        resume=opts.resume,
        max_turns=opts.max_turns,
        max_budget_usd=opts.max_budget_usd,
        commands=False,  # looked for when the prompt is a /command
    )
    login = login_on(err) if _is_terminal(err) else False
    session = Session(opts.cwd, config, options, approver=None, mcp_login=login)
    said = session.events()
    try:
        try:
            await session.start(wait_for_servers=True)
        except SessionLocked as e:
            if opts.resume != "latest":
                raise
            print(
                f"larik: the latest session {e.session_id} is in use by another larik; "
                "starting a new session",
                file=err,
            )
            await session.open(opts.model, None)
    except BaseException as e:
        said.close()
        await session.servers.close()
        if isinstance(e, TranscriptError):
            raise UsageError(str(e)) from None
        if isinstance(e, NoModelError):  # what this machine has, and the line that uses it
            raise UsageError(await explain(e, config, "larik -m {spec} -p …")) from None
        raise
    finally:
        _warn(said, err)
    return session


def _stopped(
    opts: PrintOptions,
    session: Session | None,
    outcome: _Outcome,
    signals: _StopSignals,
    out: IO[str],
    err: IO[str],
) -> int:
    """A run a signal stopped: one line on stderr, the result object in json/stream-json,
    exit code 128 + the signal. Output that cannot be written (the terminal hung up) is
    dropped: the session is what matters, and it is saved."""
    signum = signals.signum or signal.SIGINT
    status = session.status if session is not None else None
    saved = status is not None and status.ready and Path(status.transcript_path).is_file()
    if signum == signal.SIGINT and saved:
        line = INTERRUPTED
    else:
        what = f"{outcome.stop} ({signal.Signals(signum).name})"
        tail = "the session was saved (larik --continue resumes it)" if saved else "nothing saved"
        line = f"larik: {what}; {tail}"
    result = _result(session, outcome, False, opts)
    result["signal"] = signal.Signals(signum).name
    try:
        print(line, file=err)
        if opts.output_format != "text":
            out.write(json_line(result))
        out.flush()
    except OSError:
        pass
    return 128 + signum


def _cut_short(outcome: _Outcome) -> list[AgentEvent]:
    """A ``tool_end`` for each call a stop cut short, as the transcript answers it."""
    from .agent.runner import INTERRUPTED as CUT

    return [
        AgentEvent(
            E.TOOL_END,
            text=CUT,
            tool_id=ev.tool_id,
            tool_name=ev.tool_name,
            tool_input=ev.tool_input,
            is_error=True,
            data={"interrupted": True},
            subagent=ev.subagent,
        )
        for ev in list(outcome.running.values())
    ]


def _on_event(ev: AgentEvent, fmt: str, outcome: _Outcome, out: IO[str], err: IO[str]) -> None:
    if ev.type is E.TOOL_START:
        outcome.running[f"{ev.subagent}/{ev.tool_id}"] = ev
    elif ev.type is E.TOOL_END:
        outcome.running.pop(f"{ev.subagent}/{ev.tool_id}", None)
    if ev.type is E.TURN_END and not ev.subagent:
        outcome.verify = ev.data.get("verify")
    if ev.type is E.TURN_END:
        outcome.text = ev.text
        outcome.stop = "max_turns" if ev.data.get("max_turns") else str(ev.stop_reason or "")
        outcome.plan = str(ev.data.get("plan") or "")
    elif ev.type is E.ERROR:
        outcome.error, outcome.stop = ev.text, "error"
        outcome.login = outcome.login or bool(ev.data.get("sign_in"))
    if fmt == "stream-json":
        out.write(json_line(event_json(ev)))
        out.flush()
    elif fmt == "text" and ev.type is E.NOTICE and ev.level != "info":
        print(f"larik: {ev.level}: {ev.text}", file=err)
    if ev.type is E.TOOL_END and ev.data.get("denied"):  # nobody could be asked: say how to allow
        refusal = from_data(ev.data)
        why = refusal.text(REFUSALS) if refusal is not None else ev.text
        print(f"larik: {ev.tool_name} {target(ev)}was not run: {why}", file=err)


def _result(
    session: Session | None, outcome: _Outcome, ok: bool, opts: PrintOptions
) -> dict[str, Any]:
    status = session.status if session is not None else None
    if status is None or status.usage is None:  # stopped before the agent existed
        zero = {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0}
        return {
            "type": "result",
            "ok": False,
            "text": outcome.text,
            "stop_reason": outcome.stop or "error",
            "error": outcome.error or None,
            "session_id": None,
            "model": opts.model or None,
            "usage": zero,
            "cost": 0.0,
            "usage_by_model": {},
            "cost_by_model": {},
            "usage_by_role": {},
        }
    usage = status.usage
    return {
        "type": "result",
        "ok": ok,
        "text": outcome.text,
        "plan": outcome.plan or None,
        "stop_reason": outcome.stop or "error",
        "error": outcome.error or None,
        "session_id": status.session_id,
        "model": status.spec,
        "usage": usage.total.model_dump(exclude_defaults=False),
        "cost": usage.total_cost,
        "usage_by_model": {  # keyed provider/model, as "model" and /cost name it
            usage.spec(m): u.model_dump(exclude_defaults=False) for m, u in usage.by_model.items()
        },
        "cost_by_model": {usage.spec(m): c for m, c in usage.cost_by_model.items()},
        "usage_by_role": {
            r: u.model_dump(exclude_defaults=False) for r, u in usage.by_role.items()
        },
        "plan_usage": plan_json(
            status.plan_usage
        ),  # a signed-in plan's windows: what it cost the plan
        "budget": outcome.budget,
    }
