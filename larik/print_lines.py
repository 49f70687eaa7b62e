"""What print mode writes: each event as a JSON object (``stream-json``), one line of JSON
for it and for the result, and the progress lines on stderr (a terminal, or ``--verbose``).

:mod:`larik.printmode` runs the session and decides what to say; this module only says it.
"""

from __future__ import annotations

from typing import IO, Any

from .agent.events import AgentEvent, AgentEventType
from .llm import jsontext
from .others_text import encodable_json
from .tool_contract import LIVE_ONLY
from .words import count

__all__ = ["event_json", "json_line", "progress", "result_line", "target"]

E = AgentEventType


def progress(ev: AgentEvent, err: IO[str]) -> None:
    """What the run is doing, one line each, on stderr (a terminal, or ``--verbose``): each tool
    call and its result, each model reply (a subagent's too) and the notices that are not
    warnings (those are printed anyway)."""
    who = f"[{ev.subagent}] " if ev.subagent else ""
    if ev.type is E.TOOL_START:
        line = f"{ev.tool_name} {ev.text}".rstrip()
    elif ev.type is E.USAGE and ev.usage is not None:
        u = ev.usage
        line = (
            f"{ev.model or 'the model'} replied ({u.input + u.cache_read:,} in, {u.output:,} out)"
        )
    elif ev.type is E.TOOL_END:
        line = result_line(ev)
    elif ev.type is E.NOTICE and ev.level == "info":
        line = ev.text
    else:
        return
    print(f"larik: · {who}{' '.join(line.split())[:200]}", file=err, flush=True)


def result_line(ev: AgentEvent) -> str:
    """A tool call's result in one line: done or failed, how long, its first line of output
    and how many more there are."""
    lines = [line for line in ev.text.splitlines() if line.strip()]
    first = " ".join(lines[0].split()) if lines else "(no output)"
    first = first if len(first) <= 120 else first[:119] + "…"
    more = f" (+{count(len(lines) - 1, 'line')})" if len(lines) > 1 else ""
    state = "failed" if ev.is_error else "done"
    return f"{ev.tool_name} {state} in {ev.duration:.1f}s: {first}{more}"


def target(ev: AgentEvent) -> str:
    value = next((ev.tool_input.get(k) for k in ("path", "command") if ev.tool_input.get(k)), "")
    text = " ".join(str(value).split())
    return f"{text[:80]}{'…' if len(text) > 80 else ''} " if text else ""


def json_line(value: dict[str, Any]) -> str:
    """``value`` as one line of JSON (``allow_nan=False``: stdout is read by programs that
    parse strictly), whatever text it holds (a lone surrogate: :func:`~larik.others_text.encodable_json`). A value that has no JSON text (a NaN or an infinity in it) becomes a line
    of the same type that says so, with ``"ok": false``: never an invalid line."""
    try:
        return encodable_json(jsontext.dumps(value, ensure_ascii=False)) + "\n"
    except jsontext.NotJson as e:
        kind = str(value.get("type") or "event")
        said = {"type": kind, "ok": False, "error": f"larik: this {kind} has no JSON text: {e}"}
        return encodable_json(jsontext.dumps(said, ensure_ascii=False)) + "\n"


def event_json(ev: AgentEvent) -> dict[str, Any]:
    """An AgentEvent as a JSON object: ``type`` plus the fields that are set."""
    d: dict[str, Any] = {"type": ev.type.value}
    if ev.text:
        d["text"] = ev.text
    if ev.message is not None:
        d["message"] = ev.message.model_dump(mode="json")
    if ev.type is E.TOOL_OUTPUT:  # a running command's output: the call is named, not repeated
        d.update(tool_id=ev.tool_id, tool_name=ev.tool_name)
    elif ev.tool_id or ev.tool_name:
        d.update(tool_id=ev.tool_id, tool_name=ev.tool_name, tool_input=ev.tool_input)
    if ev.type is E.TOOL_END:
        d.update(is_error=ev.is_error, duration=round(ev.duration, 3))
    if data := {k: v for k, v in ev.data.items() if k not in LIVE_ONLY}:
        d["data"] = data  # not what lives only on the way to a screen (a write's old text)
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
