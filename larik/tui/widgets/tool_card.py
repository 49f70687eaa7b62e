"""A tool call as a compact card: tool, key argument, status and duration on one line — and
what it came to: an edit's lines added and removed (``+1 −1``), why it was refused or failed,
an exit code.

Enter or a click expands it to the arguments and the result: edits as a coloured unified diff
(with only the arguments the diff does not show), ``bash`` and ``!command`` with their exit
code (long output cut to its last lines), anything else as text (cut to its first lines).

A live card and one drawn from a resumed transcript go through the same :func:`outcome`: the
status (ok, error, denied, interrupted) and the exit code come from the tool's data when there
is some (live), else from the result's text as the transcript keeps it (``permission denied:
…``, ``[exit code N]``), so both views show a call the same way. A command that exits non-zero
is a failure (✗), whatever the tool's ``is_error`` says.

A ``task`` card also lists its subagent's tool calls as they happen (``sub_step``), or, for a
resumed session, as its transcript recorded them (``sub_transcript``, read when expanded).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual.events import Click

from ...refusal import DENIED, from_data
from ...words import count
from ..bindings import for_scope
from ..plan import REFUSALS
from ..render import args_beside_diff, args_beside_header, diff_text, pretty_args, terminal_safe
from .rendered_lines import RenderedLines

__all__ = [
    "ToolCard",
    "call_summary",
    "denial_reason",
    "failure_reason",
    "diff_counts",
    "key_argument",
    "outcome",
    "tool_text",
]

MAX_RESULT_LINES = 200
MAX_LINE_CHARS = 2000  # a longer line of a result is cut (Enter shows it all)
LIVE_LINES = 20  # a running command's last lines shown as they come …
LIVE_LINE_CHARS = 400  # … each cut to its end, so output without newlines stays a few rows
LIVE_CHARS = 64 * 1024  # the running output kept for that (the newest)
REASON_CHARS = 80  # a refusal's reason on the card's line is cut to this (opened: whole)
LIVE_INTERVAL = 0.1  # seconds: the live view is redrawn at most ~10 times a second
TAIL_TOOLS = frozenset({"bash", "!"})  # shell output: its end is shown when it is long
_KEY_ARGS = ("command", "path", "file_path", "pattern", "query", "url", "description", "prompt")
_ICONS = {"running": "⋯", "ok": "✓", "error": "✗", "denied": "⊘", "interrupted": "◼"}
_COLOURS = {"running": "yellow", "ok": "green", "error": "red", "denied": "magenta"}


_EXIT = re.compile(r"\[exit code (-?\d+)\]\s*$")
INTERRUPTED = "interrupted by the user before this tool call finished"  # agent/runner.py's


def outcome(
    result: str | None, is_error: bool = False, data: dict[str, Any] | None = None
) -> tuple[str, dict[str, Any]]:
    """A call's status and data, from its result (None: still running) and the tool's data
    (live) or the result's text alone (a resumed transcript)."""
    data = dict(data or {})
    if result is None:
        return "running", data
    if "exit_code" not in data and (m := _EXIT.search(result)):
        data["exit_code"] = int(m.group(1))
    if data.get("denied") or (is_error and result.startswith(DENIED)):
        data["denied"] = True
        refusal = from_data(data)  # live: phrased for the TUI (a resumed one: its text)
        data.setdefault("reason", denial_reason(refusal.text(REFUSALS) if refusal else result))
        return "denied", data
    if data.get("interrupted") or (is_error and result == INTERRUPTED):
        data["interrupted"] = True  # a resumed call that an interrupt answered, as live
        return "interrupted", data
    stopped = (
        data.get("state") == "stopped"
    )  # a job job_stop or /jobs ended: its signal is no failure
    failed = is_error or (data.get("exit_code") not in (None, 0) and not stopped)
    if is_error and "exit_code" not in data:  # a tool's refusal or failure: say which
        data.setdefault("reason", failure_reason(result))
    return ("error" if failed else "ok"), data


def failure_reason(result: str, limit: int = REASON_CHARS) -> str:
    """Why a call failed, from its error text: the first line, without the tool's name the
    text starts with (the card shows it already; any other ``word:`` is the reason's own, as
    a file's name), cut as a refusal's reason is."""
    from ...tool_names import ALL_TOOLS

    text = result.lstrip()
    name, sep, rest = text.partition(": ")
    return denial_reason(rest if sep and name in ALL_TOOLS else text, limit)


