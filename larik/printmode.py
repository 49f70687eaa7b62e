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

This module runs the session: the options and the prompt are :mod:`larik.print_options`'s,
the stop signals :mod:`larik.print_signals`'s, the outcome and the result object
:mod:`larik.print_outcome`'s, each line :mod:`larik.print_lines`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from contextlib import aclosing
from dataclasses import replace
from typing import IO, Any, cast

from .agent.events import AgentEventType
from .llm.errors import ConfigError, LarikError, LoginExpired, ResolveError
from .llm.secrets import MaskingWriter
from .llm.types import StopReason
from .print_lines import json_line, progress
from .print_options import PrintOptions, UsageError, check
from .print_outcome import (
    Outcome,
    cut_short,
    on_event,
    result_json,
    say_write_failed,
    stopped,
    write_failed,
    write_failed_result,
)
from .print_signals import Stopped, StopSignals
from .session import Session, SessionEvent, SessionEventType, SessionOptions, Turn
from .session.core import Subscription
from .terminal_text import is_terminal as _is_terminal
from .terminal_text import terminal as _for_terminal

__all__ = ["PrintOptions", "run_print"]

E = AgentEventType
_OK = (StopReason.END_TURN, StopReason.STOP_SEQUENCE)
PLAN_HINT = (
    "larik: plan mode changed nothing; to carry the plan out: "
    'larik --continue --permission-mode edits -p "carry out the plan"'
)
EXIT_PIPE_CLOSED = 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader left


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
    with StopSignals() as signals:
        try:
            prompt = check(opts, stdin or sys.stdin, err)
            return asyncio.run(_run(opts, prompt, out, err, signals))
        except (UsageError, ConfigError, ResolveError) as e:
            print(f"larik: {e}", file=err)
            return 2
        except LarikError as e:  # e.g. the session could not start: one line, not a traceback
            print(f"larik: {e}", file=err)
            return 1
        except Stopped as e:
            signals.signum = e.signum
            return stopped(opts, None, Outcome(stop=signals.stop_reason), signals, out, err)
        except KeyboardInterrupt:  # a forced stop (or Ctrl+C where no handler of ours was set)
            signals.signum = signals.signum or signal.SIGINT
            outcome = Outcome(stop=signals.stop_reason)
            return stopped(opts, signals.session, outcome, signals, out, err)
        except BrokenPipeError:
            if raw_out is sys.stdout:  # nothing more can reach the reader; keep exit's flush quiet
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_PIPE_CLOSED
        except OSError as e:  # the session's files could not be written (a full disk)
            return write_failed_result(opts, write_failed(e), out, err)


async def _run(
    opts: PrintOptions, prompt: str, out: IO[str], err: IO[str], signals: StopSignals
) -> int:
    signals.task = asyncio.current_task()
    tries = await _start_tries(opts) if opts.attempts > 1 else None
    made: list[Any] = []  # session/attempts.py's Attempt, one per try
    for n in range(1, opts.attempts + 1):
        if tries is not None and n > 1:
            await tries.areset()
            print(f"larik: try {n} of {opts.attempts}, from the same files", file=err)
        outcome = Outcome()
        session, code = await _one_try(opts, prompt, out, err, signals, outcome, tries, made)
        if code is not None:
            return code
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
        result = result_json(session, outcome, ok, opts)
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
    signals: StopSignals,
    outcome: Outcome,
    tries: Any,
    made: list[Any],
) -> tuple[Session | None, int | None]:
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
        return None, stopped(opts, None, outcome, signals, out, err)
    try:
        turn = await _turn(session, prompt, err)
        async with aclosing(aiter(turn)) as events:
            async for ev in events:
                if ev.type is E.USAGE and ev.model:  # provider/model, as the result names it
                    ev = replace(ev, model=_usage_spec(session, ev.model))
                on_event(ev, opts.output_format, outcome, out, err)
                if show_progress:
                    progress(ev, err)
        if tries is not None:
            made.append(await _check_try(session, prompt, outcome, tries, len(made) + 1))
    except BrokenPipeError:
        raise  # the reader went away: stop (the turn is closed and saved), say nothing
    except asyncio.CancelledError:  # a stop signal: StopSignals cancelled this task
        outcome.stop = signals.stop_reason
        with contextlib.suppress(OSError):  # every call a reader saw start is seen to end
            for ev in cut_short(outcome):
                on_event(ev, opts.output_format, outcome, out, err)
    except LarikError as e:
        outcome.error, outcome.stop = str(e), "error"
        outcome.login = isinstance(e, LoginExpired)
    except OSError as e:  # the transcript, the session log, a checkpoint: a full disk
        outcome.error, outcome.stop = write_failed(e), "error"
        say_write_failed(opts, outcome.error, err)
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
                say_write_failed(opts, outcome.error, err)
            outcome.stop = "error"
        for ev in said:  # SessionEnd hooks' notices
            with contextlib.suppress(BrokenPipeError):
                on_event(ev, opts.output_format, outcome, out, err)
    if outcome.stop in ("interrupted", "terminated"):
        return session, stopped(opts, session, outcome, signals, out, err)
    if tries is not None and len(made) < before + 1:  # it failed before its check
        made.append(_failed_try(session, outcome, len(made) + 1))
    return session, None


def _usage_spec(session: Session, model: str) -> str:
    """``provider/model`` of a model that answered, as the result names it."""
    usage = session.status.usage
    return usage.spec(model) if usage is not None else model


async def _check_try(session: Session, prompt: str, outcome: Outcome, tries: Any, n: int) -> Any:
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


def _failed_try(session: Session | None, outcome: Outcome, n: int) -> Any:
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
