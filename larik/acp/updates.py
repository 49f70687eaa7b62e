"""Larik's events as ACP session updates, and a saved conversation as the updates it was.

One table, :data:`KINDS`, says which ACP ``kind`` each built-in tool is (a test walks it over
every tool): the editor picks its icon and its treatment by it (``edit`` calls are offered for
review, ``execute`` ones show their output). A file tool's call carries its file as a
``location`` (the editor can follow along) and an edit its change as ``diff`` content — an
overwrite from the text it replaced, so it never shows as a new file (:func:`written`); a
command's output comes as text content while it runs (or as the editor's own terminal, when
the editor runs it: :mod:`larik.acp.editor`). MCP tools are ``other``.

:func:`replay` turns a conversation (``Session.messages``) into the updates a client draws it
from, for ``session/load``: the user's text and images, the model's text and thinking, each
tool call and its result.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from acp import helpers
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    ContentToolCallContent,
    Cost,
    FileEditToolCallContent,
    PlanEntry,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
)

from ..agent.events import AgentEvent, AgentEventType
from ..llm.others_parse import json_value
from ..paths import resolve_path
from ..refusal import from_data
from .options import REFUSALS

__all__ = [
    "KINDS",
    "TITLES",
    "kind",
    "notice",
    "plan_update",
    "replay",
    "text_content",
    "tool_cut_short",
    "tool_end",
    "tool_output",
    "tool_start",
    "usage",
]

#: The ACP kind of each built-in tool (``other``: an MCP server's tool).
KINDS: dict[str, str] = {
    "read_file": "read",
    "write_file": "edit",
    "edit_file": "edit",
    "glob": "search",
    "grep": "search",
    "bash": "execute",
    "job_output": "read",
    "job_stop": "execute",
    "task": "think",
    "skill": "read",
    "web_fetch": "fetch",
    "answer": "think",
}
#: How a call's title starts (then its one-line summary).
TITLES = {
    "read_file": "Read",
    "write_file": "Write",
    "edit_file": "Edit",
    "glob": "Find",
    "grep": "Search",
    "bash": "Run",
    "job_output": "Job output",
    "job_stop": "Stop job",
    "task": "Task",
    "skill": "Skill",
    "web_fetch": "Fetch",
    "answer": "Answer",
}
PATH_TOOLS = ("read_file", "write_file", "edit_file")
SHOWN_OUTPUT = 8_000  # characters of a command's output (the end) shown while it runs
SHOWN_RESULT = 20_000  # characters of a result shown in the call
SHOWN_PREVIOUS = 100_000  # characters of a file's previous text sent as an overwrite's oldText
_START, _END = AgentEventType.TOOL_START, AgentEventType.TOOL_END


def kind(tool: str) -> Any:
    return KINDS.get(tool, "other")


def title(tool: str, summary: str) -> str:
    head = TITLES.get(tool)
    return f"{head} {summary}".rstrip() if head else f"{tool}: {summary}".rstrip(": ")


def text_content(text: str) -> ContentToolCallContent:
    return helpers.tool_content(helpers.text_block(text))


def _fenced(text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}\n{text.rstrip()}\n{fence}"


def _tail(text: str, most: int) -> str:
    return text if len(text) <= most else "…" + text[len(text) - most :]


def locations(root: Path, tool: str, tool_input: dict[str, Any]) -> list[ToolCallLocation]:
    """The file a file tool works on (absolute, as the editor opens it)."""
    raw = tool_input.get("path")
    if tool not in PATH_TOOLS or not isinstance(raw, str) or not raw:
        return []
    path = resolve_path(root, raw).path
    line = tool_input.get("offset") if tool == "read_file" else None
    return [ToolCallLocation(path=str(path), line=line if isinstance(line, int) else None)]


def diff(root: Path, tool: str, tool_input: dict[str, Any]) -> list[FileEditToolCallContent]:
    """An edit's change as the model asked for it: edit_file's old and new text. write_file's
    is known only once it ran (:func:`written`): what it replaces is read by the tool."""
    path = _path(root, tool_input)
    old, new = tool_input.get("old_string"), tool_input.get("new_string")
    if tool == "edit_file" and path and isinstance(old, str) and isinstance(new, str):
        return [helpers.tool_diff_content(path, new, old)]
    return []


def written(root: Path, ev: AgentEvent) -> list[Any]:
    """A write_file that ran, as the editor should show it: a new file as one, an overwrite as
    a diff from the text it replaced (``data["previous"]``, what the tool itself read) — or,
    over :data:`SHOWN_PREVIOUS` characters, a line saying so, never a diff that passes an
    overwrite off as a new file. A replayed call (no ``data``) shows its result line only."""
    path, new = _path(root, ev.tool_input), ev.tool_input.get("content")
    if not path or not isinstance(new, str) or "diff" not in ev.data:
        return []
    previous = ev.data.get("previous")
    if previous is None:  # the tool created the file
        return [helpers.tool_diff_content(path, new)]
    if len(previous) <= SHOWN_PREVIOUS:
        return [helpers.tool_diff_content(path, new, previous)]
    too_big = f"it replaced {len(previous):,} characters: too big to show as a diff"
    return [text_content(too_big)]


def _path(root: Path, tool_input: dict[str, Any]) -> str:
    raw = tool_input.get("path")
    return str(resolve_path(root, raw).path) if isinstance(raw, str) and raw else ""


def tool_start(root: Path, ev: AgentEvent, status: Any = "pending") -> ToolCallStart:
    content: list[Any] = list(diff(root, ev.tool_name, ev.tool_input))
    command = ev.tool_input.get("command")
    if ev.tool_name == "bash" and isinstance(command, str) and "\n" in command.strip():
        content.append(text_content(_fenced(command)))
    return helpers.start_tool_call(
        ev.tool_id,
        title(ev.tool_name, ev.text),
        kind=kind(ev.tool_name),
        status=status,
        content=content or None,
        locations=locations(root, ev.tool_name, ev.tool_input) or None,
        raw_input=ev.tool_input,
    )


def tool_output(tool_id: str, output: str) -> ToolCallProgress:
    """A running command's output so far (its end), replacing what was shown."""
    return helpers.update_tool_call(
        tool_id, status="in_progress", content=[text_content(_fenced(_tail(output, SHOWN_OUTPUT)))]
    )


