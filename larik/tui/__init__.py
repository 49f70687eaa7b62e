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
    max_budget_usd: float | None = None,
) -> int:
    """Run the TUI until the user quits; print how to resume the session. Returns the exit code.

    ``config``: None to load it (the user's and the project's files) after the first frame, so
    pydantic is not imported before it; a broken config ends the app at once with exit code 2
    and its one-line error on stderr, as before the TUI existed.
    ``resume``: None for a new session, "latest" for the project's latest, else a session id.
    ``prompt``: sent as if typed once the agent is there (``larik "PROMPT"``).
    """
    import sys

    from ..paths import wide_root, wide_root_line
    from ..terminal_text import terminal
    from .app import LarikApp

    what = "" if trust_project else wide_root(cwd)
    typed = b""
    if _auto_theme(config):  # [tui] theme = "auto": ask the terminal now, before Textual reads it
        from . import background

        background.ask_terminal()
        typed = background.TYPED[0]  # keys typed meanwhile: the app's first
    loader = None if config is not None else (lambda: _load_settings(cwd, trust_project))
    history = _history_path() if config is not None else None
    from ..session import SessionOptions

    # the session builds the agent after the first frame (resolving the model imports its SDK)
    options = SessionOptions(
        effort=effort, permission_mode=permission_mode, max_budget_usd=max_budget_usd
    )
    app = LarikApp(
        cwd=cwd,
        config=config,
        model=model,
        resume=resume,
        history_path=history,
        config_loader=loader,
        prompt=prompt,
        wide_root=wide_root_line(cwd.resolve(), what) if what else "",
        options=options,
    )
    app.typed_at_start = typed
    code = app.run()
    signals = getattr(app, "quit_signals", None)
    if signals is not None:
        signals.disarm()  # the shutdown ended: no need to end it by force
    try:
        if app.startup_error:  # may name a project's file or value: shown as it is
            print(app.startup_error, file=terminal(sys.stderr))
        if _print_on_exit(app):  # [tui] print_on_exit: the conversation, into the scrollback
            from ..session.export import conversation, render

            out = terminal(sys.stdout)
            out.write(render(conversation(app.chat.session), "text"))
            out.flush()
        if app.session_id:
            print(resume_hint(app.session_id))
    except OSError:  # the terminal hung up (SIGHUP): the session is saved all the same
        pass
    return signals.exit_code if signals and signals.exit_code else int(code or 0)


def _auto_theme(config: Any) -> bool:
    """Whether the theme is ``auto`` (the user's config alone sets ``[tui]``): the file is
    parsed only when a line of it reads ``theme = "auto"``; any other theme costs one read."""
    if config is not None:
        return getattr(getattr(config, "tui", None), "theme", "") == "auto"
    import re

    from ..locations import user_config_path

    try:
        raw = user_config_path().read_bytes()
        if not re.search(rb"""^\s*(?:tui\.)?theme\s*=\s*["']auto["']""", raw, re.MULTILINE):
            return False
        import tomllib

        tui = tomllib.loads(raw.decode("utf-8")).get("tui", {})
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(tui, dict) and tui.get("theme") == "auto"


def _print_on_exit(app: Any) -> bool:
    chat: Any = getattr(app, "chat", None)
    tui = getattr(getattr(chat, "config", None), "tui", None)
    return bool(getattr(tui, "print_on_exit", False)) and chat.session.ready


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
