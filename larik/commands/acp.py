"""``larik acp``: Larik as an Agent Client Protocol agent on stdin/stdout, for editors.

    larik acp                          # Zed, JetBrains, Neovim start it (docs/editors.md)
    larik acp -m anthropic/claude-sonnet-4-5 --permission-mode edits

Light at import time (``larik --help`` imports this module): the SDK and the session are
imported when the command runs (:mod:`larik.acp.server`).
"""

from __future__ import annotations

import sys

import typer


def register(app: typer.Typer) -> None:
    app.command("acp")(acp)


def acp(
    model: str = typer.Option(
        "", "--model", "-m", metavar="SPEC", help="Model: provider/model, a model id or a role."
    ),
    permission_mode: str | None = typer.Option(
        None,
        "--permission-mode",
        metavar="MODE",
        help="ask (default), edits, yolo or plan; the editor can change it per session.",
    ),
    trust_project: bool = typer.Option(
        False,
        "--trust-project",
        help="Apply a project's own settings that loosen safety or run code, unasked.",
    ),
) -> None:
    """Speak the Agent Client Protocol on stdin and stdout (for Zed, JetBrains, Neovim)."""
    from ..session.commands import MODES

    if permission_mode is not None and permission_mode not in MODES:
        print(
            f"larik acp: unknown permission mode {permission_mode!r}: use " + ", ".join(MODES),
            file=sys.stderr,
        )
        raise typer.Exit(2)
    from ..acp.agent import AcpOptions
    from ..acp.server import serve

    opts = AcpOptions(model=model, permission_mode=permission_mode, trust_project=trust_project)
    raise typer.Exit(serve(opts))
