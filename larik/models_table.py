"""``larik models``' table: the usable models first, in as many columns as the terminal has.

The columns are a table (``COLUMNS``), each with the order it is given up in when the terminal
is too narrow: the cache prices first, the model's name never (it is what one types). A table
that is still too wide after that has its access cut short with an ellipsis. The width is
:func:`larik.terminal_text.output_width`'s (``COLUMNS``, the terminal's, else 160 piped). The models that need a key, a sign-in or a server are one
line per provider under the table, saying what would make them usable; ``--all`` lists them.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .terminal_text import output_width
from .words import count


@dataclass(frozen=True, slots=True)
class Access:
    """Whether a provider's models can be used here: a short state for the table, and what
    would make them usable (or what they run on) for the line under it."""

    ok: bool
    state: str  # "key", "signed in (…)", "server up", "no key", "not signed in", …
    how: str = ""  # "set ANTHROPIC_API_KEY", "larik login copilot", …

    @property
    def text(self) -> str:
        return f"{self.state}: {self.how}" if self.how else self.state


__all__ = ["COLUMNS", "print_models", "table_lines"]

Row = dict[str, Any]


def _money(v: float | None) -> str:
    return "-" if v is None else f"{v:g}"


def _tokens(n: int | None) -> str:
    if n is None:
        return "?"
    if n >= 1_000_000:
        return f"{n / 1_000_000:.2f}".rstrip("0").rstrip(".") + "M"
    return f"{round(n / 1000)}k"


def _access(r: Row) -> str:
    state = str(r["access"]).split(": ", 1)[0]  # "no key: set X" -> "no key" (X is below)
    return ("✓ " if r["available"] else "✗ ") + state


def _can(r: Row) -> str:
    can = {True: "tools", False: "no tools", None: "?"}[r["tools"]]
    return can + (" vision" if r["vision"] else "")


@dataclass(frozen=True, slots=True)
class Column:
    header: str
    cell: Callable[[Row], str]
    drop: int  # given up in this order when the terminal is too narrow (0: never)


COLUMNS: tuple[Column, ...] = (
    Column("MODEL", lambda r: str(r["spec"]), 0),
    Column("ACCESS", _access, 0),
    Column("WINDOW", lambda r: _tokens(r["context_window"]), 7),
    Column("MAX OUT", lambda r: _tokens(r["max_output"]), 3),
    Column("IN", lambda r: _money(r["input_price"]), 6),
    Column("OUT", lambda r: _money(r["output_price"]), 5),
    Column("CACHE R", lambda r: _money(r["cache_read_price"]), 2),
    Column("CACHE W", lambda r: _money(r["cache_write_price"]), 1),
    Column("CAN", _can, 4),
)
GAP = "  "


def _width(cells: list[list[str]]) -> int:
    return sum(max(len(c) for c in col) for col in cells) + len(GAP) * (len(cells) - 1)


def table_lines(rows: list[Row], width: int) -> list[str]:
    """The table of ``rows`` in at most ``width`` columns (the model's name is never cut)."""
    columns = list(COLUMNS)
    cells = [[c.header] + [c.cell(r) for r in rows] for c in columns]
    for drop in sorted(c.drop for c in COLUMNS if c.drop):
        if _width(cells) <= width:
            break
        at = next(i for i, c in enumerate(columns) if c.drop == drop)
        del columns[at], cells[at]
    over = _width(cells) - width
    access = [c.header for c in columns].index("ACCESS")
    if over > 0:
        room = max(len("ACCESS"), max(len(c) for c in cells[access]) - over)
        cells[access] = [c if len(c) <= room else c[: room - 1] + "…" for c in cells[access]]
    widths = [max(len(c) for c in col) for col in cells]
    return [
        GAP.join(col[i].ljust(w) for col, w in zip(cells, widths, strict=True)).rstrip()
        for i in range(len(rows) + 1)
    ]


def _needs(rows: list[Row], access: dict[str, Access]) -> list[str]:
    """One line per provider whose models cannot be used here: how many, and what would do."""
    by_provider: dict[str, int] = {}
    for r in rows:
        if not r["available"]:
            by_provider[r["provider"]] = by_provider.get(r["provider"], 0) + 1
    names = {p: f"{p} ({count(n, 'model')})" for p, n in by_provider.items()}
    pad = max((len(n) for n in names.values()), default=0)
    return [f"  {names[p].ljust(pad)}  {_how(access.get(p))}".rstrip() for p in by_provider]


def _how(access: Access | None) -> str:
    if access is None:
        return ""
    return access.how or {"server down": "start its server"}.get(access.state, access.state)


def print_models(
    rows: list[Row], as_of: str, access: dict[str, Access], *, show_all: bool, hint: bool
) -> None:
    """The usable models (all of them with ``show_all``), what the others need, the prices."""
    width = max(40, output_width())
    usable = [r for r in rows if r["available"]]
    shown = rows if show_all else usable
    if shown:
        print("\n".join(table_lines(shown, width)))
    else:
        print("No model is usable here yet.")
    notes = {a.state: a.how for a in access.values() if a.ok and a.how}
    if any(r["available"] and str(r["access"]).startswith(s) for r in shown for s in notes):
        print()
        for state, how in notes.items():
            print(f"{state}: {how}")
    others = len(rows) - len(usable)
    if hint and others:
        print()
        head = "Not usable here yet" if show_all else f"{count(others, 'more model')} not shown"
        print(f"{head}; what each provider needs:")
        print("\n".join(_needs(rows, access)))
        if not show_all:
            print("larik models --all lists them.")
    prices = (
        f"Prices: USD per 1M tokens, as of {as_of}; local models cost nothing, and a "
        "signed-in plan's models are paid by the plan (larik login)."
    )
    print("\n" + textwrap.fill(prices, width))
