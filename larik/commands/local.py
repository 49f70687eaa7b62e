"""``larik local pull|list|rm|serve``: models Larik runs itself (``local/NAME``).

Light at import time: the engine, the catalog and ``huggingface_hub`` are imported when a
command runs. docs/local-models.md has the whole story.
"""

from __future__ import annotations

import sys
from typing import Any

import typer

from ..command_line import TYPER_SETTINGS, Group
from ..llm import jsontext
from ..terminal_text import safe_output

local_app = typer.Typer(
    name="local",
    cls=Group,
    help="Models Larik runs itself, offline: pull, list, rm or serve one (see docs/local-models.md).",
    no_args_is_help=True,
    **TYPER_SETTINGS,
)


def register(app: typer.Typer) -> None:
    app.add_typer(local_app, name="local")


def _store() -> Any:
    from ..config import load_config
    from ..llm.errors import ConfigError
    from ..llm.local.store import Store

    try:
        return Store(load_config().local_dir)
    except ConfigError as e:
        _fail(str(e), 2)


def _fail(message: str, code: int = 1) -> None:
    print(f"larik: {message}", file=sys.stderr)
    raise typer.Exit(code)


@local_app.command("pull")
@safe_output
def pull_cmd(
    model: str = typer.Argument(
        ..., metavar="MODEL", help="A catalog name (larik local list), REPO/FILE.gguf, or a path."
    ),
) -> None:
    """Download a model (checked by sha256), or take a .gguf file from this machine."""
    from ..llm.errors import LocalModelError
    from ..llm.local.catalog import human_size
    from ..llm.local.pull import pull

    store = _store()
    try:
        entry = pull(model, store, say=lambda line: print(line, file=sys.stderr))
    except LocalModelError as e:
        _fail(str(e))
    except KeyboardInterrupt:
        _fail("pull interrupted", 130)
    print(f"{entry.spec} ready ({human_size(entry.size)}): larik -m {entry.spec}")


@local_app.command("list")
@safe_output
def list_cmd(
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """The catalog and the models pulled, with the one recommended for this machine."""

    from ..llm.errors import LocalModelError
    from ..llm.local import catalog

    store = _store()
    try:
        pulled = {e.name: e for e in store.entries()}
    except LocalModelError as e:
        _fail(str(e))
    best = catalog.recommend()
    rows: list[dict[str, Any]] = [
        {
            "name": r.name,
            "size": r.size,
            "params_b": r.params_b,
            "pulled": r.name in pulled,
            "recommended": r is best,
            "repo": r.repo,
            "file": r.file,
        }
        for r in catalog.CATALOG
    ]
    rows += [
        {"name": e.name, "size": e.size, "pulled": True, "path": e.path}
        for e in pulled.values()
        if catalog.row(e.name) is None
    ]
    if json_out:
        print(jsontext.dumps(rows, indent=2))
        return
    width = max(len(r["name"]) for r in rows)
    print(f"{'MODEL':<{width}}  {'SIZE':>7}  PULLED  ")
    for r in rows:
        mark = "  (recommended here)" if r.get("recommended") else ""
        where = f"  {r['path']}" if "path" in r else ""
        size = catalog.human_size(int(r["size"]))
        print(f"{r['name']:<{width}}  {size:>7}  {'yes' if r['pulled'] else '-':<6}{mark}{where}")
    ram, cores = catalog.machine()
    print(
        f"This machine: {f'{ram:.0f} GB' if ram else 'unknown'} RAM, {cores} cores. "
        "Pull one with: larik local pull NAME; use it with larik -m local/NAME"
    )


@local_app.command("rm")
@safe_output
def rm_cmd(
    model: str = typer.Argument(..., metavar="MODEL", help="A pulled model's name."),
) -> None:
    """Delete a pulled model's file and forget it."""
    from ..llm.errors import LocalModelError

    try:
        entry = _store().remove(model)
    except LocalModelError as e:
        _fail(str(e))
    print(f"removed {entry.spec} ({entry.path})")


@local_app.command("serve")
@safe_output
def serve_cmd(
    model: str = typer.Argument(
        "", metavar="[MODEL]", help="A pulled model (default: the one pulled last)."
    ),
    port: int = typer.Option(0, "--port", help="Port on 127.0.0.1 (taken or 0: a free one)."),
) -> None:
    """Run a model's engine in the foreground, for other tools (OpenAI API at URL/v1)."""
    import signal

    from ..llm.errors import LocalModelError
    from ..llm.local.engine import ensure, fit, run_file, stop_all, write_run_file

    store = _store()
    try:
        entry = store.find(model) if model else store.default()
        if entry is None:
            _fail("no local model pulled yet: larik local pull NAME (larik local list)")

        def stop(signum: int, frame: Any) -> None:
            raise KeyboardInterrupt

        signal.signal(signal.SIGTERM, stop)  # as Ctrl+C: the engine stops, the run file goes
        engine = ensure(fit(entry, store), port=port)
    except LocalModelError as e:
        _fail(str(e))
    path = write_run_file(store, entry, engine)
    print(f"{entry.spec} on {engine.base_url}/v1 (log: {engine.settings.log}); Ctrl+C stops it")
    print(f"API key (Authorization: Bearer …): {engine.api_key}")
    sys.stdout.flush()
    try:
        import threading

        idle = threading.Event()
        while engine.alive():  # until Ctrl+C, SIGTERM, or the engine ends by itself
            idle.wait(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        stop_all()
        if path == run_file(store, entry.name):
            path.unlink(missing_ok=True)
