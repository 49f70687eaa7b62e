"""A loopback HTTP server for adapter tests: canned bodies, real recordings, injected faults.

    server = LoopbackServer().start()
    server.add(Reply(body=sse_text))                 # next request gets this
    server.route("/api/show", Reply(body=json_text)) # every request to this path gets this
    ... point a provider at server.url ...
    server.requests[0].json()                        # what the client sent

Faults: any status with body and headers (``Reply(status=429, headers={"Retry-After": "1"})``),
``drop_after=N`` (close the connection after N body chunks, mid-stream), ``stall_after=N``
(send N chunks, then nothing until the client goes away). ``server.disconnected`` is set when a
client closes a connection while a reply is still being sent.

How a body ends (``end``, :data:`ENDS`): ``chunked`` (its last, empty chunk: the body ended
cleanly), ``close`` (HTTP/1.0 style: no length and no chunks, the connection's close ends it)
or ``reset`` (the last chunk is announced whole, half of it sent, then the connection is reset:
a TCP RST mid-chunk).

Only 127.0.0.1. Never anything else.
"""

from __future__ import annotations

import io
import json
import select
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.patience import WAIT

ROOT = Path(__file__).resolve().parents[1]
WIRE = ROOT.parent / "shared" / "wire"
ENDS = ("close", "chunked", "reset")


@dataclass
class Reply:
    status: int = 200
    body: bytes | str | list[bytes | str] = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "text/event-stream"
    chunk_size: int = 0  # split a single body into pieces of this many bytes (0: as given)
    chunk_delay: float = 0.0
    drop_after: int | None = None
    stall_after: int | None = None
    stall_seconds: float = WAIT  # until the client goes away; a ceiling for a test that failed
    end: str = "chunked"  # one of ENDS

    def chunks(self) -> list[bytes]:
        parts = self.body if isinstance(self.body, list) else [self.body]
        out = [p.encode() if isinstance(p, str) else p for p in parts]
        if self.chunk_size and len(out) == 1:
            b = out[0]
            out = [b[i : i + self.chunk_size] for i in range(0, len(b), self.chunk_size)]
        return [c for c in out if c]


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class LoopbackServer:
    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.disconnected = threading.Event()
        self._queue: list[Reply] = []
        self._routes: dict[str, Reply] = {}
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    # -- setup ------------------------------------------------------------------------------
    def start(self) -> LoopbackServer:
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()

    @property
    def port(self) -> int:
        assert self._httpd
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def add(self, *replies: Reply) -> LoopbackServer:
        with self._lock:
            self._queue.extend(replies)
        return self

    def route(self, path: str, reply: Reply) -> LoopbackServer:
        with self._lock:
            self._routes[path] = reply
        return self

    def wait_disconnect(self, timeout: float = WAIT) -> bool:
        return self.disconnected.wait(timeout)

    def _next(self, path: str) -> Reply:
        with self._lock:
            bare = path.split("?", 1)[0]
            if bare in self._routes:
                return self._routes[bare]
            if self._queue:
                return self._queue.pop(0)
        return Reply(
            status=500,
            body='{"error": "loopback server: no reply queued"}',
            content_type="application/json",
        )


class _Handler(BaseHTTPRequestHandler):
    owner: LoopbackServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.owner.requests.append(
            Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        )
        reply = self.owner._next(self.path)
        try:
            self._send(reply)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.owner.disconnected.set()
        self.close_connection = True

    do_GET = do_POST = do_PUT = do_DELETE = _handle

    def _send(self, reply: Reply) -> None:
        chunks = reply.chunks()
        if reply.end == "close":
            self.protocol_version = "HTTP/1.0"
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        for k, v in reply.headers.items():
            self.send_header(k, v)
        if reply.end != "close":
            self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()
        if reply.end == "close":
            self.wfile.write(b"".join(chunks))
            self.wfile.flush()
            return
        if reply.end == "reset":
            self._reset_mid_chunk(chunks)
            return
        for i, chunk in enumerate(chunks):
            if reply.drop_after is not None and i >= reply.drop_after:
                self._drop()
                return
            if reply.stall_after is not None and i >= reply.stall_after:
                self._stall(reply.stall_seconds)
                return
            if reply.chunk_delay and i:
                time.sleep(reply.chunk_delay)
                if self._client_gone():
                    self.owner.disconnected.set()
                    return
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.flush()
        if reply.drop_after is not None and reply.drop_after >= len(chunks):
            self._drop()
            return
        if reply.stall_after is not None:
            self._stall(reply.stall_seconds)
            return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _reset_mid_chunk(self, chunks: list[bytes]) -> None:
        """Every chunk but the last; the last announced whole, half of it sent; then a RST."""
        *whole, last = chunks or [b"{}"]
        for chunk in whole:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        self.wfile.write(b"%x\r\n%s" % (len(last), last[: len(last) // 2]))
        self.wfile.flush()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        for held in (self.wfile, self.rfile, self.connection):  # the last one out sends the RST
            held.close()
        self.wfile = self.rfile = io.BytesIO()  # what the handler still flushes and closes

    def _drop(self) -> None:
        self.wfile.flush()
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _stall(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self._client_gone(0.05):
                self.owner.disconnected.set()
                return

    def _client_gone(self, wait: float = 0.0) -> bool:
        try:
            r, _, _ = select.select([self.connection], [], [], wait)
            if not r:
                return False
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True


# -- the wire recordings -------------------------------------------------------------------


@dataclass
class WireCase:
    api: str
    name: str
    meta: dict[str, Any]
    request: Any
    response: bytes

    def reply(self, chunk_size: int = 0) -> Reply:
        return Reply(
            status=int(self.meta.get("status", 200)),
            body=self.response,
            content_type=self.meta.get("content_type") or "application/json",
            chunk_size=chunk_size,
        )


def wire_cases(api: str) -> list[str]:
    folder = WIRE / api
    if not folder.is_dir():
        return []
    return sorted(p.name.removesuffix(".meta.json") for p in folder.glob("*.meta.json"))


def wire_case(api: str, name: str) -> WireCase:
    folder = WIRE / api
    meta = json.loads((folder / f"{name}.meta.json").read_text())
    req_path = folder / f"{name}.request.json"
    request = json.loads(req_path.read_text()) if req_path.exists() else None
    response = (folder / f"{name}.response.txt").read_bytes()
    return WireCase(api, name, meta, request, response)
