"""``larik undo`` and ``larik rewind``: a session's checkpoints without the TUI (docs/undo.md).

    larik undo                       # take back the latest session's last turn's file changes
    larik undo -r ID --keep          # ... of session ID, leaving files changed since as they are
    larik rewind                     # list the latest session's turns (prompt, time, files)
    larik rewind 3                   # code and conversation back to before turn 3
    larik rewind 3 --code            # only the files; --conversation: only a fork at turn 3

A file changed since the turn that last changed it is a conflict: without ``--force``
(overwrite it) or ``--keep`` (leave it), nothing is written and the conflicts are listed
(exit 1). A file that cannot be restored (a full disk) is named on a line of its own (exit 1)
and the turn is not recorded as undone: the same command tries again. A conversation rewind writes a new session (a fork); the original is never changed.
Light at import time: the session store (larik/session/store.py, the only way a face reaches
a saved session) imports the agent's modules when a command runs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from ..llm import jsontext
from ..terminal_text import safe_output

WHAT = ("code", "conversation", "both")


def register(app: typer.Typer) -> None:
    app.command("undo")(safe_output(undo))
    app.command("rewind")(safe_output(rewind))


_SESSION = typer.Option(
    "latest", "--resume", "-r", metavar="ID", help="The session (default: the latest one)."
)
_FORCE = typer.Option(False, "--force", help="Overwrite files changed since the turn.")
_KEEP = typer.Option(False, "--keep", help="Leave files changed since the turn as they are.")
_JSON = typer.Option(False, "--json", help="Print JSON.")


def undo(
    session: str = _SESSION, force: bool = _FORCE, keep: bool = _KEEP, json_out: bool = _JSON
) -> None:
    """Take back the file changes of the session's last turn not undone yet."""
    raise typer.Exit(_run(session, None, "code", force, keep, json_out))


def rewind(
    turn: int | None = typer.Argument(None, metavar="[N]", help="Go back to before turn N."),
    session: str = _SESSION,
    code: bool = typer.Option(False, "--code", help="Only the files."),
    conversation: bool = typer.Option(False, "--conversation", help="Only the conversation."),
    force: bool = _FORCE,
    keep: bool = _KEEP,
    json_out: bool = _JSON,
) -> None:
    """List the session's turns, or go back to before turn N (code and conversation)."""
    what = "code" if code and not conversation else "conversation" if conversation else "both"
    raise typer.Exit(_run(session, turn, what, force, keep, json_out, listing=turn is None))


def _run(
    session: str,
    turn: int | None,
    what: str,
    force: bool,
    keep: bool,
    json_out: bool,
    *,
    listing: bool = False,
) -> int:
    from ..llm.errors import LarikError
    from ..session.store import CheckpointError, SavedSession

    root = Path.cwd().resolve()
    if force and keep:
        return _fail("--force and --keep cannot go together", 2)
    try:
        if listing:
            listed = SavedSession(root, session)
            return _list(listed.checkpoints, listed.path.stem, json_out)
        saved = SavedSession(root, session, writable=True)
    except LarikError as e:
        return _fail(str(e), 2)
    out: dict[str, Any] = {"session_id": saved.session_id}
    try:
        cp = saved.checkpoints
        if turn is not None and not 1 <= turn <= len(cp.turns):
            return _fail(f"no turn {turn}: session {out['session_id']} has {len(cp.turns)}", 2)
        if what in ("code", "both"):
            plan = cp.plan_undo() if turn is None else cp.plan_rewind(turn)
            if plan is None or not plan.turns:
                since = f" since turn {turn}" if turn else ""
                if what == "code":
                    return _fail(f"no file changes to take back{since}", 1)
                plan = None
            if plan is not None and plan.conflicts and not (force or keep):
                names = ", ".join(plan.conflicts)
                return _fail(
                    f"changed since the turn: {names}; nothing was written "
                    "(--force overwrites them, --keep leaves them)",
                    1,
                )
            if plan is not None:
                done = cp.carry_out(plan, overwrite=force)
                out.update(_restored(done))
                if not done.complete:  # said path by path; not undone: it can be done again
                    if json_out:
                        print(jsontext.dumps(out, ensure_ascii=False))
                    for line in done.summary().splitlines():
                        _fail(line, 1)
                    return 1
                if not json_out:
                    print(done.summary())
    except (CheckpointError, LarikError) as e:
        return _fail(str(e), 1)
    finally:
        saved.close()
    if turn is not None and what in ("conversation", "both"):
        try:
            new_id = saved.fork(before_turn=turn)
        except LarikError as e:
            return _fail(str(e), 1)
        out["session_id"] = new_id
        out["forked_from"] = saved.session_id
        if not json_out:
            print(
                f"conversation: new session {new_id}, before turn {turn} "
                f"({saved.session_id} is unchanged); continue it with larik --resume {new_id}"
            )
    if json_out:
        print(jsontext.dumps(out, ensure_ascii=False))
    return 0


def _restored(done: Any) -> dict[str, Any]:
    from ..session.store import show

    r = done.restored
    return {
        "turns": done.turns,
        "complete": done.complete,  # false: not undone, what is refused can be done again
        "restored": [show(p) for p in r.written],
        "removed": [show(p) for p in r.removed],
        "kept": [show(p) for p in r.kept],
        "refused": [{"path": show(p), "why": why} for p, why in r.refused],
        "bytecode": [show(p) for p in r.bytecode],  # written since the turn began: removed
        "left": [{"path": path, "files": n} for path, n in done.left],  # not recorded: too many
        "repos": done.repos,  # git repositories the turn made (not recorded)
        "big": done.big,  # files it made over the size limit (not recorded)
    }


def _list(cp: Any, session_id: str, json_out: bool) -> int:
    from ..session.store import one_line

    if json_out:
        rows = [
            {
                "turn": t.n,
                "at": t.at,
                "prompt": t.prompt,
                "checkpoint": t.before or None,
                "files": t.files,
                "undone": t.undone,
            }
            for t in cp.turns
        ]
        print(jsontext.dumps({"session_id": session_id, "turns": rows}, ensure_ascii=False))
        return 0
    if not cp.turns:
        print(f"session {session_id} has no turns yet")
        return 0
    print(f"session {session_id}")
    for t in cp.turns:
        files = ", ".join(t.files[:4]) + (f" +{len(t.files) - 4}" if len(t.files) > 4 else "")
        state = " (undone)" if t.undone else ""
        print(
            f"{t.n:>3}  {_time(t.at):<16}  {_clip(one_line(t.prompt), 50):<50}  {files or '-'}{state}"
        )
    print("Go back with: larik rewind N [--code | --conversation]")
    return 0


def _time(at: str) -> str:
    from datetime import datetime

    try:
        return datetime.fromisoformat(at).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return ""


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _fail(text: str, code: int) -> int:
    print(f"larik: {text}", file=sys.stderr)
    return code
