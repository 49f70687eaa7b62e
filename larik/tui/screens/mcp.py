"""``/mcp``: the MCP servers, their state and tools; enable, disable or reconnect one.

The list shows each server's state (``ready``, ``starting``, ``failed``, ``disabled``) and how
many tools it gives; the panel below shows the highlighted server's command or URL, where it was
configured, its error and the end of its stderr (masked of its secrets), and its tools. Keys:
Enter or Space turns the server on or off for this session, ``r`` reconnects it, Esc closes.
Changes made while the screen is open (a server finishing its start) are shown as they happen.
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

from ...words import count

__all__ = ["McpScreen"]

_STYLE = {
    "ready": "green",
    "starting": "yellow",
    "failed": "red",
    "disabled": "dim",
    "stopped": "dim",
}


class McpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    #mcp-list { height: auto; max-height: 10; }
    #mcp-detail { height: auto; max-height: 18; margin: 1 0; }
    """
    BINDINGS = [
        Binding("escape", "close", "close", show=False),
        Binding("space", "toggle", "on/off", show=False),
        Binding("r", "reconnect", "reconnect", show=False),
    ]

    def __init__(self, manager: Any, blocked: list[str] | None = None) -> None:
        super().__init__(classes="modal")
        self.manager = manager
        self.names = list(manager.servers)
        self.blocked = blocked or []  # the project's servers that wait for trust, a line each

    def compose(self) -> ComposeResult:
        with Vertical(id="mcp-screen", classes="dialog"):
            yield Static(Text("MCP servers", style="bold"))
            if not self.names:
                yield Static(
                    "No MCP servers configured. Add one with `larik mcp add NAME -- COMMAND`, "
                    "or in [mcp.servers.NAME] (docs/mcp.md). Esc to close."
                )
            yield OptionList(id="mcp-list")
            if self.blocked:
                yield Static("\n".join(self.blocked), id="mcp-blocked")
            with VerticalScroll(id="mcp-detail"):
                yield Static("", id="mcp-detail-text")
            yield Static(
                Text("Enter/Space on/off · r reconnect · Esc close", style="dim"), id="mcp-keys"
            )

    def on_mount(self) -> None:
        self.manager.listeners.append(self._changed)
        self._refresh()
        ol = self.query_one("#mcp-list", OptionList)
        ol.highlighted = 0 if self.names else None
        ol.focus()

    def on_unmount(self) -> None:
        if self._changed in self.manager.listeners:
            self.manager.listeners.remove(self._changed)

    def _changed(self, server: Any) -> None:
        self.call_later(self._refresh)

    def _row(self, name: str) -> Text:
        s = self.manager.servers[name]
        state = str(s.state)
        label = Text(name, style="bold")
        label.append(f"  {state}", style=_STYLE.get(state, ""))
        if state == "ready":
            label.append(f"  {count(len(s.tools), 'tool')}", style="dim")
        label.append(f"  {s.config.transport}", style="dim")
        return label

    def _refresh(self) -> None:
        ol = self.query_one("#mcp-list", OptionList)
        keep = ol.highlighted
        ol.clear_options()
        ol.add_options([Option(self._row(n)) for n in self.names])
        if keep is not None and self.names:
            ol.highlighted = min(keep, len(self.names) - 1)
        self._show_detail()

    def _current(self) -> Any:
        i = self.query_one("#mcp-list", OptionList).highlighted
        return self.manager.servers[self.names[i]] if i is not None and self.names else None

    def _show_detail(self) -> None:
        s = self._current()
        box = self.query_one("#mcp-detail-text", Static)
        if s is None:
            box.update("")
            return
        out = Text()
        out.append(f"{s.config.describe()}\n", style="bold")
        if s.config.source:
            out.append(f"from {s.config.source}\n", style="dim")
        if s.error:
            out.append(f"{s.error}\n", style="red")
        if getattr(s, "login_url", ""):
            out.append("waiting for you to log in (OAuth): open\n", style="yellow")
            out.append(f"{s.login_url}\n", style=f"link {s.login_url}")
        tail = s.stderr_tail
        if tail and str(s.state) == "failed":
            out.append("stderr:\n", style="dim")
            out.append("\n".join(tail.splitlines()[-8:]) + "\n")
        for t in s.tools[:50]:
            out.append(f"  {t.name}", style="bold")
            out.append(" (read-only)" if t.read_only else "", style="dim")
            out.append(f"  {t.description.splitlines()[0][:80] if t.description else ''}\n")
        if len(s.tools) > 50:
            out.append(f"  … {len(s.tools) - 50} more\n", style="dim")
        if s.hidden_tools:
            out.append(f"  ({s.hidden_tools} left out by the tools allow list)\n", style="dim")
        box.update(out)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_detail()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_toggle()

    def action_toggle(self) -> None:  # type: ignore[override]  # Textual's takes an attribute
        s = self._current()
        if s is not None:
            self._switch(s.name, str(s.state) == "disabled")

    def action_reconnect(self) -> None:
        s = self._current()
        if s is not None and str(s.state) != "disabled":
            self._reconnect(s.name)

    @work(group="mcp", exclusive=False)
    async def _switch(self, name: str, enable: bool) -> None:
        await self.manager.set_enabled(name, enable)

    @work(group="mcp", exclusive=False)
    async def _reconnect(self, name: str) -> None:
        await self.manager.servers[name].restart()

    def action_close(self) -> None:
        self.dismiss(None)
