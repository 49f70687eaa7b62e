"""The loopback listener a browser is sent back to after a login: one use, 127.0.0.1 only.

The one listener of every browser login Larik makes: ``larik login chatgpt``
(:mod:`larik.llm.signin.chatgpt`) and an MCP server's OAuth (:mod:`larik.mcp.oauth`, which
waits on it from a thread).

``Listener(port, path, state)`` binds ``127.0.0.1:port`` (never another address; port 0: a
free one, then :attr:`Listener.port`) and :meth:`Listener.wait` answers requests until one is
the awaited redirect — a ``GET`` of ``path`` whose ``state`` matches, with a ``code`` or an
``error`` — then closes: a second visitor finds no one listening. Requests from any other
address than 127.0.0.1 (another address of the loopback range, a proxy), to another path, or
with another ``state`` (a page or program guessing) are refused and the listener goes on
waiting; so are requests whose head is larger than :data:`MAX_REQUEST`.

No visitor can hold the wait. Connections are served side by side, each from one thread with
a selector: a connection that sends nothing, or a byte at a time, delays no other one. Each
request has one deadline for its whole head (:data:`READ_TIMEOUT` from its connection, not
from its last byte), the wait has one for itself, and at most :data:`MAX_OPEN` connections are
kept (a new one puts out the oldest), so the real redirect is served while others dawdle and
the wait ends on time whatever they do. :meth:`Listener.close` from another thread ends it (a
pasted answer, a cancelled login). The caller words an ``error`` redirect.
"""

from __future__ import annotations

import selectors
import socket
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from .errors import SignInError

__all__ = ["MAX_OPEN", "MAX_REQUEST", "READ_TIMEOUT", "Listener", "refused"]

MAX_REQUEST = 8192
READ_TIMEOUT = 10.0
MAX_OPEN = 32

_REASONS = {
    200: "OK",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
}


@dataclass
class _Request:
    """One connection's head as it arrives, and the time by which it must be whole."""

    conn: socket.socket
    deadline: float
    head: bytes = field(default=b"")


