"""The session transcript: append-only JSONL of typed records.

Line 1 is a header ``{"kind": "header", "session": …, "cwd": …, "started": …, "larik": …,
"format": 1}``; then one record per line. A message record is
``{"kind": "message", "message": <Message JSON as the neutral model dumps it>}``. Other kinds
(model switches, compactions, notices, per-turn usage) are added by the agent; a reader keeps
records of kinds it does not know as plain dicts.

Every append is written and flushed (and fsynced) before it returns, so a crash loses at most
the line being written. Loading tolerates a truncated last line, reports any other corrupt
line by number and keeps every good one, and refuses a newer format version.
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .. import __version__
from ..llm.errors import LarikError
from ..llm.types import Message

__all__ = [
    "FORMAT_VERSION",
    "LoadedTranscript",
    "Transcript",
    "TranscriptError",
    "load_transcript",
]

FORMAT_VERSION = 1


class TranscriptError(LarikError):
    """A transcript file cannot be read at all (missing, bad header, newer format)."""


@dataclass
class LoadedTranscript:
    header: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    truncated_tail: bool = False

    @property
    def session_id(self) -> str:
        return str(self.header.get("session", ""))


class Transcript:
    """An open, append-only transcript file."""

    def __init__(self, path: Path, header: dict[str, Any]) -> None:
        self.path = path
        self.header = header
        self._fh = open(path, "a", encoding="utf-8")

    @property
    def session_id(self) -> str:
        return str(self.header["session"])

    @classmethod
    def create(
        cls,
        path: str | Path,
        *,
        cwd: str | Path | None = None,
        session_id: str | None = None,
        **extra: Any,
    ) -> Transcript:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        header = {
            "kind": "header",
            "session": session_id or new_session_id(),
            "cwd": str(cwd or os.getcwd()),
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "larik": __version__,
            "format": FORMAT_VERSION,
            **extra,
        }
        t = cls(p, header)
        t._write_line(json.dumps(header, ensure_ascii=False))
        return t

    @classmethod
    def reopen(cls, path: str | Path) -> tuple[Transcript, LoadedTranscript]:
        """Open an existing transcript for appending, after loading it.

        A truncated last line is cut off first, so the next record starts on a fresh line.
        """
        p = Path(path)
        loaded = load_transcript(p)
        if loaded.truncated_tail:
            _cut_partial_tail(p)
        return cls(p, loaded.header), loaded

    def append(self, record: dict[str, Any]) -> None:
        self._write_line(json.dumps(record, ensure_ascii=False))

    def append_message(self, message: Message) -> None:
        # Built by hand so the message part is exactly Message.model_dump_json().
        self._write_line('{"kind":"message","message":' + message.model_dump_json() + "}")

    def _write_line(self, line: str) -> None:
        if "\n" in line:  # json.dumps never emits raw newlines; guard against misuse
            raise ValueError("a transcript record must be one line")
        self._fh.write(line + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def __enter__(self) -> Transcript:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def new_session_id() -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{uuid.uuid4().hex[:6]}"


def load_transcript(path: str | Path) -> LoadedTranscript:
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise TranscriptError(f"{p}: no such session file") from None
    lines = data.split(b"\n")
    ends_clean = data.endswith(b"\n")
    if ends_clean:
        lines.pop()
    if not lines or not lines[0].strip():
        raise TranscriptError(f"{p}: empty session file")
    try:
        header = json.loads(lines[0])
    except ValueError:
        raise TranscriptError(f"{p}:1: the header is not valid JSON") from None
    if not isinstance(header, dict) or header.get("kind") != "header":
        raise TranscriptError(f"{p}:1: not a Larik session (no header record)")
    fmt = header.get("format")
    if not isinstance(fmt, int) or fmt > FORMAT_VERSION:
        raise TranscriptError(
            f"{p}: session format {fmt} is newer than this Larik understands "
            f"({FORMAT_VERSION}); upgrade Larik to open it"
        )
    out = LoadedTranscript(header=header)
    last = len(lines)
    for n, raw in enumerate(lines[1:], start=2):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
            if not isinstance(rec, dict) or "kind" not in rec:
                raise ValueError("not a record")
        except ValueError:
            if n == last and not ends_clean:
                out.truncated_tail = True  # a crash mid-write: drop it quietly
                continue
            out.problems.append(f"{p}:{n}: not valid JSON, skipped")
            continue
        if rec["kind"] == "message":
            try:
                msg = Message.model_validate(rec.get("message"))
            except ValidationError as e:
                first = e.errors()[0]
                loc = ".".join(str(x) for x in first["loc"])
                out.problems.append(
                    f"{p}:{n}: not a valid message ({loc}: {first['msg']}), skipped"
                )
                continue
            rec["message"] = msg
            out.messages.append(msg)
        out.records.append(rec)
    return out


def _cut_partial_tail(p: Path) -> None:
    data = p.read_bytes()
    cut = data.rfind(b"\n") + 1
    with open(p, "r+b") as fh:
        fh.truncate(cut)
