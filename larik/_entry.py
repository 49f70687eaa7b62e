"""The ``larik`` console script: answer ``--version`` before importing anything heavy.

``larik --version`` / ``larik -V`` print the version using only ``larik.__version__`` (no Typer,
no pydantic, no SDK, no Textual), so it costs little more than starting Python. Everything else
goes to the Typer app in :mod:`larik.cli`. Measured by benchmarks/startup.py.
"""

import sys

VERSION_FLAGS = ("--version", "-V")


def main() -> None:
    argv = sys.argv[1:]
    if len(argv) == 1 and argv[0] in VERSION_FLAGS:
        from . import __version__

        sys.stdout.write(f"larik {__version__}\n")
        return
    from .cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
