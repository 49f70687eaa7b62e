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
    config: Any = None,
    model: str = "",
    effort: str | None = None,
    permission_mode: str | None = None,
    resume: str | None = None,
    trust_project: bool = False,
    prompt: str = "",
) -> int:
    """Run the TUI until the user quits; print how to resume the session. Returns the exit code.

    ``config``: None to load it (the user's and the project's files) after the first frame, so
    pydantic is not imported before it; a broken config ends the app at once with exit code 2
    and its one-line error on stderr, as before the TUI existed.
    ``resume``: None for a new session, "latest" for the project's latest, else a session id.
    ``prompt``: sent as if typed once the agent is there (``larik "PROMPT"``).
    """
    import sys

    from ..terminal_text import terminal
    from .app import LarikApp

    async def factory(*, approver: Any, model: str = "", resume: str | None = None) -> Any:
        import asyncio
        import importlib

        # the agent, its tools and routing: imported in a thread, so typing goes on meanwhile
        await asyncio.to_thread(importlib.import_module, "larik.agent.agent")
        from ..agent import Agent  # resolving the model imports its SDK: after the first frame

        assert app.config is not None, "the config is still loading"  # start_up loads it first
        return await Agent.create(
            cwd=cwd,
            config=app.config,
            model=model,
            effort=effort,  # type: ignore[arg-type]  # checked by Agent.create
            permission_mode=permission_mode,
            approver=approver,
            resume=resume,
            tool_source=app.chat.mcp,  # the MCP servers, started after the first frame
        )

    from ..paths import wide_root, wide_root_line

    what = "" if trust_project else wide_root(cwd)
    loader = None if config is not None else (lambda: _load_settings(cwd, trust_project))
    history = _history_path() if config is not None else None
    app = LarikApp(
        factory,
        cwd=cwd,
        config=config,
        model=model,
        resume=resume,
        history_path=history,
        config_loader=loader,
        prompt=prompt,
        wide_root=wide_root_line(cwd.resolve(), what) if what else "",
    )
    code = app.run()
    signals = getattr(app, "quit_signals", None)
    if signals is not None:
        signals.disarm()  # the shutdown ended: no need to end it by force
    try:
        if app.startup_error:  # may name a project's file or value: shown as it is
            print(app.startup_error, file=terminal(sys.stderr))
        if app.session_id:
            print(resume_hint(app.session_id))
    except OSError:  # the terminal hung up (SIGHUP): the session is saved all the same
        pass
    return signals.exit_code if signals and signals.exit_code else int(code or 0)


def _load_settings(cwd: Path, trust_project: bool = False) -> tuple[Any, Path | None]:
    """The config and the prompt history file (run by the app after its first frame). The
    project's settings that need trust apply with ``--trust-project`` or when the user trusted
    them before (remembered)."""
    from ..config import load_config

    return load_config(cwd, trust_project=trust_project, remembered=True), _history_path()


def _history_path() -> Path | None:
    try:
        from ..config import state_dir

        return state_dir() / "prompt-history.jsonl"
    except Exception:  # no history file is fine
        return None
