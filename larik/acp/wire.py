"""The wire under the SDK: stdout kept for the protocol alone, and its newline-delimited frames.

:func:`claim_stdio` moves the protocol to private descriptors before anything else runs: the
client's end of stdin and stdout are duplicated for Larik's own use, then fd 0 becomes
``/dev/null`` and fd 1 a copy of stderr. A stray ``print``, a warning, an MCP server or a hook
that writes to its inherited stdout, a command that reads stdin — none can touch the protocol:
what they write goes to stderr, what they read is empty. (The private descriptors are not
inherited by child processes.)

:class:`Frames` is the SDK's message transport (``acp._transport.Transport``): one JSON object
per line each way. It answers what the SDK would pass over in silence — a line that is not JSON
gets the JSON-RPC "Parse error" (-32700) — ``NaN``, ``Infinity`` and a number no double
holds (``1e400``) too: they are no JSON (:func:`larik.llm.jsontext.loads`) —, a line that is JSON
but not an object "Invalid request" (-32600), as is an id that is not a string, a number or
null, and a line longer than :data:`MAX_FRAME` bytes, each with ``"id": null`` as JSON-RPC 2.0
says — and goes on reading. Everything else is the SDK's: the requests' dispatch, their ids,
their errors.

Every request is answered exactly once. What goes out is JSON (``allow_nan=False``): an answer
holding a value that has none becomes an "Internal error" answer to the same id that says so;
a request or notification of Larik's that has none is not sent (:class:`NotSent`, which its
senders take as they take a client that is gone), with a warning on stderr. A second answer to
one request — or an answer to a request never received — is not sent either (the ledger of
requests owed an answer: :attr:`Frames.owed`).

What goes out is masked as print mode's stdout is (:mod:`larik.llm.secrets`: every key and
token Larik knows becomes ``***``) — the model's text, a tool's result, an error — except what
the client is asked to act on rather than show (:data:`ACTED_ON`: the file it writes, the
command it runs), where ``***`` would change what happens.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import threading
from collections import Counter, deque
from typing import Any

from ..llm.jsontext import NotJson, dumps, loads
from ..llm.secrets import mask

__all__ = ["ACTED_ON", "MAX_FRAME", "Frames", "NotSent", "Stdio", "claim_stdio", "open_streams"]

log = logging.getLogger("larik.acp")

MAX_FRAME = 64 << 20  # bytes in one message (an image prompt is base64: tens of MB at most)
#: Requests to the client whose text it acts on, sent unmasked (a file's content, a command).
ACTED_ON = frozenset({"fs/write_text_file", "terminal/create"})
_CHUNK = 1 << 16


class Stdio:
    """The client's two pipes, as Larik's own descriptors."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.read_fd = read_fd
        self.write_fd = write_fd


def claim_stdio() -> Stdio:
    """Take stdin and stdout for the protocol (see the module docstring)."""
    read_fd, write_fd = os.dup(0), os.dup(1)  # os.dup: not inheritable
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return Stdio(read_fd, write_fd)


class _Pipe(asyncio.Protocol):
    """Our stdout, the pipe the client reads, written through the loop: ``drain`` waits while
    the client is not reading (the pipe is full), and fails once the client has closed it."""

    def __init__(self) -> None:
        self._resumed: asyncio.Future[None] | None = None
        self.lost: BaseException | None = None
        self.transport: Any = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def pause_writing(self) -> None:
        self._resumed = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self._resumed is not None and not self._resumed.done():
            self._resumed.set_result(None)
        self._resumed = None

    def connection_lost(self, exc: BaseException | None) -> None:
        self.lost = exc or ConnectionResetError("the client closed its end")
        self.resume_writing()

    def write(self, data: bytes) -> None:
        if self.lost is None:
            self.transport.write(data)

    async def drain(self) -> None:
        if self.lost is not None:
            raise ConnectionResetError("the client is gone") from self.lost
        if self._resumed is not None:
            await self._resumed

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


def _is_pipe(fd: int) -> bool:
    """Whether the loop can watch ``fd``: a pipe, a socket or a terminal (not a file, nor
    ``/dev/null``, which epoll never reports ready)."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(fd))


async def open_streams(stdio: Stdio) -> tuple[asyncio.StreamReader, Any]:
    """An asyncio reader on the client's stdin and a writer (``write``, ``drain``, ``close``)
    on its stdout. A file (``larik acp < requests.jsonl``) cannot be watched by the loop: a
    thread reads it, and a file written to does not push back."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_FRAME + 1)
    rfile = os.fdopen(stdio.read_fd, "rb", buffering=0)
    if _is_pipe(stdio.read_fd):
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), rfile)
    else:
        _feed(loop, reader, rfile)
    wfile = os.fdopen(stdio.write_fd, "wb", buffering=0)
    if not _is_pipe(stdio.write_fd):
        return reader, _FileWriter(wfile)
    pipe = _Pipe()
    await loop.connect_write_pipe(lambda: pipe, wfile)
    return reader, pipe


def _feed(loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader, rfile: Any) -> None:
    def pump() -> None:
        try:
            while chunk := rfile.read(_CHUNK):
                loop.call_soon_threadsafe(reader.feed_data, chunk)
        except OSError:
            pass
        finally:
            loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=pump, name="larik-acp-stdin", daemon=True).start()


