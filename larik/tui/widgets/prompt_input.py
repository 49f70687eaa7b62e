"""The prompt: multi-line, with history and completion.

Enter sends; Shift+Enter or Ctrl+J starts a new line. Up on the first line and Down on the last
walk the history. Typing ``/`` at the start lists the slash commands; ``@`` lists paths. Tab or
Enter takes the highlighted completion, Esc closes the list.

A paste of more than ``PASTE_LINES`` lines shows as ``[Pasted text #1 +300 lines]`` in the
prompt; the text it stands for is what is sent (and kept in the history). Ctrl+V with an image
on the clipboard, or a paste of image files' paths (a file dropped on the terminal), puts an
image chip in the prompt (``larik/tui/images.py``); Backspace just after a chip removes it.
"""

from __future__ import annotations

from pathlib import Path
from time import monotonic
from typing import TYPE_CHECKING

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from ...words import count
from .. import slash
from ..attachments import complete_path
from ..bindings import bound_keys, for_scope
from ..messages import Say
from .completion_menu import Completion, CompletionMenu

if TYPE_CHECKING:
    from textual.timer import Timer

    from ...session import Session
    from ..images import Images
    from ..vim import Vim

__all__ = ["PASTE_LINES", "PromptInput"]

PASTE_LINES = 10  # a longer paste is shown as one placeholder in the prompt
# the cursor blinks while the user types and for this long after, then stays on: a blink is a
# frame twice a second (0.2 s of CPU per 30 s on an idle screen; docs/performance.md)
BLINK_FOR = 10.0


