"""Starting the TUI from the command line, without Typer.

``larik`` with no arguments (and the simple forms of its TUI options, see
``larik._entry.interactive_args``) comes here straight from the console script; any other
command line goes through the Typer app in :mod:`larik.cli`, whose root callback comes here too.
Nothing heavy is imported at module level: the TUI paints its first frame before pydantic, the
config or any SDK is loaded (benchmarks/first_paint.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["NO_TERMINAL", "run_interactive"]

NO_TERMINAL = (
    "larik: the TUI needs a terminal (stdin and stdout); "
    'for scripts and pipes use print mode: larik -p "PROMPT" (or -p - to read stdin)'
)


def run_interactive(
    cwd: Path,
    model: str = "",
    effort: str | None = None,
    permission_mode: str | None = None,
    session: str | None = None,
    *,
    trust_project: bool = False,
    prompt: str = "",
    max_budget_usd: float | None = None,
) -> int:
    """Run the TUI in ``cwd``; the exit code. ``session``: None for a new one, "latest" or an id;
    ``prompt``: sent once the agent is there (``larik "PROMPT"``).

    Without a terminal, or with a broken config, it is one line on stderr and exit code 2."""
    if max_budget_usd is not None and not max_budget_usd > 0:
        print("larik: --max-budget-usd must be more than 0 (USD)", file=sys.stderr)
        return 2
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(NO_TERMINAL, file=sys.stderr)
        return 2
    from .tui import run_tui

    return run_tui(
        cwd=cwd,
        model=model,
        effort=effort,
        permission_mode=permission_mode,
        resume=session,
        trust_project=trust_project,
        prompt=prompt,
        max_budget_usd=max_budget_usd,
    )
