"""Why a tool call was refused, and what would let it through: the permission policy's answer
(``larik/agent/permissions.py``), phrased by each face in its own words.

A :class:`Refusal` holds the reason and the remedy as facts — a permission mode that would
allow the call (:class:`~larik.modes.Mode`), the ``permissions.allow`` rules that would — and
no face's words. :meth:`Refusal.text` phrases it with a :class:`Phrasing`: how the face names
switching to a mode (print mode: ``rerun with --permission-mode edits``; the TUI:
``/permissions edits or Shift+Tab``; an editor over ACP: ``switch to the Edits mode``). The
model's tool result is phrased with :data:`FOR_THE_MODEL` (no face's key or flag); the event
that ends the call carries the refusal in ``data["refusal"]`` (:meth:`Refusal.data`), from
which each face phrases the line it shows (:func:`from_data`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from .modes import Mode

__all__ = ["FOR_THE_MODEL", "DENIED", "Phrasing", "Refusal", "from_data"]

DENIED = "permission denied"  # how every refusal's text starts (the TUI's card reads it)


@dataclass(frozen=True, slots=True)
class Phrasing:
    """How a face says a remedy: ``switch(mode)`` is the words that put the session in
    ``mode`` there; ``alone`` says why no one could be asked (print mode: ``print mode``)."""

    switch: Callable[[Mode], str]
    alone: str = ""


FOR_THE_MODEL = Phrasing(lambda m: f"the user can switch to the {m} permission mode")


@dataclass(frozen=True, slots=True)
class Refusal:
    """A refused call. ``reason``: why, one clause; ``unasked``: it needed the user's approval
    and no one could be asked; ``mode``/``rules``: what would allow it (``uncoverable``: no
    allow rule can); ``what``: the calls the remedy allows ("file changes"); ``instead``: what
    the model may do meanwhile."""

    reason: str
    unasked: bool = False
    mode: Mode | None = None
    rules: tuple[str, ...] = ()
    uncoverable: bool = False
    what: str = ""
    instead: str = ""

    def text(self, phrasing: Phrasing = FOR_THE_MODEL) -> str:
        """The refusal in one line, its remedy in ``phrasing``'s words."""
        out = f"{DENIED}: {self.reason}"
        if self.unasked:
            out += " and there is no one to ask" + (
                f" ({phrasing.alone})" if phrasing.alone else ""
            )
        if self.instead:
            out += f"; {self.instead}"
        remedy = self.remedy(phrasing)
        return f"{out}. {remedy[0].upper()}{remedy[1:]}." if remedy else out

    def remedy(self, phrasing: Phrasing = FOR_THE_MODEL) -> str:
        """What would allow the call, in ``phrasing``'s words ("" when nothing named would)."""
        ways = []
        if self.mode is not None:
            ways.append(phrasing.switch(self.mode))
        if self.rules:
            quoted = [repr(r) for r in self.rules]
            if len(quoted) == 1:
                ways.append(f"add a permissions.allow rule such as {quoted[0]}")
            else:
                ways.append(f"add permissions.allow rules {' and '.join(quoted)}")
        elif self.uncoverable and ways:
            ways[-1] += " (no permissions.allow rule can cover this command)"
        if not ways:
            return ""
        return f"to allow {self.what or 'it'}, " + ", or ".join(ways)

    def data(self) -> dict[str, Any]:
        """As JSON: what a tool call's end event carries (stream-json shows it as it is)."""
        out = {k: v for k, v in asdict(self).items() if v}
        if self.rules:
            out["rules"] = list(self.rules)
        return out


def from_data(data: dict[str, Any] | None) -> Refusal | None:
    """The refusal a tool call's end event carries (its ``data``), or None."""
    raw = (data or {}).get("refusal")
    if not isinstance(raw, dict) or not isinstance(raw.get("reason"), str):
        return None
    mode = raw.get("mode")
    return Refusal(
        reason=raw["reason"],
        unasked=bool(raw.get("unasked")),
        mode=Mode(mode) if mode in set(Mode) else None,
        rules=tuple(str(r) for r in raw.get("rules") or ()),
        uncoverable=bool(raw.get("uncoverable")),
        what=str(raw.get("what") or ""),
        instead=str(raw.get("instead") or ""),
    )
