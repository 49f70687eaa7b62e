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

import json
import sys
from pathlib import Path
from typing import Any

import typer

from ..command_line import TYPER_SETTINGS, Group
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


def _load(path: Path) -> tuple[Any, Any]:
    """The config for ``path`` (with the TUI's remembered answers) and its ProjectTrust."""
    from ..config import load_config

    config = load_config(path.resolve(), remembered=True)
    return config, config.project_trust


@trust_app.command("show")
@safe_output
def show_cmd(
    path: Path = _PATH,
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Show what the project asks for that needs trust, why, and who trusts it."""
    raise typer.Exit(_show(path, json_out))


def _show(path: Path, json_out: bool) -> int:
    from .. import trust
    from ..config import state_dir
    from ..llm.errors import ConfigError

    if not path.is_dir():
        return _fail(f"{path}: not a folder")
    try:
        config, pt = _load(path)
    except ConfigError as e:
        return _fail(str(e))
    root = pt.root if pt is not None else path.resolve()
    recorded = trust.recorded(state_dir(), root)
    listed = _listed(config, root)
    if json_out:
        print(json.dumps(_as_json(pt, root, recorded, listed), indent=2))
        return 0
    if pt is None:
        print(f"{root}: nothing here needs trust (its settings only tighten, or there are none).")
        if recorded is not None:
            print("An earlier answer is remembered: larik trust forget removes it.")
        return 0
    print(f"{pt.root} asks for what needs your trust:")
    for ask in pt.asks:
        print(f"  • {ask}")
    print(
        "These loosen safety or run programs: untrusted, Larik ignores them (deny rules and a "
        "stricter mode always apply)."
    )
    for change in pt.changed:
        print(f"  changed since you trusted it: {change}")
    print(f"In the TUI: {_tui_state(pt, recorded)}")
    scripts = "trusted (trusted_projects)" if listed and pt.trusted else "not trusted"
    print(f"In print mode and bench: {scripts} (--trust-project, or larik trust yes --in-config)")
    return 0


def _tui_state(pt: Any, recorded: dict[str, Any] | None) -> str:
    at = f" on {str(recorded.get('at', ''))[:10]}" if recorded and recorded.get("at") else ""
    if pt.trusted:
        how = {"config": "listed in trusted_projects", "remembered": f"you said yes{at}"}
        return f"trusted ({how.get(pt.source, pt.source)}); larik trust no to take it back"
    if pt.declined:
        return f"not trusted (you said no{at}); larik trust yes, or forget to be asked again"
    if recorded is not None:
        return "asked again at the next start (the settings changed since you answered)"
    return "asked at the next start (larik trust yes to trust it now)"


def _as_json(pt: Any, root: Path, recorded: dict[str, Any] | None, listed: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"root": str(root), "needs_trust": pt is not None, "listed": listed}
    out["recorded"] = (
        {k: recorded.get(k) for k in ("trusted", "at", "digest")} if recorded else None
    )
    if pt is not None:
        out.update(
            config_file=str(pt.config_file),
            asks=list(pt.asks),
            digest=pt.digest,
            trusted=pt.trusted,
            source=pt.source or None,
            declined=pt.declined,
            changed=list(pt.changed),
        )
    return out


def _listed(config: Any, root: Path) -> bool:
    return any(_listed_as(e, root) for e in config.trusted_projects)


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
    from .. import trust
    from ..config import save_user_config, state_dir, user_config_path
    from ..llm.errors import ConfigError

    if not path.is_dir():
        return _fail(f"{path}: not a folder")
    try:
        config, pt = _load(path)
        root = pt.root if pt is not None else path.resolve()
        listed = [e for e in config.trusted_projects if _listed_as(e, root)]
        if trusted is None:
            trust.forget(state_dir(), root)
        elif pt is None:
            print(f"{root}: nothing here needs trust; nothing recorded.")
            return 0
        else:
            trust.remember(state_dir(), root, pt.digest, trusted, pt.gated)
        if listed and not trusted:
            kept = [e for e in config.trusted_projects if e not in listed]
            save_user_config({"trusted_projects": kept or None})
        elif trusted and in_config and not listed:
            save_user_config({"trusted_projects": [*config.trusted_projects, str(root)]})
    except ConfigError as e:
        return _fail(str(e))
    except OSError as e:
        return _fail(f"cannot record the answer: {e.strerror or e}", 1)
    unlisted = f"; removed from trusted_projects in {user_config_path()}" if listed else ""
    if trusted is None:
        print(f"Forgot the answer for {root}{unlisted}: asked again.")
    elif trusted:
        where = "the TUI, print mode and bench" if in_config or listed else "the TUI"
        print(f"Trusted {root} as it is now, in {where}: " + "; ".join(pt.asks))
    else:
        print(f"Not trusted: {root}{unlisted}. Its settings that need trust are ignored.")
    return 0


def _listed_as(entry: str, root: Path) -> bool:
    try:
        return Path(entry).expanduser().resolve() == root
    except (OSError, RuntimeError, ValueError):
        return False
