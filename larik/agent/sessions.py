"""Where sessions live, listing them, and rebuilding a conversation from a transcript.

One JSONL transcript per session: ``<sessions dir>/<project key>/<session id>.jsonl``, where the
project key is a readable slug of the working directory plus a short hash of it (two projects
with the same name never share a folder). Records (larik/agent/transcript.py) other than
messages are written by the agent:

``model_switch``  {"to": spec, "from": spec, "role": role}
``compaction``    {"message": <summary Message>, "kept": n, "replaced": n, "reason": …, "model": …}
``notice``        {"text": …, "level": …}
``usage``         {"model": …, "provider": …, "role": …, "usage": {…}, "cost": …, "subagent": …}

Rebuilding replays message and compaction records in order, so a resumed session continues
from exactly the conversation that was being sent (after a compaction: its compacted form).
A record that cannot be used is skipped and counted in ``Rebuilt.problems``, with the lines the
loader skipped; ``Rebuilt.report()`` says so in one line.

A session id names a file in the project's folder and nothing else: :func:`check_session_id`
refuses anything with a path separator, a leading dot or a character outside ``[A-Za-z0-9._-]``,
so ``--resume ../../x`` or an absolute path never reads or appends outside the sessions folder.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..llm.types import Message, Usage
from ..words import count
from .shown import Shown
from .transcript import SESSION_ID, TranscriptError, loads_strict

__all__ = [
    "SessionInfo",
    "check_session_id",
    "find_session",
    "latest_session",
    "list_sessions",
    "project_dir",
    "project_key",
    "rebuild",
    "sessions_root",
]


def sessions_root() -> Path:
    """``$LARIK_HOME/sessions``, else ``$XDG_STATE_HOME/larik/sessions`` (DESIGN.md)."""
    from ..config import sessions_dir

    return sessions_dir()


def project_key(cwd: Path) -> str:
    path = str(Path(cwd).resolve())
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", path).strip("-.")[-48:].strip("-.") or "root"
    digest = hashlib.sha256(path.encode("utf-8")).hexdigest()[:8]
    return f"{slug}-{digest}"


def project_dir(cwd: Path) -> Path:
    return sessions_root() / project_key(cwd)


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    path: Path
    started: str
    first_prompt: str
    messages: int
    updated: float = 0.0  # mtime: the last time anything was appended
    model: str = ""  # the model it last used: the last switch, else the first one


def list_sessions(cwd: Path) -> list[SessionInfo]:
    """The project's sessions, most recently active first (the transcript's mtime), each with
    the model it last used. Unreadable files are skipped."""
    d = project_dir(cwd)
    if not d.is_dir():
        return []
    out = [info for p in d.glob("*.jsonl") if (info := _info(p)) is not None]
    return sorted(out, key=lambda s: (s.updated, s.started), reverse=True)


def latest_session(cwd: Path) -> SessionInfo | None:
    sessions = list_sessions(cwd)
    return sessions[0] if sessions else None


def check_session_id(session_id: str) -> str:
    """``session_id`` if it can only name a file in a project's sessions folder, else a
    TranscriptError (no separators, no leading dot, no ``..`` path, at most 128 characters)."""
    if not SESSION_ID.fullmatch(session_id):
        shown = session_id if len(session_id) <= 60 else session_id[:57] + "..."
        raise TranscriptError(
            f"{shown!r} is not a session id (letters, digits, '.', '_' and '-' only, "
            "no path); run `larik --resume` to list them"
        )
    return session_id


def find_session(cwd: Path, session_id: str) -> Path:
    """The transcript of session ``session_id`` (or a unique prefix of it) in this project."""
    check_session_id(session_id)
    exact = project_dir(cwd) / f"{session_id}.jsonl"
    if exact.is_file() and not exact.is_symlink():
        return exact
    matches = [s for s in list_sessions(cwd) if s.id.startswith(session_id)] if session_id else []
    if len(matches) == 1:
        return matches[0].path
    if len(matches) > 1:
        raise TranscriptError(
            f"session id {session_id!r} is ambiguous: it starts {count(len(matches), 'session')}"
        )
    raise TranscriptError(
        f"no session {session_id!r} in this project; run `larik --resume` to list them"
    )


_MSG = b'{"kind":"message"'
_TURN = b'{"kind": "turn"'
_SWITCH = b'"model_switch"'


def _info(path: Path) -> SessionInfo | None:
    try:
        if path.is_symlink() or not path.is_file():
            return None  # never a session: the transcript writer refuses to follow it
        data = path.read_bytes()
        st = path.stat()
    except OSError:
        return None
    lines = data.split(b"\n")
    try:
        header = loads_strict(lines[0])
    except ValueError:
        return None
    if not isinstance(header, dict) or header.get("kind") != "header":
        return None
    count, first = 0, ""
    model = header.get("model")
    model = model if isinstance(model, str) else ""
    typed = ""
    for line in lines[1:]:
        if not line.startswith(_MSG):
            if _SWITCH in line[:40]:
                model = _switched_to(line) or model
            elif not first and not typed and line.startswith(_TURN) and b'"typed"' in line:
                typed = _typed(line)  # a command's name and arguments, not its expansion
            continue
        count += 1
        if not first and b'"role":"user"' in line[:64]:
            try:
                blocks = Message.model_validate(loads_strict(line)["message"]).blocks
                # the prompt as typed: its first text block (attached files come after it)
                first = typed or next((b.text for b in blocks if b.type == "text"), "")
            except (ValueError, KeyError, TypeError):
                continue
        elif not model and b'"role":"assistant"' in line[:64]:
            model = _answered_by(line)
    return SessionInfo(
        id=str(header.get("session", path.stem)),
        path=path,
        started=str(header.get("started", "")),
        first_prompt=" ".join(first.split())[:200],
        messages=count,
        updated=st.st_mtime,
        model=model,
    )


def _typed(line: bytes) -> str:
    try:
        rec = loads_strict(line)
    except ValueError:
        return ""
    typed = rec.get("typed") if isinstance(rec, dict) else None
    return typed if isinstance(typed, str) else ""


def _switched_to(line: bytes) -> str:
    try:
        rec = loads_strict(line)
    except ValueError:
        return ""
    to = rec.get("to") if isinstance(rec, dict) and rec.get("kind") == "model_switch" else None
    return to if isinstance(to, str) else ""


def _answered_by(line: bytes) -> str:
    """The model of an assistant message record (a transcript without a header model)."""
    try:
        model = loads_strict(line)["message"].get("model")
    except (ValueError, KeyError, TypeError, AttributeError):
        return ""
    return model if isinstance(model, str) else ""


@dataclass
class Rebuilt:
    messages: list[Message]
    model: str  # the spec the session was last using ("" when never recorded)
    #: (model, role, tokens, cost, provider) of each reply
    usage: list[tuple[str, str, Usage, float | None, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    shown: Shown = field(default_factory=Shown)
    """What the live view showed beside the messages (``shown.py``): for a front end."""

    def report(self) -> str:
        """One line saying what was skipped ("" when nothing was)."""
        if not self.problems:
            return ""
        n = len(self.problems)
        more = f" (and {n - 1} more)" if n > 1 else ""
        return (
            f"{count(n, 'unreadable transcript line')} skipped while resuming: "
            f"{self.problems[0]}{more}"
        )


def rebuild(
    header: dict[str, Any], records: list[dict[str, Any]], problems: list[str] | None = None
) -> Rebuilt:
    """The conversation the records describe. ``problems``: what the loader already skipped
    (kept first in ``Rebuilt.problems``)."""
    out = Rebuilt([], _text(header.get("model")), problems=list(problems or ()))
    for rec in records:
        kind = rec.get("kind")
        try:
            if kind == "message":
                out.messages.append(rec["message"])
            elif kind == "compaction":
                kept = rec.get("kept", 0)
                if not isinstance(kept, int) or isinstance(kept, bool) or kept < 0:
                    raise ValueError(f"kept is {kept!r}")
                summary = Message.model_validate(rec["message"])
                tail = out.messages[len(out.messages) - min(kept, len(out.messages)) :]
                out.messages = [summary, *(tail if kept else [])]
                out.shown.compacted()
            elif kind == "model_switch":
                out.model = _text(rec.get("to")) or out.model
            elif kind == "usage":
                usage = Usage.model_validate(rec.get("usage") or {})
                cost = rec.get("cost")
                cost = float(cost) if isinstance(cost, int | float) else None
                if cost is not None and not math.isfinite(cost):
                    raise ValueError(f"cost is {cost}")
                who = (_text(rec.get("model")), _text(rec.get("role")))
                out.usage.append((*who, usage, cost, _text(rec.get("provider"))))
                out.shown.replied(usage, _text(rec.get("role")), "subagent" in rec)
            else:
                out.shown.take(rec, len(out.messages))
        except (KeyError, TypeError, ValueError, OverflowError) as e:  # ValidationError: ValueError
            out.problems.append(
                f"a {_text(kind)[:40] or '?'} record was skipped: {type(e).__name__}"
            )
    return out


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
