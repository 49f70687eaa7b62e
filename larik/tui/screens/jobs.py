"""``/jobs``: the session's background jobs (``bash`` with ``background: true``); stop one.

The list shows each job's id, state (``running``, ``exited`` with its code, ``stopped``), how
long it has run and its command; the panel below, the highlighted job's last lines (escape
sequences and control bytes made safe). Redrawn every second while open. Keys: ``k`` or
Delete stops the highlighted job (its whole process group: SIGTERM, then SIGKILL; offered only
while it runs), Esc closes.
The job table is :class:`larik.agent.jobs.JobTable`; the screen only reads it and calls its
``stop``.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ..render import terminal_safe

__all__ = ["JobsScreen"]

_STYLE = {"running": "green", "exited": "dim", "stopped": "yellow"}
LINES = 6  # the highlighted job's last lines shown (the screen fits 80×24)


def _clock(seconds: float) -> str:
    s = int(seconds)
    return (
        f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
    )


class JobsScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    #jobs-list { height: auto; max-height: 6; }
    #jobs-detail { height: auto; max-height: 8; margin: 1 0 0 0; }
    """
    BINDINGS = [
        Binding("escape", "close", "close", show=False),
        Binding("k", "stop", "stop", show=False),
        Binding("delete", "stop", "stop", show=False),
    ]

    def __init__(self, table: Any) -> None:
        super().__init__(classes="modal")
        self.table = table

    def compose(self) -> ComposeResult:
        with Vertical(id="jobs-screen", classes="dialog"):
            yield Static(Text("Background jobs", style="bold"))
            yield OptionList(id="jobs-list")
            with VerticalScroll(id="jobs-detail"):
                yield Static("", id="jobs-detail-text")
            yield Static(Text("Esc close", style="dim"), id="jobs-keys")

    def on_mount(self) -> None:
        self.call_after_refresh(self._refresh)  # again once the list has its width
        self._refresh()
        ol = self.query_one("#jobs-list", OptionList)
        ol.highlighted = 0 if self.table.jobs else None
        ol.focus()
        self.set_interval(1.0, self._refresh)

    def _ids(self) -> list[int]:
        return list(self.table.jobs)

    def _row(self, job: Any) -> Text:
        state = job.state
        code = job.exit_code
        label = Text(f"{job.id:>3}  ", style="bold", no_wrap=True, overflow="ellipsis")
        what = state if code is None or state == "stopped" else f"{state} {code}"
        label.append(f"{what:<10}", style=_STYLE.get(state, ""))
        label.append(f"{_clock(job.runtime()):>8}  ", style="dim")
        label.append(terminal_safe(" ".join(job.command.split())))
        label.truncate(self._width(), overflow="ellipsis")  # one row each
        return label

    def _width(self) -> int:
        """Columns inside the list (before the first layout: a guess)."""
        width = self.query_one("#jobs-list", OptionList).scrollable_content_region.width
        return width - 2 if width > 20 else 60

    def _refresh(self) -> None:
        ol = self.query_one("#jobs-list", OptionList)
        ids = self._ids()
        keep = ol.highlighted
        ol.clear_options()
        if not ids:
            ol.add_option(Option(Text("no background jobs in this session", style="dim")))
        else:
            ol.add_options([Option(self._row(self.table.jobs[i])) for i in ids])
            ol.highlighted = min(keep or 0, len(ids) - 1)
        self._show_detail()

    def _current(self) -> Any:
        i = self.query_one("#jobs-list", OptionList).highlighted
        ids = self._ids()
        return self.table.jobs[ids[i]] if i is not None and 0 <= i < len(ids) else None

    def _show_detail(self) -> None:
        job = self._current()
        running = job is not None and job.state == "running"  # "k stop" only for one that runs
        keys = "k stop the job · Esc close" if running else "Esc close"
        self.query_one("#jobs-keys", Static).update(Text(keys, style="dim"))
        box = self.query_one("#jobs-detail-text", Static)
        if job is None:
            box.update("")
            return
        width = self._width()
        out = Text()
        command = Text(terminal_safe(" ".join(job.command.split())), style="bold")
        command.truncate(width, overflow="ellipsis")
        out.append_text(command)
        out.append("\n")
        lines = job.last_lines(LINES)
        text = terminal_safe("\n".join(lines), width) if lines else "(no output yet)"
        out.append(text, style="" if lines else "dim")
        box.update(out)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_detail()

    def action_stop(self) -> None:
        job = self._current()
        if job is not None and job.state == "running":
            self._stop(job.id)

    @work(group="jobs", exclusive=False)
    async def _stop(self, job_id: int) -> None:
        await self.table.stop(job_id)
        self._refresh()

    def action_close(self) -> None:
        self.dismiss(None)