def denial_reason(result: str, limit: int = REASON_CHARS) -> str:
    """Why a call was refused, from its result (``permission denied: REASON``): its first
    line, cut to ``limit`` characters (the card opened shows it whole)."""
    text = result.removeprefix(DENIED).lstrip(": ").strip()
    line = " ".join(text.splitlines()[0].split()) if text else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def diff_counts(diff: str) -> tuple[int, int]:
    """(lines added, lines removed) of a unified diff, its file headers left out."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            continue
        added += line.startswith("+")
        removed += line.startswith("-")
    return added, removed


def tool_text(name: str, summary: str, args: dict[str, Any] | None, result: str, data: Any) -> str:
    """What a tool call holds: its line, its arguments, its output (whole), its diff."""
    parts = [f"{name}  {summary}"]
    for key, value in (args or {}).items():
        shown = (
            value
            if isinstance(value, str)
            else json.dumps(value, ensure_ascii=False, allow_nan=True)
        )
        parts.append(f"{key}: {shown}")
    diff = (data or {}).get("diff") if isinstance(data, dict) else None
    if isinstance(diff, str):
        parts.append(diff)
    parts.append(result)
    return "\n".join(parts)


def call_summary(name: str, tool_input: dict[str, Any]) -> str:
    """The line a live card shows for a call (the tool's own ``summary``, as the agent's
    ``tool_start`` event carries it), worked out again for a call in a resumed transcript."""
    try:
        from ...agent.tools import get_tool

        tool = get_tool(name)
        if tool is not None:
            return tool.summary(tool.args.model_validate(tool_input))
    except Exception:  # arguments the tool would refuse, an MCP tool: its key argument
        pass
    return key_argument(tool_input)


def key_argument(tool_input: dict[str, Any], limit: int = 70) -> str:
    """The one argument that says what a call does (its command, path or pattern), shortened."""
    value: Any = None
    for key in _KEY_ARGS:
        if isinstance(tool_input.get(key), str) and tool_input[key]:
            value = tool_input[key]
            break
    if value is None:
        value = next((v for v in tool_input.values() if isinstance(v, str) and v), "")
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ToolCard(RenderedLines, can_focus=True):
    BINDINGS = for_scope("card")  # Enter, Space: open or fold (larik/tui/bindings.py)

    def __init__(
        self,
        name: str,
        tool_input: dict[str, Any] | None = None,
        summary: str = "",
        tool_id: str = "",
    ) -> None:
        self.tool_name = name
        self.tool_id = tool_id
        self.tool_input = tool_input or {}
        self.summary = summary or key_argument(self.tool_input)
        self.status = "running"
        self.duration: float | None = None
        self.result = ""
        self.data: dict[str, Any] = {}
        self.steps: dict[str, list[str]] = {}  # a subagent's calls: id -> [name, summary, status]
        self.sub_transcript: Path | None = None  # a resumed task's subagent, read when expanded
        self.whole = False  # the whole result shown, not only its first or last lines
        self._live = ""
        self._live_pending = False
        self._live_shown = float("-inf")  # when the live view was last drawn
        self._live_opened = False  # the live view opened the card (not the user)
        self._started = time.monotonic()
        super().__init__(
            gap=0, header=self._header_text(), collapsed=True, classes="tool-card -running"
        )

    def _header_text(self) -> Text:
        head = self.header_of(self.tool_name, self.summary, self.status, self.data, self.duration)
        if self.steps:
            head.append(f"  · {count(len(self.steps), 'subagent call')}", style="dim")
        return head

    def sub_step(self, tool_id: str, name: str, summary: str, status: str) -> None:
        """A subagent's tool call started (status "running") or ended ("ok", "error")."""
        step = self.steps.setdefault(tool_id, [name, summary, status])
        step[2] = status
        self.set_header(self._header_text())
        if self.expanded:
            self.set_items([Padding(self._body_renderable(), (0, 0, 0, 2))])

    def _load_steps(self) -> None:
        """A resumed task's subagent calls, read from its transcript on first expand."""
        from ...agent.subagent import subagent_steps

        path, self.sub_transcript = self.sub_transcript, None
        for i, s in enumerate(subagent_steps(path) if path is not None else []):
            self.steps[str(i)] = [s.name, call_summary(s.name, s.args), s.status]
        self.set_items([Padding(self._body_renderable(), (0, 0, 0, 2))], update=False)
        self.set_header(self._header_text())

    def _steps_text(self) -> Text:
        t = Text()
        for name, summary, status in self.steps.values():
            t.append(f"{_ICONS.get(status, '?')} ", style=_COLOURS.get(status, "dim"))
            t.append(name, style="bold")
            t.append(f"  {summary}\n" if summary else "\n")
        return t

    @staticmethod
    def header_of(
        name: str,
        summary: str,
        status: str,
        data: dict[str, Any] | None = None,
        duration: float | None = None,
    ) -> Text:
        """The card's one line: status icon, tool, key argument, and what it came to."""
        icon = _ICONS.get(status, "?")
        t = Text()
        t.append(f"{icon} ", style=_COLOURS.get(status, "dim"))
        t.append(name, style="bold")
        if summary:
            t.append(f"  {summary}")
        extra: list[str] = []
        reason = (data or {}).get("reason")
        if status == "denied" and isinstance(reason, str) and reason:
            extra.append(f"denied: {reason.removeprefix('denied ')}")  # not "denied: denied by"
        elif status in ("denied", "interrupted"):
            extra.append(status)
        elif status == "error" and isinstance(reason, str) and reason:
            extra.append(reason)  # a failure with no exit code: what went wrong
        diff = (data or {}).get("diff")
        if isinstance(diff, str) and diff and status != "denied":
            added, removed = diff_counts(diff)
            extra.append(f"+{added} −{removed}")
        job = (data or {}).get("job_id")  # a background job (agent/jobs.py): its id and state
        if job is not None:
            extra.append(f"job {job} {(data or {}).get('state', '')}".rstrip())
        exit_code = (data or {}).get("exit_code")
        if (data or {}).get("timed_out"):
            extra.append("timed out")  # its exit code is the kill's (-9): not the command's
        elif exit_code is not None:
            extra.append(f"exit {exit_code}")
        found = (data or {}).get("diagnostics")  # what a language server said of an edit
        if isinstance(found, list) and found:
            extra.append(count(len(found), "diagnostic"))
        if duration is not None and status not in ("denied", "running"):
            extra.append(f"{duration:.1f}s")  # a refused call took no time: none is shown
        if extra:
            t.append("  · " + " · ".join(extra), style="dim")
        return t

    @staticmethod
    def status_of(result: str | None, is_error: bool = False) -> str:
        """The status of a call from history: running until it has a result."""
        return outcome(result, is_error)[0]

    @staticmethod
    def archive_form(
        header: Text, style: Style, body: RenderableType | None = None
    ) -> RenderableType:
        """A card in the conversation's archive, without a widget (``style``: a card's)."""
        parts: list[RenderableType] = [header]
        if body is not None:
            parts.append(Padding(body, (0, 0, 0, 2)))
        return Padding(Group(*parts), (0, 1), style=style, expand=True)

    def finish(
        self,
        result: str,
        *,
        is_error: bool = False,
        duration: float | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        refusal = from_data(data)  # a refused call: its remedy in the TUI's words
        self.result = refusal.text(REFUSALS) if refusal is not None else result
        self.status, self.data = outcome(result, is_error, data)
        self.duration = duration
        self.set_class(False, "-running")
        self.add_class(f"-{self.status}")
        if self._live_opened:  # its live output was shown: it folds back to its one line
            self._live_opened = False
            self.set_class(False, "-expanded")
            self.collapsed = True
        if self.collapsed:  # the body is built when the card is opened (action_toggle)
            self.set_items([], update=False)
        else:
            self.set_items([Padding(self._body_renderable(), (0, 0, 0, 2))], update=False)
        self.set_header(self._header_text())

    def elapsed(self) -> float:
        return time.monotonic() - self._started

    def mark_interrupted(self) -> None:
        """Stopped before it ended: a command's output so far stays in view as its result."""
        if self.status == "running":
            self._live_opened = False  # an open live view stays open: where it stopped
            shown = self._live[-LIVE_CHARS:]
            data = {"interrupted": True, "exit_code": None}  # none, whatever the output says
            self.finish(shown, data=data, duration=self.elapsed())

    def _body_renderable(self) -> RenderableType:
        parts: list[RenderableType] = []
        diff = self.data.get("diff")
        has_diff = isinstance(diff, str) and bool(diff)
        args = args_beside_diff(self.tool_input) if has_diff else self.tool_input
        args = args_beside_header(args, self.summary)
        if args:
            parts.append(pretty_args(args))
        if self.steps:
            parts.append(self._steps_text())
        if has_diff:
            parts.append(diff_text(str(diff)))
            if found := self._diagnostics_text():
                parts.append(found)
        elif self.result:
            parts.append(self._result_text())
        elif self.status == "running":
            parts.append(Text("running…", style="dim"))
        return Group(*parts)

    def _diagnostics_text(self) -> Text | None:
        """What a language server said the edit introduced (``data["diagnostics"]``: lines
        ``file:line:col severity code message``, from larik.lsp), below the diff."""
        found = self.data.get("diagnostics")
        if not isinstance(found, list) or not found:
            return None
        text = Text("language server:\n", style="dim")
        for line in found:
            shown = terminal_safe(str(line), MAX_LINE_CHARS)
            style = "yellow" if " warning " in shown else "red"
            text.append(shown + "\n", style=style)
        text.rstrip()
        return text

    def _result_text(self) -> Text:
        """The result, cut to ``MAX_RESULT_LINES``: a command's last lines (that is where its
        errors are, and what the bash runner keeps), anything else's first lines; drawn safe
        (no escape sequence of a command's output reaches the terminal: ``terminal_safe``)."""
        limit = 0 if self.whole else MAX_LINE_CHARS
        tail = self.tool_name in TAIL_TOOLS  # a command's long line: its end, else its start
        lines = terminal_safe(self.result, limit, keep_start=not tail).splitlines()
        style = "red" if self.status == "error" else ""
        cut = len(lines) - MAX_RESULT_LINES
        if cut <= 0 or self.whole:
            return Text("\n".join(lines), style=style)
        if self.tool_name in TAIL_TOOLS:
            text = Text(f"… {count(cut, 'earlier line')} (Enter shows them all)\n", style="dim")
            text.append("\n".join(lines[cut:]), style=style)
            return text
        text = Text("\n".join(lines[:MAX_RESULT_LINES]), style=style)
        text.append(f"\n… {count(cut, 'more line')} (Enter shows them all)", style="dim")
        return text

    @property
    def cut(self) -> bool:
        """The expanded card shows only part of the result."""
        if self.whole:
            return False
        lines = self.result.splitlines()
        return len(lines) > MAX_RESULT_LINES or any(len(x) > MAX_LINE_CHARS for x in lines)

    # -- a command's output while it runs (the bash tool's tool_output events, !command) ----
    def live(self, text: str) -> None:
        """More output of the running command: its last lines are shown, redrawn at most every
        ``LIVE_INTERVAL`` (the first at once). Cheap: called for every output event."""
        self._live += text
        if len(self._live) > LIVE_CHARS * 2:
            self._live = self._live[-LIVE_CHARS:]
        if not self._live_pending:
            self._live_pending = True
            wait = self._live_shown + LIVE_INTERVAL - time.monotonic()
            if wait > 0:
                self.set_timer(wait, self._show_live)
            else:
                self.call_later(self._show_live)

    def _show_live(self) -> None:
        self._live_pending = False
        if self.status != "running":
            return
        self._live_shown = time.monotonic()
        tail = "\n".join(self._live[-LIVE_CHARS:].rsplit("\n", LIVE_LINES + 1)[-LIVE_LINES - 1 :])
        lines = terminal_safe(tail, LIVE_LINE_CHARS).splitlines()[-LIVE_LINES:]
        self._live_opened = self._live_opened or self.collapsed
        self.set_class(True, "-expanded")
        # drawn now if open (laid out again only when its height changed), or by opening it
        self.set_items([Padding(Text("\n".join(lines)), (0, 0, 0, 2))], update=self.expanded)
        self.collapsed = False

    @property
    def search_text(self) -> str:
        """What a search of the conversation looks in (larik/tui/find.py): the call's line,
        its arguments, its whole output (or what a running command printed so far), a
        subagent's calls."""
        steps = "\n".join(f"{n}  {s}" for n, s, _ in self.steps.values())
        result = self.result if self.status != "running" else self._live
        return tool_text(self.tool_name, self.summary, self.tool_input, result, self.data) + (
            "\n" + steps if steps else ""
        )

    @property
    def live_text(self) -> str:
        """The running output the card holds (its newest ``LIVE_CHARS`` or so)."""
        return self._live

    def archived(self) -> RenderableType:
        body = self._body_renderable() if self.expanded else None
        return self.archive_form(self._header_text(), self.rich_style, body)

    @property
    def expanded(self) -> bool:
        return not self.collapsed

    def action_toggle(self) -> None:  # type: ignore[override]  # Textual's takes an attribute
        """Collapsed → expanded → (when its output was cut) all of it → collapsed."""
        self._live_opened = False  # the user's choice from now on
        if self.sub_transcript is not None and self.collapsed:
            self._load_steps()
        if self.expanded and self.cut:
            self.whole = True
            self.set_items([Padding(self._body_renderable(), (0, 0, 0, 2))], update=False)
            self.refresh(layout=True)
            return
        if self.whole:
            self.whole = False
            self.set_items([], update=False)
        if not self.item_count:
            self.set_items([Padding(self._body_renderable(), (0, 0, 0, 2))], update=False)
        self.collapsed = not self.collapsed
        self.set_class(self.expanded, "-expanded")

    def on_click(self, event: Click) -> None:
        event.stop()
        self.action_toggle()
