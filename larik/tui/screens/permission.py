"""The permission prompt: a tool call the agent wants to make, and the user's answer.

Shows the tool, its arguments, and for an edit the diff with only the arguments the diff does
not already show (``replace_all``, say). ``y`` allows once, ``a`` allows this kind of call for
the rest of the session, ``n`` denies; a reason typed in the box is sent to the model with the
denial. Esc denies.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from ...agent.events import Approval, PermissionRequest
from ..render import args_beside_diff, diff_text, pretty_args

__all__ = ["PermissionScreen"]


class PermissionScreen(ModalScreen[Approval]):
    BINDINGS = [
        Binding("y", "allow", "allow once"),
        Binding("a", "allow_always", "allow always"),
        Binding("n", "deny", "deny"),
        Binding("escape", "deny", "deny", show=False),
        Binding("pageup", "scroll_details(-1)", show=False),
        Binding("pagedown", "scroll_details(1)", show=False),
    ]

    def __init__(self, request: PermissionRequest) -> None:
        super().__init__(classes="modal")
        self.request = request

    def compose(self) -> ComposeResult:
        r = self.request
        with Vertical(id="permission", classes="dialog"):
            title = Text("Allow ", style="bold")
            title.append(r.tool_name, style="bold yellow")
            title.append("?", style="bold")
            summary = r.summary.removeprefix(f"{r.tool_name}: ")
            if summary:
                title.append(f"  {summary}")
            yield Static(title, id="permission-title")
            with VerticalScroll(id="permission-details"):
                yield Static(self._details())
            yield Input(
                placeholder="reason for a denial (optional, sent to the model)", id="reason"
            )
            with Horizontal(classes="buttons"):
                yield Button("Allow once (y)", id="allow", variant="success")
                yield Button("Allow always this session (a)", id="always", variant="primary")
                yield Button("Deny (n)", id="deny", variant="error")
            always = getattr(r, "always", "")
            if always:
                yield Static(Text(f"allow always covers: {always}", style="dim"), id="always-scope")

    def _details(self) -> RenderableType:
        parts: list[RenderableType] = []
        if self.request.diff:
            parts.append(diff_text(self.request.diff))
            rest = args_beside_diff(self.request.tool_input)
            if rest:
                parts.append(pretty_args(rest))
        else:
            parts.append(pretty_args(self.request.tool_input))
        return Group(*parts)

    def on_mount(self) -> None:
        self.query_one("#allow", Button).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_deny()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        {"allow": self.action_allow, "always": self.action_allow_always}.get(
            event.button.id or "", self.action_deny
        )()

    def action_scroll_details(self, direction: int) -> None:
        details = self.query_one("#permission-details", VerticalScroll)
        if direction < 0:
            details.scroll_page_up(animate=False)
        else:
            details.scroll_page_down(animate=False)

    def action_allow(self) -> None:
        self.dismiss(Approval(allow=True))

    def action_allow_always(self) -> None:
        self.dismiss(Approval(allow=True, always=True))

    def action_deny(self) -> None:
        reason = self.query_one("#reason", Input).value.strip()
        self.dismiss(Approval(allow=False, reason=reason))
