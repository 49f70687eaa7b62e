"""``/routing``: each role -> its model -> its fallbacks, with prices; change, preset, save.

Enter on a role opens the model picker for it (or "(main model)" to unset it). ``p`` computes
a suggested preset (``routing.suggest_routing``, with ``larik bench`` results when there are
any) and shows why each role got its model; ``y`` applies it. Changes apply to this session at
once; ``s`` also saves them to the user config. Esc closes, and the conversation gets one line
saying what changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ..models import ModelEntry, format_price
from .model_picker import ModelPickerScreen

__all__ = ["RoutingScreen", "UNSET"]

UNSET = "(main model)"


def preset_text(suggestion: Any) -> RenderableType:
    """The suggested preset: a role a row, its model and fallbacks, and under them why (the
    reason wraps inside its column at any width: at 80 columns it was cut mid-sentence)."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column(ratio=1, overflow="fold")
    for role, spec in suggestion.roles.items():
        body = Text(spec)
        fbs = suggestion.fallbacks.get(role)
        if fbs:
            body.append("  → " + ", ".join(fbs), style="cyan")
        reason = suggestion.reasons.get(role, "")
        if reason:
            body.append(f"\n{reason}", style="dim")
        grid.add_row(f"  {role}", body)
    for role, why in getattr(suggestion, "unfilled", {}).items():
        grid.add_row(f"  {role}", Text(f"(unchanged) {why}", style="dim"))
    return Group(Text("Suggested preset (y to apply):", style="bold"), grid)


def _price(spec: str, config: Any) -> str:
    from ...llm import catalog

    provider, _, model = spec.partition("/")
    if not model:
        return ""
    try:
        info = catalog.lookup(model, provider, config)
    except Exception:  # a price is a hint: never let it break the screen
        return format_price(None, None)
    if info.local:
        return "free"
    if info.subscription:
        return "plan"
    return format_price(info.input_price, info.output_price)


