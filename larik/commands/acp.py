"""``larik acp``: Larik as an Agent Client Protocol agent on stdin/stdout, for editors.

    larik acp                          # Zed, JetBrains, Neovim start it (docs/editors.md)
    larik acp -m anthropic/claude-sonnet-4-5 --permission-mode edits

Light at import time (``larik --help`` imports this module): the SDK and the session are
imported when the command runs (:mod:`larik.acp.server`). ``larik acp`` with these options in
their simple forms does not come here at all: ``larik._entry`` starts the server without Typer.
"""

from __future__ import annotations

import typer

from ..modes import Mode


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
        help=f"{Mode.words(last=' or ')} (default: {Mode.ASK}); the editor can change it per session.",
    ),
    trust_project: bool = typer.Option(
        False,
        "--trust-project",
        help="Apply a project's own settings that loosen safety or run code, unasked.",
    ),
) -> None:
    """Speak the Agent Client Protocol on stdin and stdout (for Zed, JetBrains, Neovim)."""
    from ..acp.server import serve
    from ..acp.settings import AcpOptions

    opts = AcpOptions(model=model, permission_mode=permission_mode, trust_project=trust_project)
    raise typer.Exit(serve(opts))
