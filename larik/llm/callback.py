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
waiting; so are requests whose head is larger than :data:`MAX_REQUEST` or slower than
:data:`READ_TIMEOUT`. The wait has a deadline; :meth:`Listener.close` from another thread ends
it (a pasted answer, a cancelled login). The caller words an ``error`` redirect.
"""

from __future__ import annotations

import socket
import time
from urllib.parse import parse_qs, urlsplit

from .errors import SignInError

__all__ = ["MAX_REQUEST", "Listener", "refused"]

MAX_REQUEST = 8192
READ_TIMEOUT = 10.0


class Listener:
    def __init__(self, port: int, path: str, state: str) -> None:
        self.path, self.state = path, state
        self._sock: socket.socket | None = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._sock.bind(("127.0.0.1", port))
            self._sock.listen(8)
        except OSError as e:
            self._sock.close()
            self._sock = None
            raise SignInError(
                f"cannot listen on 127.0.0.1:{port} for the browser's redirect ({e.strerror or e})"
            ) from None
        self.port = int(self._sock.getsockname()[1])

    def close(self) -> None:
        """Stop listening; a :meth:`wait` in another thread ends at once (a close alone does
        not wake an ``accept`` another thread is blocked in: it waited out its whole timeout)."""
        sock, self._sock = self._sock, None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes the accept: it fails, and wait() ends
            except OSError:
                pass  # not listening (any more)
            sock.close()

    def wait(self, timeout: float) -> dict[str, str]:
        """The query of the awaited redirect (``code`` or ``error``, ``state`` …); SignInError
        when ``timeout`` seconds pass first or the listener was closed."""
        deadline = time.monotonic() + timeout
        try:
            while True:
                sock = self._sock  # close() from another thread sets it to None meanwhile
                if sock is None:
                    raise SignInError("the login was completed another way")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise SignInError(f"no answer from the browser within {timeout:g} s")
                try:
                    sock.settimeout(left)
                    conn, peer = sock.accept()
                except TimeoutError:
                    continue
                except OSError:
                    if self._sock is None:  # closed from another thread (a pasted answer)
                        raise SignInError("the login was completed another way") from None
                    raise
                with conn:
                    query = self._answer(conn, peer)
                if query is not None:
                    return query
        finally:
            self.close()

    def _answer(self, conn: socket.socket, peer: tuple[str, int]) -> dict[str, str] | None:
        status, text, query = 400, "Not a login redirect.", None
        try:
            if peer[0] != "127.0.0.1":
                status, text = 403, "Only this machine may answer."
            else:
                head = _read_head(conn)
                method, _, rest = head.decode("latin-1").partition(" ")
                target = urlsplit(rest.split(" ", 1)[0])
                got = {k: v[0] for k, v in parse_qs(target.query).items()}
                if method != "GET" or target.path != self.path:
                    status, text = 404, "Not found."
                elif got.get("state") != self.state:
                    status, text = 400, "This is not the login Larik is waiting for."
                elif "error" in got or got.get("code"):
                    query = got
                    status = 200
                    text = (
                        "The login was refused. You can close this tab."
                        if "error" in got
                        else "Logged in: Larik has the answer. You can close this tab."
                    )
        except (OSError, ValueError):
            status, text = 400, "Bad request."
        body = f"<!doctype html><title>Larik</title><p>{text}</p>".encode()
        reason = {200: "OK", 400: "Bad Request", 403: "Forbidden", 404: "Not Found"}[status]
        try:
            conn.sendall(
                f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                + body
            )
        except OSError:
            pass
        return query


def _read_head(conn: socket.socket) -> bytes:
    conn.settimeout(READ_TIMEOUT)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = conn.recv(4096)
        if not chunk:
            break
        head += chunk
        if len(head) > MAX_REQUEST:
            raise ValueError("request head too large")
    return head.split(b"\r\n", 1)[0]


def refused(query: dict[str, str]) -> str:
    """An ``error`` redirect's reason, short and on one line ("" when it is not one)."""
    return " ".join(query["error"].split())[:100] if "error" in query else ""
