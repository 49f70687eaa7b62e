"""The permission prompt: a tool call the agent wants to make, and the user's answer.

Shows the tool, its arguments, and for an edit the diff with only the arguments the diff does
not already show (``replace_all``, say); a command is shown once, as ``$ command``. ``y`` (or
``1``) allows once, ``2`` allows what the "allow always covers" line names for the rest of the
session, ``n`` (or ``3``, Esc) denies; ``r`` (or Tab) goes to the reason box, whose text is sent
to the model with the denial (Enter there denies).

Any other letter starts the reason (``a`` too: a reason starting with "always…" is a reason),
and from the first key of a reason every key is the reason's, however fast they come: until the
box has the focus, the dialog itself appends them to it (a space presses no button, a ``y`` or
``n`` inside the reason answers nothing, Enter denies with it). Typing fast lost keys before:
they went to the buttons while the focus moved.

**Armed, not at once.** The dialog can open while the user is typing into the prompt; the key
that happened to come next must not answer it. Until the dialog has been painted (its first
frame: ``call_after_refresh`` from mount) and ``ARM`` seconds have passed since by
:attr:`PermissionScreen.clock` (monotonic; tests set their own), no key and no click is a
choice: a printable key — ``y``, ``1``, ``2``, ``n``, a space — is the start of the reason (and
from it, as above, every key is the reason's), Enter and a button pressed do nothing; Esc still
denies. Nothing waits on a timer: each key asks the clock.

Whatever the size of the terminal, the title and the choices stay on screen: they are docked
to the dialog's top and bottom, and the details (a long diff) scroll between them (PgUp/PgDn,
the mouse). The focused choice is marked (``▸``) and the hint line says what Enter does. Focus
starts on "Allow once" only when the whole call is in view; when the details have to scroll it
starts on "Deny", so Enter never approves what the user has not been shown.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from ...agent.events import Approval, PermissionRequest
from ..render import args_beside_diff, diff_text, pretty_args

if TYPE_CHECKING:
    from textual.app import App

    from ..widgets.activity import Activity

__all__ = ["CHOICES", "PermissionScreen", "ask"]

# (button id, label, key): the choices, in the order they are shown
CHOICES = (
    ("allow", "Allow once", "y"),
    ("always", "Allow always this session", "2"),
    ("deny", "Deny", "n"),
)
#: The keys that answer the dialog (with r, which goes to the reason box, and Esc): the
#: labels' and 1 and 3 (Claude Code's numbers). No other letter is a choice: any other starts
#: the reason.
CHOICE_KEYS = frozenset({"1", "3", *(key for _, _, key in CHOICES)})
MARK = "▸ "


class PermissionScreen(ModalScreen[Approval]):
    BINDINGS = [
        Binding("1,y", "allow", "allow once"),
        Binding("2", "allow_always", "allow always"),
        Binding("3,n", "deny", "deny"),
        Binding("r", "reason", "type a reason", show=False),
        Binding("escape", "deny", "deny", show=False),
        Binding("pageup", "scroll_details(-1)", show=False),
        Binding("pagedown", "scroll_details(1)", show=False),
        Binding("left", "app.focus_previous", show=False),
        Binding("right", "app.focus_next", show=False),
    ]

    #: Seconds after the first frame during which no key is a choice (a key typed for the
    #: prompt as the dialog opened), and the clock they are counted by: the tests' seams.
    ARM: ClassVar[float] = 0.3
    clock: ClassVar[Callable[[], float]] = staticmethod(time.monotonic)

    def __init__(
        self, request: PermissionRequest, *, clock: Callable[[], float] | None = None
    ) -> None:
        super().__init__(classes="modal")
        self.request = request
        self._clock = clock or type(self).clock
        self._painted_at: float | None = None  # when the first frame was drawn
        self._reason_started = False  # a reason begun; its box does not have the focus yet

    def compose(self) -> ComposeResult:
        r = self.request
        with Vertical(id="permission", classes="dialog"):
            title = Text("Allow ", style="bold")
            title.append(r.tool_name, style="bold yellow")
            title.append("?", style="bold")
            summary = r.summary.removeprefix(f"{r.tool_name}: ")
            if summary and not _command(r.tool_input):  # a command is shown once, below
                title.append(f"  {summary}")
            yield Static(title, id="permission-title")
            with VerticalScroll(id="permission-details"):
                yield Static(self._details())
            with Vertical(id="permission-footer"):
                always = getattr(r, "always", "")
                if always:
                    yield Static(
                        Text(f"allow always covers: {always}", style="dim"), id="always-scope"
                    )
                with Horizontal(classes="buttons"):
                    for ident, label, key in CHOICES:
                        variant: Any = {"allow": "success", "always": "primary"}.get(ident, "error")
                        yield Button(f"  {label} ({key})", id=ident, variant=variant, compact=True)
                yield Input(
                    placeholder="reason for denying (sent to the model); Enter denies with it",
                    id="reason",
                    compact=True,
                    select_on_focus=False,
                )
                yield Static("", id="permission-hint", classes="dim")

    def _details(self) -> RenderableType:
        parts: list[RenderableType] = []
        args = dict(self.request.tool_input)
        if self.request.diff:
            parts.append(diff_text(self.request.diff))
            args = args_beside_diff(args)
        elif (command := _command(args)) is not None:
            parts.append(Text(f"$ {command}", style="bold"))
            args.pop("command")
        else:  # what the title shows already (web_fetch's URL) is not shown again
            title = self.request.summary.removeprefix(f"{self.request.tool_name}: ")
            args = {k: v for k, v in args.items() if not (title and v == title)}
        if args:
            parts.append(pretty_args(args))
        return Group(*parts)

    # -- focus: safe first, then "Allow once" if everything is in view ------------------------
    def on_mount(self) -> None:
        self.query_one("#deny", Button).focus()
        self.call_after_refresh(self._focus_default)
        self.call_after_refresh(self._painted)

    def _painted(self) -> None:
        if self._painted_at is None:
            self._painted_at = self._clock()

    def armed(self) -> bool:
        """Whether a key or a click may answer: painted, and ``ARM`` seconds since."""
        at = self._painted_at
        return at is not None and self._clock() - at >= self.ARM

    def _focus_default(self) -> None:
        details = self.query_one("#permission-details", VerticalScroll)
        if details.max_scroll_y == 0 and self.focused is self.query_one("#deny", Button):
            self.query_one("#allow", Button).focus()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if isinstance(self.focused, Input):
            self._reason_started = False  # the box takes the keys itself from here
        self._show_focus()

    def _show_focus(self) -> None:
        focused = self.focused
        for ident, label, key in CHOICES:
            button = self.query_one(f"#{ident}", Button)
            button.label = f"{MARK if button is focused else '  '}{label} ({key})"
        if isinstance(focused, Input):
            enter = "Enter: deny with this reason · Esc: deny · Shift+Tab: back to the choices"
        elif isinstance(focused, Button):
            enter = f"Enter: {dict((i, lab) for i, lab, _ in CHOICES)[focused.id or 'deny']}"
        else:
            enter = ""
        details = self.query_one("#permission-details", VerticalScroll)
        scroll = " · PgUp/PgDn: scroll" if details.max_scroll_y else ""
        reason = "" if isinstance(focused, Input) else " · r: type a reason"
        self.query_one("#permission-hint", Static).update(f"{enter}{reason}{scroll}")

    def on_key(self, event: events.Key) -> None:
        """A letter typed while a choice is focused starts the reason (but for the choices'
        keys and r); from then on every key is the reason's until its box has the focus.
        Before the dialog is :meth:`armed`, every printable key is the reason's and Enter
        nothing: they were typed for the prompt."""
        if not self.armed():
            if event.key == "enter" or (event.is_printable and event.character):
                event.stop()
                event.prevent_default()
                if event.key != "enter" and not isinstance(self.focused, Input):
                    self._type(event.character or "")
                return
        if isinstance(self.focused, Input):
            return
        if self._reason_started:
            event.stop()
            event.prevent_default()
            if event.key == "enter":
                self.action_deny()
            elif event.key == "backspace":
                self._type("", back=True)
            elif event.is_printable and event.character:
                self._type(event.character)
            return
        if not event.is_printable or not event.character:
            return
        if event.character == "r":  # here, not by its binding: that ran after the keys that
            event.stop()  # came with it, and a reason's first "y" or "n" was lost
            event.prevent_default()
            self.action_reason()
            return
        if event.character in CHOICE_KEYS or event.character.isspace():
            return
        event.stop()
        event.prevent_default()
        self._type(event.character)

    def _type(self, text: str, *, back: bool = False) -> None:
        """Add ``text`` to the end of the reason (``back``: take its last character away) and
        send the focus there; keys that come before it arrives are added here too."""
        box = self.query_one("#reason", Input)
        box.value = box.value[:-1] if back else box.value + text
        box.cursor_position = len(box.value)
        if not self._reason_started:
            self._reason_started = True
            box.focus()

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._show_focus)

    # -- answers --------------------------------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.armed():
            self.action_deny()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if not self.armed():  # a click (or Enter) meant for what was there before
            return
        {"allow": self.action_allow, "always": self.action_allow_always}.get(
            event.button.id or "", self.action_deny
        )()

    def action_scroll_details(self, direction: int) -> None:
        details = self.query_one("#permission-details", VerticalScroll)
        if direction < 0:
            details.scroll_page_up(animate=False)
        else:
            details.scroll_page_down(animate=False)

    def action_reason(self) -> None:
        self._type("")  # what is typed right after r is the reason's

    def action_allow(self) -> None:
        if self.armed():
            self.dismiss(Approval(allow=True))

    def action_allow_always(self) -> None:
        if self.armed():
            self.dismiss(Approval(allow=True, always=True))

    def action_deny(self) -> None:
        self._reason_started = False
        reason = self.query_one("#reason", Input).value.strip()
        self.dismiss(Approval(allow=False, reason=reason))


def _command(args: dict[str, Any]) -> str | None:
    """The command of a shell call (shown as ``$ command``), else None."""
    command = args.get("command")
    return command if isinstance(command, str) and command else None


async def ask(app: App[Any], request: PermissionRequest, activity: Activity) -> Approval:
    """Ask the user about ``request`` with the modal (the chat screen's Approver); the activity
    line waits meanwhile. Cancelling the caller (the turn) takes the modal down; Esc denies."""
    answer: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()
    screen = PermissionScreen(request)

    def done(result: Approval | None) -> None:
        if not answer.done():
            answer.set_result(result or Approval(allow=False))

    app.push_screen(screen, callback=done)
    activity.pause("waiting for your answer")
    try:
        return await answer
    finally:
        activity.resume()
        if screen in app.screen_stack and app.screen is screen:
            app.pop_screen()
