"""Display-only transcript records: what a front end showed that the messages do not hold, so
a resumed session looks as the live one did.

* ``tool_end`` — a tool call's duration and outcome (exit code, denied, timed out; an edit's
  diff up to ``MAX_DIFF`` characters), recorded by the tool runner after each call;
* ``notice`` — the agent's notices (already recorded) and a turn's error (level ``error``);
* ``shell`` — a ``!command`` the TUI ran: its output's tail, exit code and duration.

:class:`Shown` gathers them while a transcript is rebuilt (``sessions.rebuild``): tool ends by
call id, notices and shell records at their place among the messages (a compaction drops the
ones before it, as it drops those messages), and the context in use after the last reply.
Records are read defensively: anything of the wrong type is left out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..tool_contract import LIVE_ONLY

__all__ = [
    "MAX_DIFF",
    "MAX_OUTPUT",
    "Shown",
    "error_record",
    "seconds",
    "shell_record",
    "tool_end_record",
]

MAX_DIFF = 16_000
MAX_OUTPUT = 16_000
_SCALARS = (bool, int, float, str)


def seconds(duration: float) -> float:
    """A duration as the transcript keeps it. The live view is given this one too, so a card
    reads the same resumed as it did live (0.0499 s shown live as 0.0s was kept as 0.05 and
    resumed as 0.1s)."""
    return round(duration, 3)


def tool_end_record(call_id: str, duration: float, data: dict[str, Any]) -> dict[str, Any]:
    kept = {
        k: v
        for k, v in data.items()
        if isinstance(v, _SCALARS) and k != "diff" and k not in LIVE_ONLY
    }
    diff = data.get("diff")
    if isinstance(diff, str) and diff and len(diff) <= MAX_DIFF:
        kept["diff"] = diff
    return {"kind": "tool_end", "id": call_id, "duration": seconds(duration), "data": kept}


def shell_record(command: str, output: str, exit_code: int, duration: float) -> dict[str, Any]:
    return {
        "kind": "shell",
        "command": command,
        "output": output[-MAX_OUTPUT:],
        "exit_code": exit_code,
        "duration": seconds(duration),
    }


def error_record(text: str) -> dict[str, Any]:
    return {"kind": "notice", "text": text, "level": "error"}


@dataclass
class Shown:
    tool_ends: dict[str, dict[str, Any]] = field(default_factory=dict)
    """By call id: ``{"duration": float | None, "data": {...}}``."""
    items: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """``(messages before it, record)``: notices (``text``, ``level``, ``subagent``) and
    ``!command`` runs (``command``, ``output``, ``exit_code``, ``duration``)."""
    context: int = 0
    """Tokens in use after the last main reply (0: not known; a compaction resets it)."""

    def take(self, rec: dict[str, Any], position: int) -> None:
        """Keep what ``rec`` shows, if it is a display record."""
        kind = rec.get("kind")
        if kind == "tool_end" and isinstance(rec.get("id"), str):
            raw = rec.get("data")
            data: dict[str, Any] = raw if isinstance(raw, dict) else {}
            kept = {
                k: v
                for k, v in data.items()
                if isinstance(v, _SCALARS) and not (isinstance(v, str) and len(v) > MAX_DIFF)
            }
            self.tool_ends[rec["id"]] = {"duration": _seconds(rec.get("duration")), "data": kept}
        elif kind == "notice" and isinstance(rec.get("text"), str):
            level = rec.get("level") if rec.get("level") in ("info", "warning", "error") else "info"
            who = rec.get("subagent") if isinstance(rec.get("subagent"), str) else ""
            notice = {"kind": "notice", "text": rec["text"], "level": level, "subagent": who}
            self.items.append((position, notice))
        elif kind == "shell" and isinstance(rec.get("command"), str):
            code = rec.get("exit_code")
            self.items.append(
                (
                    position,
                    {
                        "kind": "shell",
                        "command": rec["command"],
                        "output": rec.get("output") if isinstance(rec.get("output"), str) else "",
                        "exit_code": code if isinstance(code, int) else -1,
                        "duration": _seconds(rec.get("duration")),
                    },
                )
            )

    def replied(self, usage: Any, role: str, subagent: bool) -> None:
        if role == "main" and not subagent:
            self.context = int(usage.context + usage.output)

    def compacted(self) -> None:
        self.items.clear()
        self.context = 0


def _seconds(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return max(0.0, float(value))
    return None
