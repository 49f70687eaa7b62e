"""Shared helpers for the benchmark scripts: statistics, the result table, the machine, and a
loopback HTTP server that runs in its own process.

Not a test helper: benchmarks import nothing from tests/. Only 127.0.0.1, never anything else.

The server (``BodyServer``) serves canned streaming bodies. Each body is a list of events (SSE
events or NDJSON lines); it is framed once, up front, as HTTP/1.1 chunked encoding with one
event per HTTP chunk (the framing a real server gives a stream it flushes per event), and sent
with one ``sendall``. The server runs in a child process, so its CPU time is never counted in
the client's ``time.process_time()``. A request to ``/b/NAME/...`` gets body NAME, whatever
the rest of the path is, so every SDK can be pointed at ``server.base(NAME)``.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

__all__ = [
    "BodyServer",
    "Stat",
    "TableRow",
    "machine_lines",
    "print_table",
    "stat",
]


# -- statistics -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stat:
    median: float
    low: float
    high: float
    n: int


def stat(values: Sequence[float]) -> Stat:
    if not values:
        return Stat(float("nan"), float("nan"), float("nan"), 0)
    return Stat(statistics.median(values), min(values), max(values), len(values))


# -- table ------------------------------------------------------------------------------------


@dataclass
class TableRow:
    cells: list[str]
    rule_before: bool = False


def print_table(headers: Sequence[str], rows: Iterable[TableRow], out=None) -> None:
    """A plain-text table; the first column left-aligned, the others right-aligned."""
    out = out or sys.stdout
    rows = list(rows)
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row.cells):
            widths[i] = max(widths[i], len(cell))

    def line(cells: Sequence[str]) -> str:
        parts = [cells[0].ljust(widths[0])]
        parts += [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    print(line(headers), file=out)
    print(rule, file=out)
    for row in rows:
        if row.rule_before:
            print(rule, file=out)
        print(line(row.cells), file=out)


# -- machine ----------------------------------------------------------------------------------


def _cpu_model() -> str:
    try:
        for text_line in Path("/proc/cpuinfo").read_text().splitlines():
            if text_line.lower().startswith("model name"):
                return text_line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "-"


def machine_lines(packages: Sequence[str] = ()) -> list[str]:
    """What the figures were measured on: CPU, cores, OS, Python, date, package versions."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 0
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = ""
    if hasattr(os, "getloadavg"):
        load = " · load avg {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    lines = [
        f"machine: {_cpu_model()} · {os.cpu_count()} cores ({usable} usable){load}",
        f"python:  {platform.python_implementation()} {platform.python_version()} "
        f"on {platform.system()} {platform.release()}",
        f"date:    {now}",
    ]
    if packages:
        lines.append("packages: " + ", ".join(f"{p} {_version(p)}" for p in packages))
    return lines


# -- the loopback server (child process) ------------------------------------------------------


def frame_chunked(events: Iterable[bytes]) -> bytes:
    """HTTP/1.1 chunked encoding, one event per chunk, with the terminating chunk."""
    parts = [b"%x\r\n%s\r\n" % (len(e), e) for e in events if e]
    parts.append(b"0\r\n\r\n")
    return b"".join(parts)


@dataclass
class BodyServer:
    """``with BodyServer({"name": (content_type, [event bytes, ...])}) as server: ...``"""

    bodies: dict[str, tuple[str, list[bytes]]]
    _proc: subprocess.Popen[bytes] | None = field(default=None, init=False)
    _dir: tempfile.TemporaryDirectory[str] | None = field(default=None, init=False)
    port: int = field(default=0, init=False)

    def __enter__(self) -> BodyServer:
        self._dir = tempfile.TemporaryDirectory(prefix="larik-bench-")
        folder = Path(self._dir.name)
        for name, (content_type, events) in self.bodies.items():
            if "/" in name:
                raise ValueError(f"body name {name!r} must not contain '/'")
            (folder / f"{name}.type").write_text(content_type)
            (folder / f"{name}.body").write_bytes(frame_chunked(events))
        self._proc = subprocess.Popen(
            [sys.executable, __file__, "serve", str(folder)],
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        assert self._proc.stdout is not None
        first = self._proc.stdout.readline().decode().strip()
        if not first.startswith("PORT "):
            self.__exit__(None, None, None)
            raise RuntimeError(f"benchmark server did not start (said {first!r})")
        self.port = int(first.split()[1])
        return self

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def base(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/b/{name}"


def _serve(folder: Path) -> None:
    bodies: dict[str, tuple[bytes, bytes]] = {}
    for path in folder.glob("*.body"):
        name = path.name.removesuffix(".body")
        content_type = (folder / f"{name}.type").read_text().encode()
        head = (
            b"HTTP/1.1 200 OK\r\nContent-Type: " + content_type + b"\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        )
        bodies[name] = (head, path.read_bytes())
    missing = (
        b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n"
        b'Content-Length: 27\r\nConnection: close\r\n\r\n{"error": "no such body"} \n'
    )

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    sys.stdout.write(f"PORT {listener.getsockname()[1]}\n")
    sys.stdout.flush()

    def handle(conn: socket.socket) -> None:
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                piece = conn.recv(65536)
                if not piece:
                    return
                data += piece
            head, _, rest = data.partition(b"\r\n\r\n")
            lines = head.split(b"\r\n")
            length = 0
            for h in lines[1:]:
                key, _, value = h.partition(b":")
                if key.strip().lower() == b"content-length":
                    length = int(value.strip())
            while len(rest) < length:
                piece = conn.recv(65536)
                if not piece:
                    return
                rest += piece
            target = lines[0].split(b" ")[1].decode()
            segments = target.split("?", 1)[0].split("/")
            name = segments[segments.index("b") + 1] if "b" in segments[:-1] else ""
            try:
                if name in bodies:
                    reply_head, body = bodies[name]
                    conn.sendall(reply_head + body)
                else:
                    conn.sendall(missing)
                conn.shutdown(socket.SHUT_WR)
                while conn.recv(65536):  # let the client close first
                    pass
            except OSError:
                pass

    while True:
        conn, _ = listener.accept()
        threading.Thread(target=handle, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "serve":
        try:
            _serve(Path(sys.argv[2]))
        except KeyboardInterrupt:
            pass
    else:
        sys.exit("usage: _common.py serve DIR")
