"""``larik trust``: a project's trust without the TUI — what is gated and why, and the answer.

    larik trust                  # this project: what it asks for, and who trusts it
    larik trust show --json      # the same, for scripts
    larik trust yes              # trust its settings as they are now (the TUI's "Trust")
    larik trust yes --in-config  # ... and list it in trusted_projects: print mode and bench too
    larik trust no               # don't (remembered: the TUI stops asking); unlisted too
    larik trust forget           # forget the answer (and the listing): the TUI asks again

An answer holds for the settings as they are (a digest, larik/trust.py): when they change the
TUI asks again. Light at import time: config and trust are imported when a command runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ..command_line import TYPER_SETTINGS, Group
from ..llm import jsontext
from ..terminal_text import safe_output

trust_app = typer.Typer(
    name="trust",
    cls=Group,
    help="A project's trust: show what it asks for and why, trust, untrust or forget it.",
    invoke_without_command=True,
    **TYPER_SETTINGS,
)

_PATH = typer.Argument(Path("."), metavar="[PATH]", help="The project (default: this folder).")


def register(app: typer.Typer) -> None:
    app.add_typer(trust_app, name="trust")


@trust_app.callback()
@safe_output
def _default(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:  # larik trust: show
        raise typer.Exit(_show(Path("."), False))


def _fail(message: str, code: int = 2) -> int:
    print(f"larik: {message}", file=sys.stderr)
    return code


@trust_app.command("show")
@safe_output
def show_cmd(
    path: Path = _PATH,
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Show what the project asks for that needs trust, why, and who trusts it."""
    raise typer.Exit(_show(path, json_out))


def _show(path: Path, json_out: bool) -> int:
    from ..llm.errors import ConfigError
    from ..session import trust

    if not path.is_dir():
        return _fail(f"{path}: not a folder")
    try:
        st = trust.load(path)
    except ConfigError as e:
        return _fail(str(e))
    if json_out:
        print(jsontext.dumps(trust.as_json(st), indent=2))
    else:
        print("\n".join(trust.report(st, "larik trust")))
    return 0


@trust_app.command("yes")
@safe_output
def yes_cmd(
    path: Path = _PATH,
    in_config: bool = typer.Option(
        False,
        "--in-config",
        help="Also list it in trusted_projects of your config: print mode and bench trust it.",
    ),
) -> None:
    """Trust the project's settings as they are now (asked again when they change)."""
    raise typer.Exit(_answer(path, True, in_config=in_config))


@trust_app.command("no")
@safe_output
def no_cmd(path: Path = _PATH) -> None:
    """Don't trust the project's settings (remembered: the TUI stops asking)."""
    raise typer.Exit(_answer(path, False))


@trust_app.command("forget")
@safe_output
def forget_cmd(path: Path = _PATH) -> None:
    """Forget the answer for the project (and its trusted_projects entry): asked again."""
    raise typer.Exit(_answer(path, None))


def _answer(path: Path, trusted: bool | None, *, in_config: bool = False) -> int:
    """Record ``trusted`` for the project's settings as they are (None: forget the answer)."""
    from ..llm.errors import ConfigError
    from ..session import trust

    if not path.is_dir():
        return _fail(f"{path}: not a folder")
    try:
        done = trust.answer(path, trusted, in_config=in_config)
    except ConfigError as e:
        return _fail(str(e))
    except OSError as e:
        return _fail(f"cannot record the answer: {e.strerror or e}", 1)
    print(done.message)
    return 0
