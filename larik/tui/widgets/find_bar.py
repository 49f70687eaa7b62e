"""The search bar above the prompt: Ctrl+F or ``/find [TEXT]`` (``larik/tui/find.py``).

The text is searched as it is typed; Enter (or F3, Ctrl+G, Up) goes to the next hit up the
conversation, Shift+Enter (Shift+F3, Down) back down, both wrapping round; the bar says which
hit of how many is shown, or that there is none. Esc closes it and gives the prompt its focus.
The keys are actions of :data:`larik.tui.bindings.ACTIONS` (``find_next``, ``find_previous``),
so keybindings.toml rebinds them; Esc stays Esc.

Mounted on the first search, and kept (hidden) for the next: nothing of it before then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static

from ..bindings import for_scope
from ..find import Finder, Hit, snippet

if TYPE_CHECKING:
    from .conversation import ConversationView

__all__ = ["FindBar", "FindInput"]


class FindInput(Input):
    """The query. Its keys: next and previous hit (the ``find`` scope), Esc."""

    BINDINGS = [*for_scope("find"), Binding("escape", "close", show=False)]

    def action_find_step(self, older: bool) -> None:
        self.post_message(FindBar.Step(older))

    def action_close(self) -> None:
        self.post_message(FindBar.Closed())


class FindBar(Horizontal):
    DEFAULT_CSS = """
    FindBar { height: 1; background: $boost; }
    FindBar > FindInput {
        width: 1fr; height: 1; border: none; padding: 0 1; background: $boost;
    }
    FindBar > FindInput:focus { border: none; }
    FindBar > #find-said { width: auto; max-width: 60%; height: 1; padding: 0 1; color: $text-muted; }
    ConversationView > .-found { background: $accent 30%; }
    """

    class Step(Message):
        """Go to the next hit up (``older``) or down the conversation."""

        def __init__(self, older: bool) -> None:
            super().__init__()
            self.older = older

    class Closed(Message):
        """Esc: the search is over."""

    def __init__(self, conv: ConversationView, prompt: Widget) -> None:
        super().__init__(id="find")
        self.finder = Finder(conv)
        self.prompt = prompt  # what has the focus again when the search is over
        self.input = FindInput(placeholder="find in the conversation", id="find-query")
        self.said = Static("", id="find-said", markup=False)
        self._version: tuple[int, int, int] = (0, 0, 0)
        self.text = ""  # what the bar says: "hit 2 of 5", "no hits for …"

    def compose(self) -> ComposeResult:
        yield self.input
        yield self.said

    @classmethod
    async def open_above(
        cls, prompt: Widget, conv: ConversationView, query: str | None = None
    ) -> FindBar:
        """The bar above ``prompt`` (mounted the first time), open: Ctrl+F and ``/find``."""
        bar = next(iter(prompt.screen.query(cls)), None)
        if bar is None:
            bar = cls(conv, prompt)
            await prompt.parent.mount(bar, before=prompt)  # type: ignore[union-attr]
        bar.open(query)
        return bar

    def open(self, query: str | None = None) -> None:
        """Show the bar, focused; ``query`` searched at once (None: the last one, selected)."""
        self.display = True
        self.input.focus()
        if query is not None and query != self.input.value:
            self.input.value = query  # searched by on_input_changed
        else:
            self.input.select_all()
            if query:
                self._search(query)

    def close(self) -> None:
        self.finder.close()
        self.display = False

    def on_find_bar_closed(self, event: Closed) -> None:  # Esc in the query
        event.stop()
        self.close()
        self.prompt.focus()

    # -- searching ----------------------------------------------------------------------------
    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._search(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()  # Enter is find_next (its binding); a rebound Enter submits: the same
        self._go(older=True)

    def on_find_bar_step(self, event: Step) -> None:
        event.stop()
        self._go(event.older)

    def _search(self, query: str) -> None:
        self.finder.unmark()
        count = self.finder.search(query)
        self._version = self._now()
        if not query:
            self._say("")
        elif not count:
            self._say(f"no hits for {query!r}")
        else:
            self._go(older=True)

    def _now(self) -> tuple[int, int, int]:
        conv = self.finder.conv
        items = conv.items
        return (len(conv.archived), len(items), id(items[-1]) if items else 0)

    def _go(self, older: bool) -> None:
        finder = self.finder
        if finder.query and self._now() != self._version:  # the conversation changed
            number = finder.index
            finder.search(finder.query)
            self._version = self._now()
            if 0 <= number < len(finder.hits):
                finder.index = number
        hit = finder.step(older)
        if hit is None:
            if finder.query:
                self._say(f"no hits for {finder.query!r}")
            return
        self._say(f"hit {finder.number} of {len(finder.hits)}")
        self.run_worker(self._show(hit), group="find", exclusive=True, exit_on_error=False)

    async def _show(self, hit: Hit) -> None:
        number, total = self.finder.number, len(self.finder.hits)
        marked = await self.finder.show(hit)
        said = f"hit {number} of {total}"
        if not marked:  # not on its lines (an archived card shows one): quoted here
            said += f": {snippet(hit.text, hit.at)}"
        self._say(said)

    def _say(self, text: str) -> None:
        self.text = text
        self.said.update(Text(text))
