"""The permission prompt: a tool call the agent wants to make, and the user's answer.

Shows the tool, its arguments, and for an edit the diff with only the arguments the diff does
not already show (``replace_all``, say); a command is shown once, as ``$ command``. ``y`` (or
``1``) allows once, ``a`` (or ``2``) allows what the "allow always covers" line names for the
rest of the session, ``n`` (or ``3``, Esc) denies; ``r`` goes to the reason box (Tab reaches it
too), whose text is sent to the model with the denial (Enter there denies).

**Only ``r`` opens the reason box.** Any other key is not an answer and types nothing: it
shows, in the hint line, that it is not a choice. (A stray ``x`` used to start a reason, and the
Enter after it denied while the dialog still said ``Enter: Allow once``.) From the ``r`` on,
every key is the reason's, however fast they come: until the box has the focus, the dialog
itself appends them to it (a ``y`` or ``n`` inside the reason answers nothing, Enter denies
with it), and the hint says so from the ``r``, not from when the focus arrives.

**Armed, not at once.** The dialog can open while the user is typing into the prompt; the key
that happened to come next must not answer it. Until the dialog has been painted (its first
frame: ``call_after_refresh`` from mount) and ``ARM`` seconds have passed since by
:attr:`PermissionScreen.clock` (monotonic; tests set their own), no key and no click is a
choice: every key but Esc (which denies) and PgUp/PgDn answers nothing and types nothing, and
Enter and a button pressed do nothing. A key that answered nothing also puts the answer off
until ``QUIET`` seconds pass without one: whoever is still typing a prompt into the dialog is
never taken at a ``y`` or an ``a`` in it. Each key asks the clock; a timer only redraws the
hint line when the dialog becomes armed.

Whatever the size of the terminal, the title and the choices stay on screen: they are docked
to the dialog's top and bottom, and the details (a long diff) scroll between them (PgUp/PgDn,
the mouse). The focused choice is marked (``▸``) and the hint line says, at every moment, what
Enter does: the focused choice (``(in a moment)`` while not armed), or, once ``r`` was pressed,
that it denies with the reason. Focus starts on "Allow once" only when the whole call is in
view; when the details have to scroll it starts on "Deny", so Enter never approves what the
user has not been shown.
"""

from __future__ import annotations

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
    from textual.timer import Timer

    from ..messages import Approve
    from ..widgets.activity import Activity

__all__ = ["CHOICES", "PermissionScreen", "ask"]

# (button id, label, key): the choices, in the order they are shown
CHOICES = (
    ("allow", "Allow once", "y"),
    ("always", "Allow always this session", "a"),
    ("deny", "Deny", "n"),
)
#: The keys that answer the dialog (with r, which goes to the reason box, and Esc): the
#: labels' and 1, 2, 3 (Claude Code's numbers). Any other key answers nothing.
CHOICE_KEYS = frozenset({"1", "2", "3", *(key for _, _, key in CHOICES)})
#: Keys that are never an answer and are taken even before the dialog is armed.
SAFE_KEYS = frozenset({"escape", "pageup", "pagedown"})
#: Keys besides the printable ones that type-ahead may hold and that must not act before the
#: dialog is armed (Enter presses a button; Tab and the arrows move to the reason box).
TYPE_AHEAD = frozenset({"enter", "tab", "shift+tab", "left", "right", "backspace"})
MARK = "▸ "
REASON_HINT = "Enter: deny with this reason · Esc: deny · Shift+Tab: back to the choices"


