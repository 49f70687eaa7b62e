"""The session transcript: append-only JSONL of typed records.

Line 1 is a header ``{"kind": "header", "session": …, "cwd": …, "started": …, "larik": …,
"format": 1}``; then one record per line. A message record is
``{"kind": "message", "message": <Message JSON as the neutral model dumps it>}``. Other kinds
(model switches, compactions, notices, per-turn usage) are added by the agent; a reader keeps
records of kinds it does not know as plain dicts.

Every append is written and flushed (and fsynced) before it returns, so a crash loses at most
the line being written. Loading tolerates a truncated last line, reports any other corrupt
line by number (not JSON, non-standard JSON such as ``Infinity``, nesting too deep to parse, a
record that is not an object) and keeps every good one, and refuses a newer format version.

A transcript holds what the agent read, so it is private: the file is created (or, when
reopened, made) mode 0600, a folder created for it 0700, and a symlink is never followed. An
open transcript is locked (``flock`` through the ``filelock`` package, on the transcript's own
descriptor, so no lock file is left behind and a crashed writer's lock goes with it): a second
writer gets :class:`SessionLocked` instead of interleaving its records with the first one's.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .. import __version__
from ..llm import jsontext
from ..llm.errors import LarikError
from ..llm.secrets import mask
from ..llm.types import Message
from ..others_text import encodable_json

__all__ = [
    "FORMAT_VERSION",
    "LoadedTranscript",
    "SESSION_ID",
    "SessionLocked",
    "Transcript",
    "TranscriptError",
    "load_transcript",
    "loads_strict",
    "private_dir",
]

FORMAT_VERSION = 1
SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")  # a file name, never a path
LOCK_WAIT = 0.5  # seconds a lock held by someone else is waited for (see _lock)


class TranscriptError(LarikError):
    """A transcript file cannot be read at all (missing, bad header, newer format)."""


class SessionLocked(TranscriptError):
    """Another Larik process (or another open session in this one) is writing this transcript."""

    def __init__(self, session_id: str) -> None:
        super().__init__(
            f"session {session_id} is in use: another larik is writing to it "
            "(wait for it to finish, or start a new session)"
        )
        self.session_id = session_id


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
    """An open, append-only, locked transcript file. Use :meth:`create` or :meth:`reopen`."""

    def __init__(self, path: Path, header: dict[str, Any], fd: int) -> None:
        self.path = path
        self.header = header
        self._fh = os.fdopen(fd, "a", encoding="utf-8")

    @property
    def session_id(self) -> str:
        """The header's id; the file's name when the header's could not be passed to
        ``--resume`` (a hand-made or damaged header)."""
        sid = self.header.get("session")
        return sid if isinstance(sid, str) and SESSION_ID.fullmatch(sid) else self.path.stem

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
        private_dir(p.parent)
        header = {
            "kind": "header",
            "session": session_id or new_session_id(),
            "cwd": str(cwd or os.getcwd()),
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "larik": __version__,
            "format": FORMAT_VERSION,
            **extra,
        }
        t = cls(p, header, _open_locked(p, create=True))
        t._write_line(jsontext.dumps(header, ensure_ascii=False))
        return t

    @classmethod
    def reopen(cls, path: str | Path) -> tuple[Transcript, LoadedTranscript]:
        """Lock an existing transcript, load it and open it for appending.

        The lock is taken before reading, so a transcript another process is writing is never
        read half-written. A truncated last line is cut off, so the next record starts on a
        fresh line. The file (and its folder) are made private if an older Larik left them not.
        """
        p = Path(path)
        fd = _open_locked(p, create=False)
        try:
            private_dir(p.parent)
            loaded = load_transcript(p)
            if loaded.truncated_tail:
                _cut_partial_tail(p, fd)
        except BaseException:
            os.close(fd)
            raise
        return cls(p, loaded.header, fd), loaded

    def append(self, record: dict[str, Any]) -> None:
        self._write_line(jsontext.dumps(record, ensure_ascii=False))

    def append_message(self, message: Message, harness: bool = False) -> None:
        """``harness``: written by the edit workflow, not typed by the user (``"harness":
        true``): not a prompt for /undo and /rewind."""
        # Built by hand so the message part is exactly Message.model_dump_json().
        tail = ',"harness":true}' if harness else "}"
        self._write_line('{"kind":"message","message":' + _message_json(message) + tail)

    def _write_line(self, line: str) -> None:
        line = mask(encodable_json(line))  # no key Larik knows is ever written down
        if "\n" in line:  # json.dumps never emits raw newlines; guard against misuse
            raise ValueError("a transcript record must be one line")
        self._fh.write(line + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    @property
    def closed(self) -> bool:
        return self._fh.closed

    def close(self) -> None:
        """Close the file, which releases the lock."""
        if not self._fh.closed:
            self._fh.close()

    def __enter__(self) -> Transcript:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _message_json(message: Message) -> str:
    """``message.model_dump_json()``; a block given a lone surrogate after it was built
    (Block keeps none) is written through :func:`encodable_json`, never an exception."""
    try:
        return message.model_dump_json()
    except ValueError:
        return jsontext.dumps(message.model_dump(), ensure_ascii=False, separators=(",", ":"))


def private_dir(path: Path) -> None:
    """Create folder ``path`` (and any missing parent) mode 0700; an existing ``path`` that
    belongs to this user is made 0700 too. What it holds is nobody else's business."""
    missing = [d for d in (path, *path.parents) if not d.exists()]
    for d in reversed(missing):
        try:
            d.mkdir(mode=0o700)
        except FileExistsError:
            pass
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and st.st_mode & 0o077:
            path.chmod(0o700)
    except OSError:
        pass