class _FileWriter:
    """Stdout that is a regular file: written at once."""

    def __init__(self, wfile: Any) -> None:
        self._file = wfile

    def write(self, data: bytes) -> None:
        self._file.write(data)

    async def drain(self) -> None:
        pass

    def close(self) -> None:
        self._file.close()


class NotSent(ConnectionError):
    """A message of Larik's that has no JSON text: not sent (see the module docstring)."""


def _id_key(message: dict[str, Any]) -> str:
    return dumps(message.get("id"))


def _good_id(value: Any) -> bool:
    """JSON-RPC 2.0's ids: a string, a number or null (never true, an object or a list)."""
    return value is None or isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _is_answer(message: dict[str, Any]) -> bool:
    return "method" not in message and ("result" in message or "error" in message)


class Frames:
    """Newline-delimited JSON messages over the client's pipes (the SDK's ``Transport``).

    ``writer``: ``write(bytes)``, ``async drain()``, ``close()`` (an asyncio ``StreamWriter``
    will do)."""

    def __init__(self, reader: asyncio.StreamReader, writer: Any) -> None:
        self._reader = reader
        self._out = writer
        self._first: deque[dict[str, Any]] = deque()
        self.lines = 0  # lines read so far (a bad one's number is in its error)
        self.owed: Counter[str] = Counter()  # requests read and not answered, by their id's JSON

    def push(self, message: dict[str, Any]) -> None:
        """Hand ``message`` out again, before what is read next."""
        self._first.appendleft(message)

    async def send(self, message: dict[str, Any]) -> None:
        if _is_answer(message) and not self._settle(message):
            return
        try:
            text = dumps(message, ensure_ascii=False, separators=(",", ":"))
        except NotJson as e:
            text = dumps(self._unwritable(message, e), ensure_ascii=False, separators=(",", ":"))
        if message.get("method") not in ACTED_ON:
            text = mask(text)  # a secret inside a JSON string: "***" keeps the line JSON
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate the client sent ("\udcff"), echoed
            data = dumps(loads(text), separators=(",", ":")).encode("ascii")  # as \udcff
        self._out.write(data + b"\n")  # written now: messages go out in the order sent
        await self._out.drain()

    def _settle(self, answer: dict[str, Any]) -> bool:
        """Whether ``answer`` is owed (then it no longer is); a second one is logged."""
        owed = _id_key(answer)
        if self.owed[owed] > 0:
            self.owed[owed] -= 1
            if not self.owed[owed]:
                del self.owed[owed]
            return True
        log.warning("larik acp: a second answer to request %s was not sent", owed[:80])
        return False

    @staticmethod
    def _unwritable(message: dict[str, Any], e: NotJson) -> dict[str, Any]:
        """The answer to send instead of ``message``, which has no JSON text; a request or a
        notification of Larik's is not sent (:class:`NotSent`)."""
        what = f"{message.get('method') or 'an answer'} has no JSON text: {e}"
        log.warning("larik acp: %s", what)
        if not _is_answer(message):
            raise NotSent(what)
        error = {"code": -32603, "message": "Internal error", "data": {"details": what[:500]}}
        return {"jsonrpc": "2.0", "id": message.get("id"), "error": error}

    async def receive(self) -> dict[str, Any] | None:
        if self._first:
            return self._first.popleft()
        while True:
            line = await self.read_line()
            if line is None:
                return None
            message = await self.parse(line)
            if message is not None:
                return message

    async def read_line(self) -> bytes | None:
        """The next non-blank line (None at the end of input); an overlong one is answered
        and skipped."""
        while True:
            try:
                line = await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as e:
                line = e.partial  # the last line, without its newline
                if not line:
                    return None
            except asyncio.LimitOverrunError:
                await self._skip_overlong()
                continue
            self.lines += 1
            if line.strip():
                return line

    async def _skip_overlong(self) -> None:
        self.lines += 1
        while True:
            try:
                await self._reader.readuntil(b"\n")
                break
            except asyncio.LimitOverrunError as e:
                await self._reader.readexactly(e.consumed)
            except asyncio.IncompleteReadError:
                break
        await self._error(-32600, "Invalid request", f"message over {MAX_FRAME} bytes")

    async def parse(self, line: bytes) -> dict[str, Any] | None:
        """The message on ``line``, or None after answering a line that is not one."""
        try:
            message = loads(line)
        except (ValueError, RecursionError) as e:  # not JSON, bad UTF-8, too deep, 1e400, NaN
            await self._error(-32700, "Parse error", f"{type(e).__name__}: {e}")
            return None
        if not isinstance(message, dict):
            what = "a batch (not supported)" if isinstance(message, list) else "not an object"
            await self._error(-32600, "Invalid request", what)
            return None
        if not _good_id(message.get("id")):
            await self._error(-32600, "Invalid request", "an id is a string, a number or null")
            return None
        if "method" in message and "id" in message:
            self.owed[_id_key(message)] += 1
        return message

    async def _error(self, code: int, text: str, details: str) -> None:
        where = f"line {self.lines}: {details}"
        log.warning("larik acp: %s: %s", text.lower(), where)
        error = {"code": code, "message": text, "data": {"details": where[:500]}}
        self.owed[_id_key({"id": None})] += 1  # owed by the line itself
        try:
            await self.send({"jsonrpc": "2.0", "id": None, "error": error})
        except (ConnectionError, OSError):
            pass

    async def close(self) -> None:
        try:
            self._out.close()
        except OSError:
            pass
