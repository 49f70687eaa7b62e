"""The ``larik`` command line. Commands parse their arguments and delegate.

``larik --version`` is answered before anything heavy is imported; ``larik --help`` imports
Typer but no vendor SDK and no Textual.
"""

from __future__ import annotations

import sys

import typer

from . import __version__

app = typer.Typer(
    name="larik",
    help="Larik: a terminal coding agent that works with any model.",
    add_completion=False,
    no_args_is_help=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
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
) -> None:
    """Run Larik in the current project."""
    if ctx.invoked_subcommand is None:
        print("larik: the interactive UI is not built yet; see `larik --help`.")


def _register_subcommands() -> None:
    """Command groups live in larik/commands/*.py, each with ``register(app)``. They must stay
    light at import time: no vendor SDK, no Textual (``larik --help`` imports them)."""
    import importlib
    import pkgutil

    from . import commands

    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        importlib.import_module(f"{commands.__name__}.{info.name}").register(app)


_register_subcommands()


def main() -> None:
    argv = sys.argv[1:]
    if argv == ["--version"] or argv == ["-V"]:
        print(f"larik {__version__}")
        return
    app()


if __name__ == "__main__":
    main()