def _open_locked(p: Path, *, create: bool) -> int:
    """A descriptor of ``p`` open for appending, mode 0600, exclusively locked.

    Refuses a symlink (``O_NOFOLLOW``) and anything but a regular file; raises SessionLocked
    when another writer holds the lock."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_NONBLOCK", 0)  # a FIFO planted as a transcript must not hang us
    if create:
        flags |= os.O_CREAT
    try:
        fd = os.open(p, flags, 0o600)
    except FileNotFoundError:
        raise TranscriptError(f"{p}: no such session file") from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise TranscriptError(f"{p}: is a symbolic link; a session file must not be") from None
        raise TranscriptError(f"{p}: cannot open the session file ({e.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise TranscriptError(f"{p}: not a regular file")
        os.set_blocking(fd, True)
        if not _lock(fd):
            raise SessionLocked(p.stem)
        if st.st_mode & 0o077 and st.st_uid == os.getuid():
            os.fchmod(fd, 0o600)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _lock(fd: int) -> bool:
    """Lock ``fd``, waiting at most LOCK_WAIT seconds. A writer holds its lock for its whole
    life, so the wait changes nothing for it; it is for a process forked by another thread (a
    ``git`` or a command starting) that holds a copy of the descriptor for the moment between
    its fork and its exec, and with it the lock."""
    from filelock import lock_descriptor

    deadline = time.monotonic() + LOCK_WAIT
    try:
        while not lock_descriptor(fd, blocking=False):
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
    except OSError as e:  # a file system without locks (some network mounts): write unlocked
        if e.errno in (errno.ENOLCK, errno.ENOSYS, errno.EOPNOTSUPP, errno.EINVAL):
            return True
        raise TranscriptError(f"cannot lock the session file ({e.strerror})") from None
    return True


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
        header = loads_strict(lines[0])
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
            rec = loads_strict(raw)
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


def loads_strict(raw: bytes | str) -> Any:
    """One JSON value as the standard defines it: ``NaN``/``Infinity`` and ``1e400`` (which
    ``json`` accepts by default: :func:`larik.llm.jsontext.loads`) and nesting too deep for the
    parser are a ValueError like any other bad JSON (bytes that are not UTF-8 are one already)."""
    try:
        value = jsontext.loads(raw)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    if _SURROGATE.search(raw if isinstance(raw, bytes) else raw.encode("utf-8", "replace")):
        try:  # a lone "\ud800" is valid JSON but no text: it would break every later dump
            jsontext.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("a lone surrogate escape") from None
    return value


_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


def _cut_partial_tail(p: Path, fd: int) -> None:
    data = p.read_bytes()
    os.ftruncate(fd, data.rfind(b"\n") + 1)