def tool_cut_short(tool_id: str) -> ToolCallProgress:
    """A call whose turn ended before it did (cancelled): its final status."""
    why = "cancelled: the turn ended before this call did"
    return helpers.update_tool_call(tool_id, status="failed", content=[text_content(why)])


def tool_end(root: Path, ev: AgentEvent) -> ToolCallProgress:
    status: Any = "failed" if ev.is_error else "completed"
    content: list[Any] = []
    name = ev.tool_name
    if ev.data.get("terminal"):  # run in the editor's terminal: the call shows it already
        return helpers.update_tool_call(ev.tool_id, status=status)
    if not ev.is_error and KINDS.get(name) == "edit":
        content += written(root, ev) if name == "write_file" else diff(root, name, ev.tool_input)
        content.append(text_content(ev.text.partition("\n")[0]))  # "edited app.py: 1 replacement"
    elif ev.is_error or KINDS.get(name) not in ("read", "search"):
        refusal = from_data(ev.data)  # a refused call: its remedy in an editor's words
        shown = _tail(refusal.text(REFUSALS) if refusal else ev.text, SHOWN_RESULT)
        content.append(text_content(_fenced(shown) if name == "bash" else shown))
    return helpers.update_tool_call(ev.tool_id, status=status, content=content or None)


def notice(text: str, level: str = "info") -> AgentMessageChunk:
    """A notice of Larik's (a fallback, a compaction, a warning) in the reply, set apart."""
    mark = "⚠ " if level in ("warning", "error") else ""
    lines = "\n".join(f"> {line}" for line in text.splitlines() or [""])
    return helpers.update_agent_message_text(f"\n\n> {mark}{lines[2:]}\n\n")


def usage(used: int, size: int, cost: float | None) -> UsageUpdate:
    return UsageUpdate(
        session_update="usage_update",
        used=max(0, used),
        size=max(0, size),
        cost=Cost(amount=cost, currency="USD") if cost is not None else None,
    )


def plan_update(plan: str) -> AgentPlanUpdate:
    """A plan mode turn's plan as ACP plan entries: its list items (or its first line)."""
    entries = []
    for line in plan.splitlines():
        item = line.strip()
        for mark in ("- [ ] ", "- ", "* ", "+ "):
            if item.startswith(mark):
                entries.append(item[len(mark) :])
                break
        else:
            head, dot, rest = item.partition(". ")
            if dot and head.isdigit() and rest:
                entries.append(rest)
    if not entries:
        first = next((s.strip() for s in plan.splitlines() if s.strip()), "the plan")
        entries = [first]
    return helpers.update_plan(
        PlanEntry(content=e[:500], priority="medium", status="pending") for e in entries[:50]
    )


def replay(root: Path, messages: list[Any], skip: tuple[str, ...] = ()) -> Iterator[Any]:
    """The updates a client draws ``messages`` (a Larik conversation) from. ``skip``: text
    blocks Larik added to the user's messages (the plan-mode note)."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    for m in messages:
        for b in m.blocks:
            if m.role == "user":
                yield from _user_block(root, b, calls, skip)
            elif b.type == "text" and b.text:
                yield helpers.update_agent_message_text(b.text)
            elif b.type == "thinking" and b.text and not b.redacted:
                yield helpers.update_agent_thought_text(b.text)
            elif b.type == "tool_use":
                tool_input = _input(b)
                calls[b.id] = (b.name, tool_input)
                ev = AgentEvent(
                    type=_START,
                    tool_id=b.id,
                    tool_name=b.name,
                    tool_input=tool_input,
                    text=_summary(tool_input),
                )
                yield tool_start(root, ev, status="in_progress")


def _user_block(
    root: Path, b: Any, calls: dict[str, tuple[str, dict[str, Any]]], skip: tuple[str, ...]
) -> Iterator[Any]:
    if b.type == "text" and b.text and b.text not in skip:
        yield helpers.update_user_message_text(b.text)
    elif b.type == "image" and b.data:
        yield helpers.update_user_message(helpers.image_block(b.data, b.media_type))
    elif b.type == "tool_result":
        name, tool_input = calls.get(b.id, ("", {}))
        ev = AgentEvent(
            type=_END,
            tool_id=b.id,
            tool_name=name,
            tool_input=tool_input,
            text=b.content,
            is_error=b.is_error,
        )
        yield tool_end(root, ev)


def _input(b: Any) -> dict[str, Any]:
    try:
        value = json_value(b.input) if b.input else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _summary(tool_input: dict[str, Any]) -> str:
    for key in ("path", "command", "pattern", "url", "prompt", "name", "job_id"):
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            first = value.strip().splitlines()[0]
            return first[:100] + ("…" if len(first) > 100 else "")
    return ""
