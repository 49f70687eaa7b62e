"""One line at the bottom: model (and role), effort, context used, tokens and cost, permissions."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from ...modes import Mode
from ...session.port import SessionStatus
from ...words import count

__all__ = [
    "StatusBar",
    "cost_text",
    "elide_spec",
    "human_tokens",
    "model_priced",
    "status_text",
]


def human_tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(n)


MIN_SPEC = 12  # the model keeps at least this many columns, however narrow the screen


def elide_spec(spec: str, room: int) -> str:
    """``spec`` in at most ``room`` columns: whole if it fits, else with the model's directory
    folded (``llamacpp/…/SmolLM2.gguf``: llama.cpp names its model by its path), else the
    provider and the end of the model (``llamacpp/…Q4_1.gguf``), else cut in the middle."""
    if len(spec) <= room:
        return spec
    if room <= 1:
        return "…"[:room]
    provider, _, model = spec.partition("/")
    base = model.rstrip("/").rsplit("/", 1)[-1]
    if base != model and len(folded := f"{provider}/…/{base}") <= room:
        return folded
    if model and room - len(provider) - 2 >= 8:
        return f"{provider}/…{model[len(model) - (room - len(provider) - 2) :]}"
    head = (room - 1) // 3
    return spec[:head] + "…" + spec[len(spec) - (room - 1 - head) :]


def status_text(
    status: SessionStatus | None,
    *,
    busy: bool = False,
    note: str = "",
    width: int = 0,
    priced: bool = False,
    plan: str = "",
) -> Text:
    """The status line for ``status`` (``Session.status``; None or not ready: before a model
    is). With ``width``, a long model name is shortened so that everything after it (effort,
    context, tokens, cost, mode) still fits. ``priced``: the current model's price is known
    (see ``cost_text``). ``plan``: a signed-in plan's usage windows (``plus 5h 37% · wk
    12%``; the status's own when not given)."""
    t = Text(no_wrap=True, overflow="ellipsis")
    if busy:
        t.append("● ", style="yellow")
    if status is None or not status.ready:
        t.append(note or "no model yet", style="dim")
        return t
    plan = plan or status.plan
    spec = status.spec or status.model or "?"
    tail = _tail(status, priced, plan=plan)
    for terse in range(1, TERSEST + 1):  # too narrow: drop the least needed fields first
        if not width or width - t.cell_len - tail.cell_len >= MIN_SPEC:
            break
        tail = _tail(status, priced, terse, plan)
    if width:
        spec = elide_spec(spec, max(MIN_SPEC, width - t.cell_len - tail.cell_len))
    t.append(spec, style="bold")
    t.append_text(tail)
    if note:
        t.append(f" · {note}", style="dim")
    return t


TERSEST = 3


def _tail(status: SessionStatus, priced: bool = False, terse: int = 0, plan: str = "") -> Text:
    """Everything after the model: role, effort, context, tokens, cost, running background
    jobs, the language servers' diagnostics of this session's edits, permission mode. When the
    line is narrow (``terse``): 1 leaves out the effort when it is the default, 2 also the
    tokens, 3 also the role, any effort, the jobs and the diagnostics. Context, cost and
    permission mode always stay."""
    t = Text()
    role = status.role
    if role and role != "main" and terse < 3:
        t.append(f" ({role})")
    effort = status.effort or "default"
    if not (terse >= 3 or (terse >= 1 and effort == "default")):
        t.append(f" · effort {effort}")
    window, used = status.context_window, status.context_tokens
    if window:
        pct = used * 100 / window
        style = "red" if pct >= 80 else ("yellow" if pct >= 60 else "")
        t.append(" · ")
        t.append(f"ctx {pct:.0f}%", style=style)
    total = status.tokens
    if terse < 2:
        t.append(f" · {human_tokens(total)} tok")
    t.append(f" · {cost_text(status.cost, total, priced)}")
    if plan and terse < 2:
        t.append(f" · {plan}")
    running = status.jobs_running if terse < 3 else 0
    if running:  # background jobs still running: /jobs lists them
        t.append(f" · {count(running, 'job')}", style="green")
    found = status.diagnostics if terse < 3 else 0
    if found:  # what the language servers said of this session's edits
        t.append(f" · {count(found, 'diagnostic')}", style="yellow")
    mode = status.mode or Mode.ASK
    t.append(" · ")
    t.append(mode, style=MODE_STYLES.get(mode, ""))
    return t


