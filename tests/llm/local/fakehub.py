"""A loopback fake of the Hugging Face Hub's file endpoints, for ``larik local pull``.

``HEAD`` and ``GET /{repo}/resolve/{revision}/{file}`` with the headers ``hf_hub_download``
reads (``X-Repo-Commit``, ``ETag``, ``Content-Length``) and ``Range`` requests. Per file, the
test can make the body stop after some bytes (``drop_after``: the connection closes, for the
first ``drops`` GETs) or stall there (``stall_after``: nothing more until the test says), and
every request is recorded (method, path, Range). A hostile Hub streams more than the file
(``overflow`` more bytes): announcing that longer length in ``HEAD`` and ``GET``, or
(``close_delimited``) announcing the file's own length in ``HEAD`` and none in ``GET``, whose
body then ends only when the connection closes.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.patience import WAIT

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class File:
    body: bytes
    drop_after: int | None = None
    drops: int = 1
    stall_after: int | None = None
    overflow: int = 0
    close_delimited: bool = False

    @property
    def stream(self) -> bytes:
        """What a GET sends: the file, then ``overflow`` bytes more."""
        return self.body + b"\xa5" * self.overflow

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.body).hexdigest()


@dataclass
class FakeHub:
    files: dict[str, File] = field(default_factory=dict)  # "repo/file" -> File
    requests: list[tuple[str, str, str]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    disconnected: threading.Event = field(default_factory=threading.Event)
    url: str = ""

    def start(self) -> FakeHub:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _file(self) -> File | None:
                hub.requests.append((self.command, self.path, self.headers.get("Range", "")))
                parts = self.path.split("?")[0].strip("/").split("/")
                if len(parts) < 5 or parts[2] != "resolve":
                    return None
                return hub.files.get(f"{parts[0]}/{parts[1]}/{'/'.join(parts[4:])}")

            def _headers(self, f: File, status: int, length: int, start: int = 0) -> None:
                self.send_response(status)
                self.send_header("X-Repo-Commit", COMMIT)
                self.send_header("ETag", f'"{f.sha256}"')
                self.send_header("Accept-Ranges", "bytes")
                self.send_header("Content-Length", str(length))
                if status == 206:
                    self.send_header(
                        "Content-Range", f"bytes {start}-{len(f.body) - 1}/{len(f.body)}"
                    )
                self.end_headers()

            def do_HEAD(self) -> None:
                f = self._file()
                if f is None:
                    self.send_response(404)
                    self.send_header("X-Error-Code", "EntryNotFound")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self._headers(f, 200, len(f.body) if f.close_delimited else len(f.stream))

            def _overflow(self, f: File) -> None:
                """Send the longer stream, in pieces, until the client goes away; its last byte
                only once the test releases it (a client that takes it all is caught holding
                it)."""
                if f.close_delimited:
                    self.send_response(200)
                    self.send_header("X-Repo-Commit", COMMIT)
                    self.send_header("ETag", f'"{f.sha256}"')
                    self.send_header("Connection", "close")
                    self.end_headers()
                else:
                    self._headers(f, 200, len(f.stream))
                self.close_connection = True
                stream = f.stream
                try:
                    for at in range(0, len(stream) - 1, 1 << 16):
                        self.wfile.write(stream[at : min(at + (1 << 16), len(stream) - 1)])
                    self.wfile.flush()
                    hub.release.wait(30)
                    self.wfile.write(stream[-1:])
                except OSError:
                    hub.disconnected.set()

            def do_GET(self) -> None:
                f = self._file()
                if f is None:
                    body = b'{"error": "Entry not found"}'
                    self.send_response(404)
                    self.send_header("X-Error-Code", "EntryNotFound")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                if f.overflow:
                    self._overflow(f)
                    return
                start = 0
                rng = self.headers.get("Range", "")
                if rng.startswith("bytes="):
                    start = int(rng[6:].split("-")[0] or 0)
                body = f.body[start:]
                self._headers(f, 206 if start else 200, len(body), start)
                if f.drop_after is not None and f.drops > 0 and start < f.drop_after:
                    f.drops -= 1
                    self.wfile.write(body[: f.drop_after - start])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                if f.stall_after is not None and not hub.release.is_set():
                    self.wfile.write(body[: max(0, f.stall_after - start)])
                    self.wfile.flush()
                    hub.release.wait(WAIT)
                    self.close_connection = True
                    return
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()
