"""``larik lsp``: the language servers Larik knows, which are found here, and whether they
would run in this project (docs/lsp.md). Light at import time: config is read when it runs;
no server is started."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from ..terminal_text import safe_output


def register(app: typer.Typer) -> None:
    app.command("lsp")(safe_output(lsp_cmd))


def lsp_cmd(
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """List the language servers: found where, and whether they run in this project."""
    from ..llm.errors import ConfigError

    try:
        rows, why = _rows(Path.cwd())
    except ConfigError as e:
        print(f"larik: {e}", file=sys.stderr)
        raise typer.Exit(2) from None
    if json_out:
        print(json.dumps({"servers": rows, "off": why}, indent=2))
        return
    if why:
        print(why)
    for r in rows:
        where = r["path"] or "not found"
        if r["in_project"]:
            where += " (the project's own)"
        print(f"{r['name']:<28} {','.join(r['languages']):<12} {where}")


def _rows(cwd: Path) -> tuple[list[dict[str, Any]], str]:
    from ..config import load_config
    from ..lsp.servers import find, specs
    from ..lsp.session import LspSession

    config = load_config(cwd)
    session = LspSession(config, cwd)
    rows, why = [], ""
    for spec in specs(config):
        found = find(spec, session.root)
        if found is not None and not why:
            why = session.allowed(found)
        rows.append(
            {
                "name": spec.name,
                "languages": list(spec.languages),
                "path": found.argv[0] if found else None,
                "in_project": bool(found and found.in_project),
            }
        )
    return rows, "lsp: off ([lsp] enabled = false)" if why == "off" else why
