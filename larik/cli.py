"""The ``larik`` command line. Commands parse their arguments and delegate.

``larik --version`` is answered before anything heavy is imported; ``larik --help`` imports
Typer but no vendor SDK, no Textual and none of the subcommands' modules (they are registered
lazily, from the table in larik/commands/__init__.py). How the command line is read — a bare
prompt, options before or after the subcommand — is larik/command_line.py.
"""

from __future__ import annotations

import sys

import typer

from . import __version__
from .command_line import PROMPT, TYPER_SETTINGS, RootGroup
from .llm.effort import Effort
from .modes import Mode
from .terminal_text import safe_output

app = typer.Typer(
    name="larik",
    cls=RootGroup,
    help="Larik: a terminal coding agent that works with any model.\n\n"
    'larik "PROMPT" starts the TUI with PROMPT sent (larik -- PROMPT when it is also a '
    "command's name); larik -p PROMPT runs it without the TUI. larik's options that a command "
    "takes too (--trust-project, -m, --permission-mode, -r) go before or after the command.",
    subcommand_metavar="[PROMPT | COMMAND [ARGS]...]",
    no_args_is_help=False,
    **TYPER_SETTINGS,
)


def _version(value: bool) -> None:
    if value:
        print(f"larik {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    version: bool = typer.Option(
        False, "--version", help="Show the version and exit.", callback=_version, is_eager=True
    ),
    print_prompt: str | None = typer.Option(
        None,
        "--print",
        "-p",
        metavar="PROMPT",
        help="Run one task without the TUI and print the result ('-' reads it from stdin).",
    ),
    model: str = typer.Option(
        "", "--model", "-m", metavar="SPEC", help="Model: provider/model, a model id or a role."
    ),
    effort: str | None = typer.Option(
        None, "--effort", metavar="LEVEL", help=f"Reasoning effort: {Effort.words(last=' or ')}."
    ),
    permission_mode: str | None = typer.Option(
        None,
        "--permission-mode",
        metavar="MODE",
        help=f"{Mode.words(last=' or ')} (default: {Mode.ASK}; {Mode.PLAN}: read only, then a plan).",
    ),
    max_turns: int | None = typer.Option(
        None, "--max-turns", metavar="N", help="Most model calls in one turn."
    ),
    max_budget_usd: float | None = typer.Option(
        None,
        "--max-budget-usd",
        metavar="USD",
        help="Stop before the model request that would take this session's spending past USD "
        "(estimated from the catalog's prices).",
    ),
    attempts: int = typer.Option(
        1,
        "--attempts",
        metavar="N",
        help="Print mode: up to N independent tries from the same files; the first whose "
        "tests pass is kept.",
    ),
    output_format: str = typer.Option(
        "text",
        "--output-format",
        metavar="FORMAT",
        help="Print mode output: text, json or stream-json.",
    ),
    cont: bool = typer.Option(
        False, "--continue", "-c", help="Resume this project's latest session."
    ),
    trust_project: bool = typer.Option(
        False,
        "--trust-project",
        help="Apply the project's own settings that loosen safety or run code "
        "(.larik/config.toml: a looser permission mode, allow rules, hooks, MCP servers).",
    ),
    resume: str | None = typer.Option(
        None,
        "--resume",
        "-r",
        metavar="ID",
        help="Resume session ID (without an ID: pick one of this project's sessions, or a "
        "table of them when not in a terminal; print mode needs the ID).",
    ),
    verbose: bool = typer.Option(
        False,
        "--verbose",
        help="Print mode: progress (tool calls, model replies) on stderr, as when it is a terminal.",
    ),
    fork: bool = typer.Option(
        False,
        "--fork",
        help="With --resume or --continue: go on in a new session copied from that one "
        "(which is left as it was).",
    ),
) -> None:
    """Run Larik in the current project."""
    if ctx.invoked_subcommand is not None:
        return
    from pathlib import Path

    prompt: str | None = ctx.meta.get(PROMPT)
    if prompt is not None and (print_prompt is not None or resume == ""):
        what = "-p PROMPT" if print_prompt is not None else "--resume without an ID"
        print(
            f"larik: a bare prompt ({prompt[:40]!r}) and {what} do not go together; "
            'print mode is larik -p "PROMPT"',
            file=sys.stderr,
        )
        raise typer.Exit(2)
    cwd = Path.cwd()
    if resume == "" and print_prompt is None:  # print mode refuses it (print_options.check)
        resume = _pick_session(cwd)
    session = resume if resume is not None else ("latest" if cont else None)
    if fork and session != "":  # a bare --resume in print mode is refused first
        session = _fork(cwd, session)
    if print_prompt is not None:
        from .printmode import PrintOptions, run_print

        opts = PrintOptions(
            prompt=print_prompt,
            cwd=cwd,
            model=model,
            effort=effort,
            permission_mode=permission_mode,
            max_turns=max_turns,
            max_budget_usd=max_budget_usd,
            attempts=attempts,
            output_format=output_format,
            resume=session,
            trust_project=trust_project,
            verbose=verbose,
        )
        raise typer.Exit(run_print(opts))
    from .interactive import run_interactive

    raise typer.Exit(
        run_interactive(
            cwd,
            model,
            effort,
            permission_mode,
            session,
            trust_project=trust_project,
            prompt=prompt or "",
            max_budget_usd=max_budget_usd,
        )
    )