class PermissionScreen(ModalScreen[Approval]):
    BINDINGS = [
        Binding("1,y", "allow", "allow once"),
        Binding("2,a", "allow_always", "allow always"),
        Binding("3,n", "deny", "deny"),
        Binding("r", "reason", "type a reason", show=False),
        Binding("escape", "deny", "deny", show=False),
        Binding("pageup", "scroll_details(-1)", show=False),
        Binding("pagedown", "scroll_details(1)", show=False),
        Binding("left", "app.focus_previous", show=False),
        Binding("right", "app.focus_next", show=False),
    ]

    #: Seconds after the first frame during which no key is a choice (a key typed for the
    #: prompt as the dialog opened), the seconds without a stray key it waits for after one,
    #: and the clock they are counted by: the tests' seams.
    ARM: ClassVar[float] = 0.3
    QUIET: ClassVar[float] = 1.0
    clock: ClassVar[Callable[[], float]] = staticmethod(time.monotonic)

    def __init__(
        self, request: PermissionRequest, *, clock: Callable[[], float] | None = None
    ) -> None:
        super().__init__(classes="modal")
        self.request = request
        self._clock = clock or type(self).clock
        self._painted_at: float | None = None  # when the first frame was drawn
        self._stray_at: float | None = None  # when the last key that answered nothing came
        self._stray = ""  # that key, for the hint line
        self._redraw: Timer | None = None  # redraws the hint line when the dialog is armed
        self._reason_started = False  # r pressed; the reason box does not have the focus yet

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
                    placeholder="r: a reason for denying (sent to the model); Enter denies with it",
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
            self._redraw_when_armed()

    def _armed_at(self) -> float | None:
        """When a key or a click may answer (by :attr:`clock`); None before the first frame."""
        if self._painted_at is None:
            return None
        at = self._painted_at + self.ARM
        return at if self._stray_at is None else max(at, self._stray_at + self.QUIET)

    def armed(self) -> bool:
        """Whether a key or a click may answer: painted ``ARM`` seconds ago, and no key that
        answered nothing in the last ``QUIET`` seconds."""
        at = self._armed_at()
        return at is not None and self._clock() >= at

    def _redraw_when_armed(self) -> None:
        """Redraw the hint line now and again when the dialog is armed (only the display
        waits on this timer: each key asks the clock itself)."""
        self._show_focus()
        if self._redraw is not None:
            self._redraw.stop()
            self._redraw = None
        at = self._armed_at()
        if at is None or self.armed():
            return
        self._redraw = self.set_timer(max(at - self._clock(), 0.05), self._redraw_when_armed)

    def _focus_default(self) -> None:
        details = self.query_one("#permission-details", VerticalScroll)
        if details.max_scroll_y == 0 and self.focused is self.query_one("#deny", Button):
            self.query_one("#allow", Button).focus()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if isinstance(self.focused, Input):
            self._reason_started = False  # the box takes the keys itself from here
        self._stray = ""  # the hint about a stray key lasts until the focus moves
        self._show_focus()

    def _show_focus(self) -> None:
        focused = self.focused
        for ident, label, key in CHOICES:
            button = self.query_one(f"#{ident}", Button)
            button.label = f"{MARK if button is focused else '  '}{label} ({key})"
        self.query_one("#permission-hint", Static).update(self.hint())

    def hint(self) -> str:
        """The hint line: what Enter does now, what a stray key was, the other keys."""
        focused = self.focused
        if self._reason_started or isinstance(focused, Input):
            return REASON_HINT
        parts = []
        if self._stray:
            parts.append(f"{self._stray}: not a choice (y, a, n, or r for a reason)")
        if isinstance(focused, Button):
            label = dict((i, lab) for i, lab, _ in CHOICES)[focused.id or "deny"]
            parts.append(f"Enter: {label}" + ("" if self.armed() else " (in a moment)"))
        if not self._stray:
            parts.append("r: type a reason")
        details = self.query_one("#permission-details", VerticalScroll)
        if details.max_scroll_y:
            parts.append("PgUp/PgDn: scroll")
        return " · ".join(parts)

    def on_key(self, event: events.Key) -> None:
        """Only the choices' keys answer and only ``r`` starts the reason; any other key
        answers nothing (the hint line says so). Before the dialog is :meth:`armed` no key
        answers (they were typed for the prompt). From ``r`` on, every key is the reason's
        until its box has the focus."""
        if event.key in SAFE_KEYS or isinstance(self.focused, Input):
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
        typed = bool(event.is_printable and event.character)
        if self.armed():
            if not typed or event.character in CHOICE_KEYS:
                return  # the choices' bindings, Enter on a button, moving between them
        elif not typed and event.key not in TYPE_AHEAD:
            return  # scrolling and the like: no answer, nothing to put off
        event.stop()
        event.prevent_default()
        if self.armed() and event.character == "r":  # here, not by its binding: that ran
            self.action_reason()  # after the keys that came with it, and a reason's first
            return  # "y" or "n" was lost
        self._stray_at = self._clock()
        self._stray = _key_name(event)
        self._redraw_when_armed()

    def _type(self, text: str, *, back: bool = False) -> None:
        """Add ``text`` to the end of the reason (``back``: take its last character away) and
        send the focus there; keys that come before it arrives are added here too."""
        box = self.query_one("#reason", Input)
        box.value = box.value[:-1] if back else box.value + text
        box.cursor_position = len(box.value)
        if not self._reason_started:
            self._reason_started = True
            self._stray = ""
            box.focus()
            self._show_focus()

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
        if self.armed():
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


def _key_name(event: events.Key) -> str:
    """How the hint line names a key: ``'x'``, or its name (``space``, ``ctrl+d``)."""
    if event.is_printable and event.character and not event.character.isspace():
        return repr(event.character)
    return event.key


def _command(args: dict[str, Any]) -> str | None:
    """The command of a shell call (shown as ``$ command``), else None."""
    command = args.get("command")
    return command if isinstance(command, str) and command else None


def ask(app: App[Any], asked: Approve, activity: Activity) -> None:
    """Ask the user about ``asked.request`` with the modal (the chat screen's ``on_approve``);
    the answer goes to ``asked.answer`` (Esc denies), and the activity line waits meanwhile.
    The asker cancelling the answer (the turn ends) takes the modal down."""
    screen = PermissionScreen(asked.request)
    answer = asked.answer

    def done(result: Approval | None) -> None:
        if not answer.done():
            answer.set_result(result or Approval(allow=False))

    def over(_: object) -> None:
        activity.resume()
        if screen in app.screen_stack and app.screen is screen:
            app.pop_screen()

    app.push_screen(screen, callback=done)
    activity.pause("waiting for your answer")
    answer.add_done_callback(over)