class RoutingScreen(ModalScreen[str | None]):
    """Dismissed with a one-line summary of the roles changed while it was open (None when
    none was), for the conversation."""

    BINDINGS = [
        Binding("escape", "close", "close"),
        Binding("p", "preset", "suggest a preset"),
        Binding("y", "apply_preset", "apply preset", show=False),
        Binding("s", "save", "save"),
    ]

    def __init__(
        self,
        config: Any,
        entries: list[ModelEntry],
        *,
        save: Callable[..., Any] | None = None,
        suggest: Callable[[], Any] | None = None,
        current: str = "",
    ) -> None:
        """``current``: the model the session uses now (what ``/model`` shows)."""
        super().__init__(classes="modal")
        from ... import routing

        self.config = config
        self.entries = entries
        snap = config.routing()
        self.main = snap.model
        self.current = current
        self.roles: dict[str, str] = dict(snap.roles)
        self.fallbacks: dict[str, list[str]] = {k: list(v) for k, v in snap.fallbacks.items()}
        self.role_names = list(routing.all_roles(config))
        self.changed: set[str] = set()  # not saved yet
        self.touched: list[str] = []  # changed while the screen was open, saved or not
        self.suggestion: Any = None
        self._save = save or routing.save_routing
        self._suggest = suggest or self._default_suggest
        self.saved_to = ""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="routing", classes="dialog"):  # a preset may not fit at 80x24
            yield Static(
                Text("Routing  ", style="bold").append(
                    "Enter: change a role · p: suggest a preset · s: save · Esc: close", style="dim"
                )
            )
            yield OptionList(id="role-list")
            yield Static("", id="routing-preset")
            yield Static("", id="routing-status", classes="dim")

    def on_mount(self) -> None:
        self._refresh_rows()
        self.query_one("#role-list", OptionList).focus()

    # -- rows --------------------------------------------------------------------------------
    def row(self, role: str, width: int = 30) -> Text:
        from ... import routing

        spec = self.roles.get(role, "")
        default = routing.role_default(role)  # opus unset: the catalog's Opus, as larik routing
        t = Text(f"{role:<9}", style="bold")
        if spec or default:
            t.append(f"{spec or default:<{width}}", style="" if spec else "dim")
            t.append(f" {_price(spec or default, self.config):<12}", style="dim")
        else:
            t.append(f"{UNSET:<{width}}", style="dim")
            t.append(" " * 13)
        if self.config.routing().prefer.get(role) == "subscription":
            t.append(" a signed-in plan first", style="magenta")
        fbs = self.fallbacks.get(role, [])
        if fbs:
            t.append(
                " → " + ", ".join(f"{f} ({_price(f, self.config)})" for f in fbs), style="cyan"
            )
        if role in self.changed:
            t.append("  *", style="yellow")
        return t

    def _refresh_rows(self) -> None:
        from ... import routing

        ol = self.query_one("#role-list", OptionList)
        keep = ol.highlighted
        ol.clear_options()
        width = max(
            [
                len(UNSET),
                *(len(self.roles.get(r) or routing.role_default(r)) for r in self.role_names),
            ]
        )
        for role in self.role_names:
            ol.add_option(Option(self.row(role, width)))
        ol.highlighted = keep if keep is not None else 0
        if self.current:  # what /model says; the config's own when the session uses another
            status = f"main model: {self.current} (in use)"
            if self.main and self.main != self.current:
                status += f" · config: {self.main}"
        else:
            status = f"main model: {self.main or '(first provider with a key)'}"
        if self.changed:
            status += " · unsaved changes (s to save)"
        elif self.saved_to:
            status += f" · saved to {self.saved_to}"
        self.query_one("#routing-status", Static).update(status)

    # -- changing a role ---------------------------------------------------------------------
    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        role = self.role_names[event.option_index]
        entries = [ModelEntry(UNSET, source="config"), *self.entries]
        picker = ModelPickerScreen(
            entries, current=self.roles.get(role, ""), title=f"Model for {role}"
        )
        self.app.push_screen(picker, callback=lambda spec: self.set_role(role, spec))

    def set_role(self, role: str, spec: str | None) -> None:
        if spec is None:
            return
        if spec == UNSET:
            self.roles.pop(role, None)
        else:
            self.roles[role] = spec
        self._mark(role)
        self._apply_live()
        self._refresh_rows()

    def _mark(self, role: str) -> None:
        self.changed.add(role)
        if role not in self.touched:
            self.touched.append(role)

    def _apply_live(self) -> None:
        from ...llm.errors import LarikError

        try:
            self.config.set_routing(roles=self.roles, fallbacks=self.fallbacks)
        except LarikError as e:  # one line, the screen stays up
            self.notify(f"not applied: {e}", severity="error")

    # -- presets -----------------------------------------------------------------------------
    def _default_suggest(self) -> Any:
        from ... import routing

        reachable = routing.reachable_local_providers(self.config)
        evidence = routing.load_evidence()
        models = [  # what /model lists (local servers' models too) and the model in use
            *routing.available_models(self.config, reachable, extra=evidence.keys()),
            *(e.spec for e in self.entries if "/" in e.spec and not e.spec.endswith("/")),
            *([self.current] if self.current else []),
        ]
        windows = {e.spec: e.window for e in self.entries}  # as /model shows them: measured
        return routing.suggest_routing(
            models, config=self.config, evidence=evidence, reachable=reachable, windows=windows
        )

    def action_preset(self) -> None:
        self.query_one("#routing-preset", Static).update(Text("working out a preset…", style="dim"))
        self._compute_preset()

    @work(thread=True, exclusive=True, group="preset")
    def _compute_preset(self) -> None:
        try:
            suggestion = self._suggest()
        except Exception as e:  # shown to the user, one line
            self.app.call_from_thread(self._show_preset, None, f"no preset: {e}")
            return
        self.app.call_from_thread(self._show_preset, suggestion, "")

    def _show_preset(self, suggestion: Any, error: str) -> None:
        self.suggestion = suggestion
        box = self.query_one("#routing-preset", Static)
        if suggestion is None or not suggestion.roles:
            box.update(Text(error or "no preset: no usable models found", style="red"))
            return
        box.update(preset_text(suggestion))
        dialog = self.query_one("#routing", VerticalScroll)
        self.call_after_refresh(dialog.scroll_end, animate=False)  # the preset, whole

    def action_apply_preset(self) -> None:
        s = self.suggestion
        if s is None:
            return
        for role, spec in s.roles.items():
            self.roles[role] = spec
            self._mark(role)
            if role not in self.role_names:
                self.role_names.append(role)
        for role, fbs in s.fallbacks.items():
            self.fallbacks[role] = list(fbs)
            self._mark(role)
        self.suggestion = None
        self.query_one("#routing-preset", Static).update("")
        self._apply_live()
        self._refresh_rows()

    # -- saving ------------------------------------------------------------------------------
    def action_save(self) -> None:
        if not self.changed:
            self.notify("nothing to save")
            return
        roles = {r: self.roles.get(r) for r in self.changed}
        fallbacks = {r: self.fallbacks.get(r) for r in self.changed}
        try:
            path = self._save(roles, fallbacks, config=self.config)
        except Exception as e:  # a bad value or an unwritable file: one line
            self.notify(f"not saved: {e}", severity="error")
            return
        self.saved_to = str(path)
        self.changed.clear()
        self._refresh_rows()
        self.notify(f"routing saved to {path}")

    def action_close(self) -> None:
        self.dismiss(self.summary())

    def summary(self) -> str | None:
        """``routing: worker → ollama/qwen3 (saved to …)``; None when nothing changed."""
        if not self.touched:
            return None
        moves = ", ".join(f"{r} → {self.roles.get(r) or UNSET}" for r in self.touched)
        if self.changed:
            where = "this session only: s in /routing saves it"
        else:
            where = f"saved to {self.saved_to}"
        return f"routing: {moves} ({where})"