class Listener:
    def __init__(self, port: int, path: str, state: str) -> None:
        self.path, self.state = path, state
        self._lock = threading.Lock()
        self._waiting = False
        self._wake_r, self._wake_w = socket.socketpair()
        self._sock: socket.socket | None = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._sock.bind(("127.0.0.1", port))
            self._sock.listen(16)
        except OSError as e:
            self._sock.close()
            self._sock = None
            self._close_wake()
            raise SignInError(
                f"cannot listen on 127.0.0.1:{port} for the browser's redirect ({e.strerror or e})"
            ) from None
        self.port = int(self._sock.getsockname()[1])

    def close(self) -> None:
        """Stop listening; a :meth:`wait` in another thread ends at once (it is woken through
        a socket pair of its own, and closes the sockets it waits on itself)."""
        with self._lock:
            sock, self._sock = self._sock, None
            if self._waiting:  # the pair stays open until that wait has ended
                if sock is not None:
                    self._wake_w.send(b".")
                return
        if sock is not None:
            sock.close()
        self._close_wake()

    def _close_wake(self) -> None:
        self._wake_r.close()
        self._wake_w.close()

    def wait(self, timeout: float) -> dict[str, str]:
        """The query of the awaited redirect (``code`` or ``error``, ``state`` …); SignInError
        when ``timeout`` seconds pass first or the listener was closed."""
        deadline = time.monotonic() + timeout
        with self._lock:
            sock = self._sock
            self._waiting = sock is not None
        if sock is None:
            raise SignInError("the login was completed another way")
        open_: dict[socket.socket, _Request] = {}
        try:
            sock.setblocking(False)
            with selectors.DefaultSelector() as selector:
                selector.register(sock, selectors.EVENT_READ)
                selector.register(self._wake_r, selectors.EVENT_READ)
                while True:
                    now = time.monotonic()
                    if self._sock is None:
                        raise SignInError("the login was completed another way")
                    if now >= deadline:
                        raise SignInError(f"no answer from the browser within {timeout:g} s")
                    _put_out_late(open_, selector, now)
                    wake = min([deadline, *(r.deadline for r in open_.values())])
                    for key, _ in selector.select(wake - now):
                        if key.fileobj is sock:
                            self._accept(sock, open_, selector)
                        elif key.fileobj in open_:
                            query = self._read(open_, selector, open_[key.fileobj])
                            if query is not None:
                                return query
        finally:
            for request in open_.values():
                request.conn.close()
            with self._lock:
                self._waiting = False
            sock.close()
            self.close()

    def _accept(
        self,
        sock: socket.socket,
        open_: dict[socket.socket, _Request],
        selector: selectors.BaseSelector,
    ) -> None:
        try:
            conn, peer = sock.accept()
        except OSError:
            return  # the peer went away before it was taken
        if peer[0] != "127.0.0.1":
            _reply(conn, 403, "Only this machine may answer.")
            return
        if len(open_) >= MAX_OPEN:
            oldest = min(open_.values(), key=lambda r: r.deadline)
            _forget(open_, selector, oldest)
        conn.setblocking(False)
        open_[conn] = _Request(conn, time.monotonic() + READ_TIMEOUT)
        selector.register(conn, selectors.EVENT_READ)

    def _read(
        self,
        open_: dict[socket.socket, _Request],
        selector: selectors.BaseSelector,
        request: _Request,
    ) -> dict[str, str] | None:
        """Take what one connection has sent; once its head is whole, answer it."""
        try:
            chunk = request.conn.recv(4096)
        except BlockingIOError:
            return None
        except OSError:
            chunk = b""
        request.head += chunk
        if len(request.head) > MAX_REQUEST:
            _forget(open_, selector, request, 400, "Bad request.")
            return None
        if chunk and b"\r\n\r\n" not in request.head:
            return None
        status, text, query = self._judge(request.head.split(b"\r\n", 1)[0])
        _forget(open_, selector, request, status, text)
        return query

    def _judge(self, line: bytes) -> tuple[int, str, dict[str, str] | None]:
        """The status, page text and (for the awaited redirect) query of one request line."""
        method, _, rest = line.decode("latin-1").partition(" ")
        try:
            target = urlsplit(rest.split(" ", 1)[0])
            got = {k: v[0] for k, v in parse_qs(target.query).items()}
        except ValueError:
            return 400, "Bad request.", None
        if method != "GET" or target.path != self.path:
            return 404, "Not found.", None
        if got.get("state") != self.state:
            return 400, "This is not the login Larik is waiting for.", None
        if "error" in got:
            return 200, "The login was refused. You can close this tab.", got
        if got.get("code"):
            return 200, "Logged in: Larik has the answer. You can close this tab.", got
        return 400, "Not a login redirect.", None


def _put_out_late(
    open_: dict[socket.socket, _Request], selector: selectors.BaseSelector, now: float
) -> None:
    for request in [r for r in open_.values() if r.deadline <= now]:
        _forget(open_, selector, request, 408, "The request took too long.")


def _forget(
    open_: dict[socket.socket, _Request],
    selector: selectors.BaseSelector,
    request: _Request,
    status: int = 0,
    text: str = "",
) -> None:
    """Stop serving one connection, answering it first when ``status`` is given."""
    selector.unregister(request.conn)
    del open_[request.conn]
    if status:
        _reply(request.conn, status, text)
    else:
        request.conn.close()


def _reply(conn: socket.socket, status: int, text: str) -> None:
    """Send a short page without waiting on the peer (it fits in the socket's buffer), close."""
    body = f"<!doctype html><title>Larik</title><p>{text}</p>".encode()
    head = (
        f"HTTP/1.1 {status} {_REASONS[status]}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    with conn:
        try:
            conn.setblocking(False)
            conn.send(head.encode() + body)
        except OSError:
            pass


def refused(query: dict[str, str]) -> str:
    """An ``error`` redirect's reason, short and on one line ("" when it is not one)."""
    return " ".join(query["error"].split())[:100] if "error" in query else ""
