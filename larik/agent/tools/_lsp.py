"""The language servers' word on a write (larik.lsp): one call after a successful write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import ToolContext


async def diagnostics(
    ctx: ToolContext, path: Path, old: str, new: str, shown: str, data: dict[str, Any]
) -> str:
    """ "\\n" + the lines the session's servers add for this write (the errors it introduced,
    or a one-line notice), or "" (no servers, none found, nothing new). The introduced
    errors also go into ``data["diagnostics"]`` (the tool card, print mode's JSON)."""
    if ctx.lsp is None:
        return ""
    text: str = await ctx.lsp.after_write(path, old, new, shown)
    if text.startswith(ctx.lsp.HEADING):
        data["diagnostics"] = text.splitlines()[1:]
    return "\n" + text if text else ""
