"""Print mode: ``larik -p PROMPT`` runs one task without the TUI and prints the outcome.

Output formats: ``text`` (the final answer on stdout; warnings and errors on stderr), ``json``
(one object at the end: final text, stop reason, usage, cost, session id) and ``stream-json``
(every agent event as one JSON line, then the same result object). Nobody can approve a tool
call, so in ``ask`` mode anything that would need a prompt is denied and the model is told why.

Exit codes: 0 the model finished its turn; 1 it could not (a model or tool failure, the
max-turns limit, a reply cut off or refused); 2 bad usage or config (one line on stderr);
130 interrupted (Ctrl+C), with the session left resumable; 141 the reader of stdout went away
(``larik -p … | head``): Larik stops quietly, the session saved, as a shell reports SIGPIPE.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .agent.events import AgentEvent, AgentEventType
from .llm.errors import ConfigError, LarikError, ResolveError
from .llm.types import EFFORTS, StopReason

__all__ = ["OUTPUT_FORMATS", "PrintOptions", "event_json", "run_print"]

OUTPUT_FORMATS = ("text", "json", "stream-json")
E = AgentEventType
_OK = (StopReason.END_TURN, StopReason.STOP_SEQUENCE)
INTERRUPTED = "larik: interrupted; the session was saved (larik --continue resumes it)"
EXIT_PIPE_CLOSED = 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader left


class UsageError(LarikError):
    """Bad command-line usage (exit code 2)."""


@dataclass
class PrintOptions:
    prompt: str
    cwd: Path
    model: str = ""
    effort: str | None = None
    permission_mode: str | None = None
    max_turns: int | None = None
    output_format: str = "text"
    resume: str | None = None  # None: new session; "latest"; or a session id
    trust_project: bool = False  # --trust-project: apply the project's loosening settings


@dataclass
class _Outcome:
    text: str = ""
    stop: str = ""
    error: str = ""


def run_print(
    opts: PrintOptions,
    *,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    out, err = stdout or sys.stdout, stderr or sys.stderr
    try:
        prompt = _check(opts, stdin or sys.stdin)
        return asyncio.run(_run(opts, prompt, out, err))
    except (UsageError, ConfigError, ResolveError) as e:
        print(f"larik: {e}", file=err)
        return 2
    except LarikError as e:  # e.g. the session could not start: one line, not a traceback
        print(f"larik: {e}", file=err)
        return 1
    except KeyboardInterrupt:
        print(INTERRUPTED, file=err)
        return 130
    except BrokenPipeError:
        if out is sys.stdout:  # nothing more can reach the reader; keep exit's flush quiet too
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE_CLOSED


def _check(opts: PrintOptions, stdin: IO[str]) -> str:
    if opts.output_format not in OUTPUT_FORMATS:
        raise UsageError(
            f"unknown output format {opts.output_format!r}: use {', '.join(OUTPUT_FORMATS)}"
        )
    if opts.effort is not None and opts.effort not in EFFORTS:
        raise UsageError(f"unknown effort {opts.effort!r}: use low, medium, high or max")
    if opts.max_turns is not None and opts.max_turns < 1:
        raise UsageError("--max-turns must be at least 1")
    prompt = stdin.read() if opts.prompt == "-" else opts.prompt
    if not prompt.strip():
        raise UsageError("no prompt: pass -p PROMPT, or -p - to read it from stdin")
    return prompt


async def _run(opts: PrintOptions, prompt: str, out: IO[str], err: IO[str]) -> int:
    from .agent import Agent
    from .agent.transcript import TranscriptError
    from .config import load_config

    try:
        config = load_config(opts.cwd, trust_project=opts.trust_project)
        if config.project_trust and not config.project_trust.trusted:
            print(config.project_trust.ignored_line(), file=err)
        servers = await _start_mcp(config, opts.cwd, err)
        try:
            agent = await Agent.create(
                cwd=opts.cwd,
                config=config,
                model=opts.model,
                effort=opts.effort,  # type: ignore[arg-type]
                permission_mode=opts.permission_mode,
                approver=None,
                resume=opts.resume,
                max_turns=opts.max_turns,
                tool_source=servers,
            )
        except BaseException:
            if servers is not None:
                await servers.close()
            raise
    except TranscriptError as e:
        raise UsageError(str(e)) from None
    outcome = _Outcome()
    try:
        async with aclosing(agent.run_turn(prompt)) as events:
            async for ev in events:
                _on_event(ev, opts.output_format, outcome, out, err)
    except BrokenPipeError:
        raise  # the reader went away: stop (the turn is closed and saved), say nothing
    except asyncio.CancelledError:  # Ctrl+C: asyncio.run cancels this task
        outcome.stop = "interrupted"
    except LarikError as e:
        outcome.error, outcome.stop = str(e), "error"
    except Exception as e:  # a bug: one line, not a traceback
        outcome.error, outcome.stop = f"internal error: {type(e).__name__}: {e}", "error"
    finally:
        await agent.close()
        if servers is not None:
            await servers.close()  # every server process is gone before Larik exits
    ok = not outcome.error and outcome.stop in _OK
    if outcome.stop == "interrupted":
        print(INTERRUPTED, file=err)
        if opts.output_format != "text":
            out.write(json.dumps(_result(agent, outcome, ok), ensure_ascii=False) + "\n")
        out.flush()
        return 130
    if opts.output_format == "text":
        if outcome.text:
            out.write(outcome.text.rstrip("\n") + "\n")
        if outcome.error:
            print(f"larik: {outcome.error}", file=err)
        elif not ok:
            print(f"larik: the turn ended without finishing ({outcome.stop})", file=err)
    else:
        out.write(json.dumps(_result(agent, outcome, ok), ensure_ascii=False) + "\n")
    out.flush()
    return 0 if ok else 1


async def _start_mcp(config: Any, cwd: Path, err: IO[str]) -> Any:
    """Start the configured MCP servers and wait for them (each within its startup timeout):
    a one-shot task needs its tools from the first request. A server that fails is one
    warning line; the task goes on without it."""
    if not config.mcp.servers:
        return None
    from .mcp.manager import McpManager

    manager = McpManager.from_config(config, cwd)
    manager.start_all()
    await manager.wait_settled()
    for line in manager.problems():
        print(f"larik: warning: {line}", file=err)
    return manager


def _on_event(ev: AgentEvent, fmt: str, outcome: _Outcome, out: IO[str], err: IO[str]) -> None:
    if ev.type is E.TURN_END:
        outcome.text = ev.text
        outcome.stop = "max_turns" if ev.data.get("max_turns") else str(ev.stop_reason or "")
    elif ev.type is E.ERROR:
        outcome.error, outcome.stop = ev.text, "error"
    if fmt == "stream-json":
        out.write(json.dumps(event_json(ev), ensure_ascii=False) + "\n")
        out.flush()
    elif fmt == "text" and ev.type is E.NOTICE and ev.level != "info":
        print(f"larik: {ev.level}: {ev.text}", file=err)


def event_json(ev: AgentEvent) -> dict[str, Any]:
    """An AgentEvent as a JSON object: ``type`` plus the fields that are set."""
    d: dict[str, Any] = {"type": ev.type.value}
    if ev.text:
        d["text"] = ev.text
    if ev.message is not None:
        d["message"] = ev.message.model_dump(mode="json")
    if ev.tool_id or ev.tool_name:
        d.update(tool_id=ev.tool_id, tool_name=ev.tool_name, tool_input=ev.tool_input)
    if ev.type is E.TOOL_END:
        d.update(is_error=ev.is_error, duration=round(ev.duration, 3))
    if ev.data:
        d["data"] = ev.data
    if ev.type is E.NOTICE:
        d["level"] = ev.level.value
    if ev.usage is not None:
        d.update(usage=ev.usage.model_dump(exclude_defaults=False), model=ev.model, role=ev.role)
        d["cost"] = ev.cost
    if ev.stop_reason is not None:
        d["stop_reason"] = ev.stop_reason.value
    if ev.subagent:
        d["subagent"] = ev.subagent
    return d


def _result(agent: Any, outcome: _Outcome, ok: bool) -> dict[str, Any]:
    return {
        "type": "result",
        "ok": ok,
        "text": outcome.text,
        "stop_reason": outcome.stop or "error",
        "error": outcome.error or None,
        "session_id": agent.session_id,
        "model": agent.spec,
        "usage": agent.usage.total.model_dump(exclude_defaults=False),
        "cost": agent.usage.total_cost,
        "usage_by_model": {
            m: u.model_dump(exclude_defaults=False) for m, u in agent.usage.by_model.items()
        },
        "cost_by_model": dict(agent.usage.cost_by_model),
        "usage_by_role": {
            r: u.model_dump(exclude_defaults=False) for r, u in agent.usage.by_role.items()
        },
    }
