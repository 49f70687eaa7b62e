"""What a print-mode run ends with: the outcome its events make (:func:`on_event`), the result
object ``json`` and ``stream-json`` end with (:func:`result_json`), and what a run says when a
signal stopped it or the session's files could not be written.

:mod:`larik.printmode` runs the session; :mod:`larik.print_lines` writes each line.
"""

from __future__ import annotations

import contextlib
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .agent.events import AgentEvent, AgentEventType
from .print_lines import event_json, json_line, target
from .print_options import PrintOptions
from .print_signals import StopSignals
from .refusal import Phrasing, from_data
from .session.plans import plan_json

if TYPE_CHECKING:
    from .session import Session

__all__ = [
    "INTERRUPTED",
    "Outcome",
    "cut_short",
    "on_event",
    "result_json",
    "say_write_failed",
    "stopped",
    "write_failed",
    "write_failed_result",
]

E = AgentEventType
INTERRUPTED = "larik: interrupted; the session was saved (larik --continue resumes it)"


#: How print mode says a refused call's remedy (larik/refusal.py): the flag to rerun with
REFUSALS = Phrasing(lambda mode: f"rerun with --permission-mode {mode}", alone="print mode")


@dataclass
class Outcome:
    text: str = ""
    stop: str = ""
    error: str = ""
    login: bool = False  # the error was a sign-in that must be redone (exit code 2)
    plan: str = ""  # plan mode: the plan the turn ended with
    verify: dict[str, Any] | None = None  # the turn's check of its edits (agent/verify.py)
    budget: dict[str, Any] | None = None  # the session's budget, when one was set
    running: dict[str, AgentEvent] = field(default_factory=dict)  # tool_start without an end


def write_failed(e: OSError) -> str:
    """One line for a write of the session's files (transcript, session log, checkpoints)
    that failed: a full disk (ENOSPC), a file-size limit (EFBIG), a read-only or forbidden
    folder (EROFS, EACCES)."""
    where = f" ({e.filename})" if e.filename else ""
    return f"cannot write the session's files{where}: {e.strerror or e}"


def say_write_failed(opts: PrintOptions, line: str, err: IO[str]) -> None:
    """The line on stderr in json and stream-json too (text mode says its error at the end)."""
    if opts.output_format != "text":
        with contextlib.suppress(OSError):
            print(f"larik: {line}", file=err)


def write_failed_result(opts: PrintOptions, line: str, out: IO[str], err: IO[str]) -> int:
    """The end of a run whose session could not be written: the line on stderr, the result
    (with the error) in json and stream-json, exit code 1."""
    with contextlib.suppress(OSError):
        print(f"larik: {line}", file=err)
        if opts.output_format != "text":
            result = result_json(None, Outcome(stop="error", error=line), False, opts)
            out.write(json_line(result))
        out.flush()
    return 1


def stopped(
    opts: PrintOptions,
    session: Session | None,
    outcome: Outcome,
    signals: StopSignals,
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
    result = result_json(session, outcome, False, opts)
    result["signal"] = signal.Signals(signum).name
    try:
        print(line, file=err)
        if opts.output_format != "text":
            out.write(json_line(result))
        out.flush()
    except OSError:
        pass
    return 128 + signum


def cut_short(outcome: Outcome) -> list[AgentEvent]:
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


def on_event(ev: AgentEvent, fmt: str, outcome: Outcome, out: IO[str], err: IO[str]) -> None:
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


def result_json(
    session: Session | None, outcome: Outcome, ok: bool, opts: PrintOptions
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
        # a signed-in plan's windows: what it cost the plan
        "plan_usage": plan_json(status.plan_usage),
        "budget": outcome.budget,
    }
