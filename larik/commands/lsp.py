"""``larik lsp``: the language servers Larik knows, which are found here, and whether they
would run in this project (docs/lsp.md). Light at import time: config is read when it runs;
no server is started."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from ..llm import jsontext
from ..terminal_text import safe_output


def register(app: typer.Typer) -> None:
    app.command("lsp")(safe_output(lsp_cmd))


def lsp_cmd(
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """List the language servers: found where, and whether they run in this project."""
    from ..llm.errors import ConfigError

    try:
        status = _status(Path.cwd())
    except ConfigError as e:
        print(f"larik: {e}", file=sys.stderr)
        raise typer.Exit(2) from None
    if json_out:
        print(jsontext.dumps(status, indent=2))
        return
    from ..lsp.session import status_text

    print(status_text(status))


def _status(cwd: Path) -> dict[str, Any]:
    """What ``larik lsp`` shows: the same :meth:`LspSession.status` as ``/lsp``, for a session
    that has started nothing."""
    from ..config import load_config
    from ..lsp.session import LspSession

    return LspSession(load_config(cwd), cwd).status()