class PromptInput(TextArea):
    DEFAULT_CSS = """
    PromptInput { height: auto; min-height: 3; max-height: 12; }
    """
    BINDINGS = for_scope("prompt")  # send, new line, history, … (larik/tui/bindings.py)

    class TabOut(Message):
        """Tab with no completion open: the screen moves focus to the conversation."""

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class VimMode(Message):
        """Vim mode's state changed: "normal", "insert", or "" (vim mode off)."""

        def __init__(self, mode: str) -> None:
            super().__init__()
            self.mode = mode

    def __init__(
        self,
        *,
        cwd: Path,
        menu: CompletionMenu,
        history: list[str] | None = None,
        session: Session | None = None,
    ) -> None:
        super().__init__(
            "",
            id="prompt",
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            highlight_cursor_line=False,
            placeholder="Ask, or / for commands, @ to attach a file, ! to run a command",
        )
        self.cwd = cwd
        self.menu = menu
        self.session = session  # its commands complete too (custom ones, MCP prompts)
        self.prompt_history: list[str] = list(history or [])
        self._pastes: dict[str, str] = {}  # placeholder -> the pasted text
        self.images: Images | None = None  # the pasted images, by chip (made at the first)
        self._hist_pos: int | None = None
        self._listed_for: tuple[tuple[int, int], str] | None = None  # what the list was made for
        self._draft = ""
        self.vim: Vim | None = None  # vim-style editing (larik/tui/vim.py), when on
        self.bound_keys = bound_keys("prompt")  # what the prompt's bindings take (keys.py sets)
        self._typed_at = 0.0
        self._still_timer: Timer | None = None

    # -- the cursor blinks only while the user is at it (BLINK_FOR) ------------------------
    def on_mount(self) -> None:
        self.awake()

    def on_focus(self) -> None:
        self.awake()

    def on_click(self) -> None:
        self.awake()

    def awake(self) -> None:
        """The user is here: blink the cursor, until BLINK_FOR seconds without a key."""
        self._typed_at = monotonic()
        if not self.cursor_blink:
            self.cursor_blink = True
        if self._still_timer is None:
            self._still_timer = self.set_timer(BLINK_FOR, self._still, name="prompt-still")

    def _still(self) -> None:
        self._still_timer = None
        idle = monotonic() - self._typed_at
        if idle >= BLINK_FOR:
            self.cursor_blink = False  # the cursor stays on, and nothing is drawn
        else:
            self._still_timer = self.set_timer(BLINK_FOR - idle, self._still, name="prompt-still")

    def set_vim(self, on: bool) -> None:
        """Vim mode on (starting in insert mode) or off; the status line shows its mode."""
        if on and self.vim is None:
            from ..vim import Vim

            self.vim = Vim(self, self._tell_mode, self._walk)
            self.vim.set_mode("insert")
        elif not on and self.vim is not None:
            self.vim = None
            self._tell_mode("")

    def _tell_mode(self, mode: str) -> None:
        # made in this widget's own turn: a message made while its screen handles one (a slash
        # command) would count the screen as its sender, and stop there instead of reaching the app
        self.call_next(lambda: self.post_message(self.VimMode(mode)))

    def _walk(self, delta: int) -> None:
        if not self.menu.is_open:
            self._history_step(delta)

    # -- keys ---------------------------------------------------------------------------------
    # The prompt's own actions (larik/tui/bindings.py, rebound by keybindings.toml) run from
    # ``_on_key``, in the order the keys came: a priority binding, checked before the key
    # reaches the prompt, would run ahead of the keys typed just before it, still in the
    # prompt's queue (a fast "hi⏎" sent ""). ``bound_keys``: key -> action, as in effect.
    def action_send(self) -> None:
        self.enter()

    def enter(self) -> None:
        """What Enter does: take the completion offered, else send (also for an Enter that
        reached a tool card on its way here: ToPrompt, larik/tui/messages.py)."""
        self._catch_up()
        if not self._accept_completion(submit_command=True):
            self._submit()

    def action_newline(self) -> None:
        self.insert("\n")

    def action_clear_before(self) -> None:  # everything before the cursor, on every line
        self.delete((0, 0), self.cursor_location)

    def action_history(self, delta: int) -> None:
        row, last = self.cursor_location[0], self.document.line_count - 1
        if self.menu.is_open:
            self.menu.move(delta)
        elif row == (0 if delta < 0 else last):
            self._history_step(delta)
        elif delta < 0:  # the key replaced the TextArea's own cursor binding: move as it does
            self.action_cursor_up()
        else:
            self.action_cursor_down()

    def action_to_cards(self) -> None:
        if self.menu.is_open:
            self._accept_completion(submit_command=False)
        else:
            self.post_message(self.TabOut())

    def _catch_up(self) -> None:
        if self.menu.is_open and self._listed_for != self._where():
            # keys typed in a burst arrive before the completion list has caught up with them
            # (it follows TextArea.Changed, a message): act on what was typed, not on that list
            self.update_completions()

    async def _on_key(self, event: events.Key) -> None:
        self.awake()
        key = event.key
        handled = True
        vim_key = not (key == "escape" and self.menu.is_open)  # Esc closes the list first
        if self.vim is not None and vim_key and self.vim.key(event):
            event.stop()
            event.prevent_default()
            return
        if key == "tab":
            self._catch_up()
        if key == "backspace" and self._delete_chip():
            pass
        elif key == "tab" and self.menu.is_open:
            self._accept_completion(submit_command=False)
        elif key == "escape" and self.menu.is_open:
            self.menu.close()
        elif key == "up" and self.menu.is_open:
            self.menu.move(-1)
        elif key == "down" and self.menu.is_open:
            self.menu.move(1)
        elif key in self.bound_keys:  # the prompt's action for it, in order (see above)
            await self.run_action(self.bound_keys[key])
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    async def _on_paste(self, event: events.Paste) -> None:
        self.awake()
        event.stop()
        event.prevent_default()  # TextArea's own handler is not called after this one
        if self._paste_image_paths(event.text):
            return
        lines = event.text.count("\n") + 1
        if lines <= PASTE_LINES:
            await super()._on_paste(event)
            return
        label = f"[Pasted text #{len(self._pastes) + 1} +{count(lines, 'line')}]"
        self._pastes[label] = event.text
        self.insert(label)

    # -- images -------------------------------------------------------------------------------
    def _image_chips(self) -> Images:
        if self.images is None:
            from ..images import Images

            self.images = Images()
        return self.images

    def _no_images(self) -> str:
        from ...session.attachments import no_images_for

        return no_images_for(self.session) if self.session is not None else ""

    def _paste_image_paths(self, text: str) -> bool:
        """A paste of image paths as chips (True), or refused, one line each."""
        if "." not in text:  # no file name with a suffix: text (and no import)
            return False
        denied = getattr(getattr(self.session, "agent", None), "path_denied", None)
        got = self._image_chips().add_paths(text, self.cwd, denied, self._no_images())
        if got is None:
            return False
        for chip in got:
            self._put_chip(chip)
        return True

    def _put_chip(self, chip: object) -> None:
        label = getattr(chip, "label", None)
        if label is None:
            self.post_message(Say(str(chip), "warning"))
            return
        before = self.document.get_line(self.cursor_location[0])[: self.cursor_location[1]]
        self.insert(("" if not before or before.endswith(" ") else " ") + label + " ")

    def action_paste_image(self) -> None:
        """Ctrl+V: the clipboard's image as a chip (the clipboard program runs in a thread)."""
        self.run_worker(self._paste_clipboard(), group="clipboard", exclusive=True)

    async def _paste_clipboard(self) -> None:
        import asyncio

        from ..images import read_clipboard

        got = await asyncio.to_thread(read_clipboard)
        if got.problem:
            if self.app.clipboard:  # no image: Textual's own Ctrl+V (text copied in Larik)
                self.action_paste()
            else:
                self.post_message(Say(got.problem, "warning"))
            return
        self._put_chip(self._image_chips().add_bytes(got.raw, got.media, self._no_images()))

    def _delete_chip(self) -> bool:
        """Backspace just after an image chip (or the space after it): all of it goes."""
        if self.images is None or not self.selection.is_empty:
            return False
        row, col = self.cursor_location
        before = self.document.get_line(row)[:col]
        label = self.images.chip_before(before) or self.images.chip_before(before[:-1])
        if not label:
            return False
        end = col if before.endswith(label) else col - 1
        self.delete((row, end - len(label)), (row, col))
        return True

    def expanded(self, text: str) -> str:
        """``text`` with each paste placeholder replaced by what was pasted."""
        for label, pasted in self._pastes.items():
            text = text.replace(label, pasted)
        return text

    def send(self, text: str) -> None:
        """Send ``text`` as if it were typed and Enter pressed (``larik "PROMPT"``)."""
        self.load_text(text)
        self._submit()

    def _submit(self) -> None:
        text = self.expanded(self.text)
        self._pastes.clear()
        if not text.strip():
            return
        if not self.prompt_history or self.prompt_history[-1] != text:
            self.prompt_history.append(text)
        self._hist_pos = None
        self._draft = ""
        self.clear()
        self.menu.close()
        if self.vim is not None:
            self.vim.set_mode("insert")  # the next prompt is typed
        self.post_message(self.Submitted(text))

    def _history_step(self, delta: int) -> None:
        if not self.prompt_history:
            return
        if self._hist_pos is None:
            if delta > 0:
                return
            self._draft = self.text
            pos = len(self.prompt_history) - 1
        else:
            pos = self._hist_pos + delta
        if pos >= len(self.prompt_history):
            self._hist_pos = None
            self._set_text(self._draft)
            return
        pos = max(0, pos)
        self._hist_pos = pos
        self._set_text(self.prompt_history[pos])

    def _set_text(self, text: str) -> None:
        self.load_text(text)
        last = self.document.line_count - 1
        self.move_cursor((last, len(self.document.get_line(last))))
        self.menu.close()

    # -- completion ---------------------------------------------------------------------------
    def _on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.update_completions()

    def _where(self) -> tuple[tuple[int, int], str]:
        return self.cursor_location, self.text

    def update_completions(self) -> None:
        self._listed_for = self._where()
        row, col = self.cursor_location
        line = self.document.get_line(row)[:col]
        if row == 0 and self.document.line_count == 1 and line.startswith("/") and " " not in line:
            items = [
                Completion(f"/{c.name}", c.usage, c.summary)
                for c in slash.complete(line[1:], self.session)
            ]
            self.menu.open(items, 0, col) if items else self.menu.close()
            return
        start = max(line.rfind(" "), line.rfind("\t")) + 1
        token = line[start:]
        if token.startswith("@"):
            paths = complete_path(token[1:], self.cwd)
            items = [Completion("@" + p.replace(" ", "\\ "), p) for p in paths]
            self.menu.open(items, start, col) if items else self.menu.close()
            return
        self.menu.close()

    def _accept_completion(self, *, submit_command: bool) -> bool:
        choice = self.menu.current()
        if choice is None:
            return False
        row, _ = self.cursor_location
        line = self.document.get_line(row)
        typed = line[self.menu.start : self.menu.end]
        self.menu.close()
        is_command = choice.value.startswith("/") and self.menu.start == 0 and row == 0
        if submit_command and typed == choice.value:
            return False  # already complete: Enter sends the prompt
        value = choice.value
        if is_command or not value.endswith("/"):
            value += " "
        self.replace(value, (row, self.menu.start), (row, self.menu.end))
        return True
