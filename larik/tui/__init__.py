"""The Textual TUI. ``run_tui`` is the entry point; importing this package imports no Textual."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["resume_hint", "run_tui"]


def resume_hint(session_id: str) -> str:
    """What quitting prints, so the user can come back to the session."""
    return f"Session {session_id} saved. Resume it with: larik --resume {session_id}"


def run_tui(
    *,
    cwd: Path,
    config: Any,
    model: str = "",
    effort: str | None = None,
    permission_mode: str | None = None,
    resume: str | None = None,
) -> int:
    """Run the TUI until the user quits; print how to resume the session. Returns the exit code.

    ``resume``: None for a new session, "latest" for the project's latest, else a session id.
    """
    from ..agent.events import Approver
    from .app import LarikApp

    async def factory(*, approver: Approver, model: str = "", resume: str | None = None) -> Any:
        from ..agent import Agent  # resolving the model imports its SDK: after the first frame

        return await Agent.create(
            cwd=cwd,
            config=config,
            model=model,
            effort=effort,
            permission_mode=permission_mode,
            approver=approver,
            resume=resume,
        )

    history = None
    try:
        from ..config import state_dir

        history = state_dir() / "prompt-history.jsonl"
    except Exception:  # no history file is fine
        history = None
    app = LarikApp(
        factory, cwd=cwd, config=config, model=model, resume=resume, history_path=history
    )
    code = app.run()
    if app.session_id:
        print(resume_hint(app.session_id))
    return int(code or 0)
