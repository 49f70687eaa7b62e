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
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..llm.types import Message, Usage
from .transcript import TranscriptError

__all__ = [
    "SessionInfo",
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


def find_session(cwd: Path, session_id: str) -> Path:
    """The transcript of session ``session_id`` (or a unique prefix of it) in this project."""
    exact = project_dir(cwd) / f"{session_id}.jsonl"
    if exact.is_file():
        return exact
    matches = [s for s in list_sessions(cwd) if s.id.startswith(session_id)] if session_id else []
    if len(matches) == 1:
        return matches[0].path
    if len(matches) > 1:
        raise TranscriptError(
            f"session id {session_id!r} is ambiguous: it starts {len(matches)} sessions"
        )
    raise TranscriptError(
        f"no session {session_id!r} in this project; run `larik --resume` to list them"
    )


_MSG = b'{"kind":"message"'
_SWITCH = b'"model_switch"'


def _info(path: Path) -> SessionInfo | None:
    try:
        data = path.read_bytes()
        st = path.stat()
    except OSError:
        return None
    lines = data.split(b"\n")
    try:
        header = json.loads(lines[0])
    except ValueError:
        return None
    if not isinstance(header, dict) or header.get("kind") != "header":
        return None
    count, first = 0, ""
    model = header.get("model")
    model = model if isinstance(model, str) else ""
    for line in lines[1:]:
        if not line.startswith(_MSG):
            if _SWITCH in line[:40]:
                model = _switched_to(line) or model
            continue
        count += 1
        if not first and b'"role":"user"' in line[:64]:
            try:
                first = Message.model_validate(json.loads(line)["message"]).text()
            except (ValueError, KeyError):
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


def _switched_to(line: bytes) -> str:
    try:
        rec = json.loads(line)
    except ValueError:
        return ""
    to = rec.get("to") if isinstance(rec, dict) and rec.get("kind") == "model_switch" else None
    return to if isinstance(to, str) else ""


def _answered_by(line: bytes) -> str:
    """The model of an assistant message record (a transcript without a header model)."""
    try:
        model = json.loads(line)["message"].get("model")
    except (ValueError, KeyError, TypeError, AttributeError):
        return ""
    return model if isinstance(model, str) else ""


@dataclass
class Rebuilt:
    messages: list[Message]
    model: str  # the spec the session was last using ("" when never recorded)
    usage: list[tuple[str, str, Usage, float | None]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def rebuild(header: dict[str, Any], records: list[dict[str, Any]]) -> Rebuilt:
    out = Rebuilt([], str(header.get("model", "")))
    for rec in records:
        kind = rec.get("kind")
        try:
            if kind == "message":
                out.messages.append(rec["message"])
            elif kind == "compaction":
                kept = int(rec.get("kept", 0))
                summary = Message.model_validate(rec["message"])
                tail = out.messages[len(out.messages) - kept :] if kept else []
                out.messages = [summary, *tail]
            elif kind == "model_switch":
                out.model = str(rec.get("to", out.model))
            elif kind == "usage":
                usage = Usage.model_validate(rec.get("usage") or {})
                cost = rec.get("cost")
                cost = float(cost) if isinstance(cost, int | float) else None
                out.usage.append((str(rec.get("model", "")), str(rec.get("role", "")), usage, cost))
        except (KeyError, TypeError, ValueError) as e:  # pydantic's ValidationError is a ValueError
            out.problems.append(f"a {kind} record was skipped: {type(e).__name__}")
    return out