def _pick_session(cwd: object) -> str:
    """``--resume`` without an ID: in a terminal, the ``/resume`` picker and the session picked
    (nothing picked, or no session: exit 0); piped, the table (:func:`_list_sessions`)."""
    from .session.store import list_sessions

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise typer.Exit(_list_sessions(cwd))
    sessions = list_sessions(cwd)  # type: ignore[arg-type]
    if not sessions:
        print("No sessions in this project yet.")
        raise typer.Exit(0)
    from .tui.screens.sessions import pick_session

    picked = pick_session(sessions)
    if picked is None:
        raise typer.Exit(0)
    return picked


@safe_output
def _list_sessions(cwd: object) -> int:
    """Newest activity first: id (it starts with the start time), last activity (local time),
    the model last used, messages, first prompt — in the terminal's width."""
    import shutil
    from datetime import datetime

    from .session.store import list_sessions

    sessions = list_sessions(cwd)  # type: ignore[arg-type]
    if not sessions:
        print("No sessions in this project yet.")
        return 0
    id_w = max(len(s.id) for s in sessions)
    model_w = min(32, max(5, *(len(s.model) for s in sessions)))
    prompt_w = max(20, shutil.get_terminal_size((120, 24)).columns - id_w - model_w - 30)
    print(f"{'ID':<{id_w}}  {'LAST ACTIVE':<16}  {'MODEL':<{model_w}}  MSGS  FIRST PROMPT")
    for s in sessions:
        active = datetime.fromtimestamp(s.updated).strftime("%Y-%m-%d %H:%M") if s.updated else ""
        model = _elide(s.model or "?", model_w)
        prompt = _elide(s.first_prompt, prompt_w, middle=False)
        print(f"{s.id:<{id_w}}  {active:<16}  {model:<{model_w}}  {s.messages:>4}  {prompt}")
    print("Resume one with: larik --resume ID   (or larik --continue for the latest)")
    return 0


def _fork(cwd: object, session: str | None) -> str:
    """``--fork``: the id of a new session copied from ``session`` (docs/undo.md)."""
    from .llm.errors import LarikError
    from .session.store import fork_saved, saved_path

    if session is None:
        print("larik: --fork needs --resume ID or --continue", file=sys.stderr)
        raise typer.Exit(2)
    try:
        path = saved_path(cwd, session)  # type: ignore[arg-type]
        new_id = fork_saved(cwd, path)  # type: ignore[arg-type]
    except LarikError as e:
        print(f"larik: {e}", file=sys.stderr)
        raise typer.Exit(2) from None
    print(f"larik: forked session {path.stem} as {new_id}", file=sys.stderr)
    return new_id


def _elide(text: str, width: int, *, middle: bool = True) -> str:
    """``text`` in ``width`` characters; a long model name keeps its start and its end."""
    if len(text) <= width:
        return text
    if not middle:
        return text[: width - 1] + "…"
    head = (width - 1) // 3
    return text[:head] + "…" + text[len(text) - (width - 1 - head) :]


def optional_resume(argv: list[str]) -> list[str]:
    """``--resume`` takes an optional ID: given none (last, or followed by another option),
    it becomes ``--resume=`` so the root callback lists the sessions."""
    out = list(argv)
    for i, arg in enumerate(out):
        if arg == "--":
            break
        if arg in ("--resume", "-r") and (i + 1 == len(out) or out[i + 1].startswith("-")):
            out[i] = "--resume="
    return out


def main() -> None:
    argv = sys.argv[1:]
    if argv == ["--version"] or argv == ["-V"]:
        print(f"larik {__version__}")
        return
    app(args=optional_resume(argv), prog_name="larik")


if __name__ == "__main__":
    main()