UNKNOWN_COST = "—"
MODE_STYLES: dict[str, str] = {Mode.PLAN: "bold cyan", Mode.YOLO: "bold red"}  # the modes to notice at a glance


def cost_text(cost: float | None, tokens: int = 0, priced: bool = False) -> str:
    """``$0.0123``; ``$0.0000`` before the first reply of a model with a price (a local one
    costs 0); ``—`` when the price is not known."""
    if cost is None and priced and not tokens:
        cost = 0.0
    return f"${cost:.4f}" if cost is not None else UNKNOWN_COST


def model_priced(status: SessionStatus, config: Any = None) -> bool:
    """Whether the catalog knows the price of the model in use (0 for a local one)."""
    provider = status.provider or None
    model = status.model
    if not model:
        return False
    try:
        from ...llm import catalog

        return bool(catalog.lookup(model, provider, config).priced)
    except Exception:  # a price is a hint: never let it break the status line
        return False


class StatusBar(Static):
    """Drawn at its current width, so a resize re-fits the model name."""

    DEFAULT_CSS = "StatusBar { height: 1; }"

    def __init__(self, config: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.config = config
        self._status: SessionStatus | None = None
        self._busy = False
        self._note = ""
        self._plan = ""
        self._priced: dict[tuple[str, str], bool] = {}
        self.vim = ""  # the prompt's vim mode ("" when off), shown first
        self.command: Any = None  # [tui] status_line's StatusCommand (tui/status_line.py)
        self.custom: Text | None = None  # its last line
        self.custom_mode = "append"  # or "replace": Larik's own line

    def set_custom(self, text: Text | None) -> None:
        self.custom = text
        self.refresh()

    def set_vim(self, mode: str) -> None:
        self.vim = mode
        self.refresh()

    def show(
        self, status: SessionStatus | None, *, busy: bool = False, note: str = "", plan: str = ""
    ) -> None:
        """Draw ``status`` (``Session.status``; None: no model yet, ``note`` says why)."""
        ready = status is not None and status.ready
        self._status = status if ready else None
        self._busy, self._note, self._plan = busy, note, plan
        if self.command is not None and status is not None and ready:
            self.command.changed(status, busy)  # runs it only when what it is told changed
        self.refresh()

    def render(self) -> Text:
        status = self._status
        key = (status.provider, status.model) if status is not None else ("", "")
        if status is not None and key not in self._priced:
            self._priced[key] = model_priced(status, self.config)
        tag = f"{self.vim.upper()} " if self.vim else ""
        custom = self.custom if status is not None else None
        if custom is not None and self.custom_mode == "replace":
            return Text.assemble(tag, custom, no_wrap=True, overflow="ellipsis")
        extra = custom.cell_len + 3 if custom is not None else 0  # the model name gives way
        line = status_text(
            status,
            busy=self._busy,
            note=self._note,
            width=max(0, self.size.width - len(tag) - extra) if self.size.width else 0,
            priced=self._priced.get(key, False),
            plan=self._plan,
        )
        if custom is not None:
            line = Text.assemble(line, (" · ", "dim"), custom, no_wrap=True, overflow="ellipsis")
        if not tag:
            return line
        style = "bold reverse" if self.vim == "normal" else "bold"
        return Text.assemble((tag, style), line, no_wrap=True, overflow="ellipsis")
