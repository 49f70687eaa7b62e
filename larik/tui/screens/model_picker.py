"""The ``/model`` picker: a fuzzy filter over models usable here, with window and price.

Catalog models whose provider has a key and models from the config are listed at once; models
found on local servers are added when the app's discovery worker reports them
(``add_local``). Enter picks, Esc cancels. Typing a full spec that is not listed and pressing
Enter picks it as typed. A name too long for its line is shortened (the filter still matches
the whole name), so its window, price and tag stay on the line.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ...words import count
from ..models import ModelEntry, format_price, format_window, fuzzy_filter
from ..widgets.status_bar import elide_spec

__all__ = ["ModelPickerScreen"]

MAX_SHOWN = 200


class ModelPickerScreen(ModalScreen[str | None]):
    BINDINGS = [
        Binding("escape", "cancel", "cancel", show=False),
        Binding("down", "move(1)", show=False),
        Binding("up", "move(-1)", show=False),
    ]

    def __init__(
        self,
        entries: list[ModelEntry],
        *,
        current: str = "",
        title: str = "",
        looked: str | None = None,
    ) -> None:
        """``looked``: what a finished search for local servers found; None while one runs
        (``add_local`` reports it)."""
        super().__init__(classes="modal")
        self.entries = list(entries)
        self.current = current
        self.title_text = title or "Switch model"
        self.searching = looked is None
        self._shown: list[ModelEntry] = []
        self._status = looked or ""

    def compose(self) -> ComposeResult:
        with Vertical(id="model-picker", classes="dialog"):
            yield Static(Text(self.title_text, style="bold"), id="picker-title")
            yield Input(placeholder="type to filter, Enter to pick", id="model-filter")
            yield OptionList(id="model-list")
            yield Static("", id="picker-status", classes="dim")

    def on_mount(self) -> None:
        self._refill()
        self.query_one("#model-filter", Input).focus()

    def add_local(self, entries: list[ModelEntry], looked: str = "") -> None:
        """What discovery found on local servers now (it replaces what an earlier search
        found); refreshes the list."""
        self.entries = [e for e in self.entries if e.source != "local"]
        known = {e.spec for e in self.entries}
        self.entries.extend(e for e in entries if e.spec not in known)
        self.searching = False
        self._status = looked
        if self.is_mounted:
            self._refill()

    def _refill(self) -> None:
        query = self.query_one("#model-filter", Input).value
        self._shown = fuzzy_filter(query, self.entries)[:MAX_SHOWN]
        ol = self.query_one("#model-list", OptionList)
        ol.clear_options()
        listed = [e for e in self._shown if not e.spec.endswith("/")]
        price_width = max((len(_price(e)) for e in listed), default=0)
        tagged = any(_tag(e) for e in self._shown)
        # after the name: "  " window (5) "  " price, " config" — only as wide as they are
        extra = (9 + price_width if listed else 0) + (7 if tagged else 0)
        room = self._spec_room(extra)
        width = min(room, max((len(_shown_spec(e)) for e in self._shown), default=10))
        for e in self._shown:
            label = Text(
                elide_spec(_shown_spec(e), width).ljust(width),
                style="bold" if e.spec == self.current else "",
            )
            if e.spec.endswith("/"):  # a provider whose models are not listed: type one
                label.append(f"  {e.note or 'type the model id'}", style="dim")
            else:
                window = format_window(e.window)
                label.append(f"  {window:>5}  {_price(e):<{price_width}}", style="dim")
            tag = _tag(e)
            if tag:
                label.append(f" {tag}", style="green" if tag == "local" else "cyan")
            ol.add_option(Option(label))
        ol.highlighted = 0 if self._shown else None
        status = f"{len(self._shown)} of {count(len(self.entries), 'model')}"
        if not self.entries and not self.searching:
            status = (
                "no model usable here yet: set a provider's API key (/help says which), "
                "or type provider/model and Enter"
            )
        if self.searching:
            status += " · looking for local servers…"
        elif self._status:
            status += f" · {self._status}"
        self.query_one("#picker-status", Static).update(status)

    def _spec_room(self, extra: int) -> int:
        """Columns for the model name, so the ``extra`` after it (window, price and tag) stay
        on its line."""
        width = self.query_one("#model-list", OptionList).scrollable_content_region.width
        if not width:  # before the first layout: the dialog is 90% of the screen, at most 120
            width = min(int(self.app.size.width * 0.9), 120) - 8
        return max(16, width - extra)

    def on_resize(self) -> None:
        self._refill()

    def on_input_changed(self, event: Input.Changed) -> None:
        self._refill()

    def action_move(self, delta: int) -> None:
        ol = self.query_one("#model-list", OptionList)
        if self._shown:
            ol.highlighted = ((ol.highlighted or 0) + delta) % len(self._shown)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        ol = self.query_one("#model-list", OptionList)
        typed = event.value.strip()
        if ol.highlighted is not None and self._shown and self._shown[ol.highlighted].spec != typed:
            self._pick(self._shown[ol.highlighted].spec)
        elif "/" in typed and not typed.endswith("/"):
            self.dismiss(typed)

    def _pick(self, spec: str) -> None:
        """A provider without listed models ("name/") fills the filter to type the model id."""
        if spec.endswith("/"):
            box = self.query_one("#model-filter", Input)
            box.value = spec
            box.cursor_position = len(spec)
            return
        self.dismiss(spec)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._pick(self._shown[event.option_index].spec)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _price(e: ModelEntry) -> str:
    return format_price(e.input_price, e.output_price)


def _tag(e: ModelEntry) -> str:
    return {"local": "local", "config": "config"}.get(e.source, "")


def _shown_spec(e: ModelEntry) -> str:
    """``name/…`` for a provider entry (no model id yet), else the spec."""
    return e.spec + "…" if e.spec.endswith("/") else e.spec
