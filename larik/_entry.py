"""The ``larik`` console script: answer what it can before importing anything heavy.

* ``larik --version`` / ``larik -V`` print the version using only ``larik.__version__`` (no
  Typer, no pydantic, no SDK, no Textual), so it costs little more than starting Python.
* ``larik`` alone, or with only the TUI's options in their simple forms (``-c``/``--continue``,
  ``-m``/``--model``, ``--effort``, ``--permission-mode``, ``-r``/``--resume`` with an ID; each
  at most once, each value given, ``--name=value`` or ``--name value``), starts the TUI
  without Typer (~40 ms of imports), exactly as the Typer app's root callback would.
* Everything else — subcommands, print mode, ``--help``, and any option Typer would refuse or
  treat differently — goes to the Typer app in :mod:`larik.cli`, so its errors and exit codes
  stay Typer's.

Measured by benchmarks/startup.py and benchmarks/first_paint.py.
"""

import sys

VERSION_FLAGS = ("--version", "-V")

# TUI options of the root command: option -> keyword of larik.interactive.run_interactive
_FLAGS = {"-c": "cont", "--continue": "cont"}
_VALUED = {
    "-m": "model",
    "--model": "model",
    "--effort": "effort",
    "--permission-mode": "permission_mode",
    "-r": "resume",
    "--resume": "resume",
}


# ``larik acp``'s options: option -> field of larik.acp.settings.AcpOptions
_ACP_FLAGS = {"--trust-project": "trust_project"}
_ACP_VALUED = {"-m": "model", "--model": "model", "--permission-mode": "permission_mode"}


def interactive_args(argv: list[str]) -> dict[str, object] | None:
    """The TUI options of ``argv`` if it only starts the TUI, in a form read the same way by
    Typer; None otherwise (the command line then goes to Typer)."""
    return _simple_args(argv, _FLAGS, _VALUED)


def acp_args(argv: list[str]) -> dict[str, object] | None:
    """``larik acp``'s options if ``argv`` is that command in its simple forms (an editor
    waits for its first answer: Typer's import alone would cost more than all the rest);
    None otherwise (Typer then takes it, ``larik acp --help`` included)."""
    if not argv or argv[0] != "acp":
        return None
    return _simple_args(argv[1:], _ACP_FLAGS, _ACP_VALUED)


def _simple_args(
    argv: list[str], flags: dict[str, str], valued_options: dict[str, str]
) -> dict[str, object] | None:
    found: dict[str, object] = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        value: object
        if arg in flags:
            key, value = flags[arg], True
        else:
            name, eq, text = arg.partition("=")
            valued = valued_options.get(name)
            if valued is None or (eq and not name.startswith("--")):
                return None
            key = valued
            if not eq:
                i += 1
                if i == len(argv):
                    return None
                text = argv[i]
            if not text or text.startswith("-"):
                return None
            value = text
        if key in found:
            return None
        found[key] = value
        i += 1
    return found


def _start_tui(found: dict[str, object]) -> int:
    from pathlib import Path

    from .interactive import run_interactive

    resume = found.get("resume")
    session = resume if resume is not None else ("latest" if found.get("cont") else None)
    return run_interactive(
        Path.cwd(),
        model=str(found.get("model", "")),
        effort=found.get("effort"),  # type: ignore[arg-type]
        permission_mode=found.get("permission_mode"),  # type: ignore[arg-type]
        session=session,  # type: ignore[arg-type]
    )


def main() -> None:
    argv = sys.argv[1:]
    if len(argv) == 1 and argv[0] in VERSION_FLAGS:
        from . import __version__

        sys.stdout.write(f"larik {__version__}\n")
        return
    acp = acp_args(argv)
    if acp is not None:
        from .acp.server import serve
        from .acp.settings import AcpOptions

        sys.exit(serve(AcpOptions(**acp)))  # type: ignore[arg-type]
    found = interactive_args(argv)
    if found is not None:
        try:
            code = _start_tui(found)
        except (KeyboardInterrupt, EOFError):  # as Click reports it
            sys.stderr.write("\nAborted!\n")
            code = 1
        sys.exit(code)
    from .cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
