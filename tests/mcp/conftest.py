"""Real MCP servers for the tests: ``server_script.py`` started as a process (stdio), or serving
streamable HTTP on a loopback port."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest

from larik.mcp.config import McpServerConfig
from tests.patience import WAIT

SCRIPT = Path(__file__).with_name("server_script.py")
AUTH_SCRIPT = Path(__file__).with_name("auth_server_script.py")


def in_project(folder: Path) -> Path:
    """``server_script.py`` copied into a project: a project's server runs in the OS sandbox,
    which shows it nothing of the host's /tmp (where CI clones this repository) but the
    project; the interpreter's virtualenv it does show (larik.sandbox.programs)."""
    copy = folder / SCRIPT.name
    copy.write_bytes(SCRIPT.read_bytes())
    return copy


def stdio_config(mode: str = "ok", **kw: object) -> McpServerConfig:
    """A server of the user's own (so the sandbox shows it this script, where CI clones the
    repository under the host's /tmp). Its start-up may take the suite's ceiling (the SDK's
    import is 1.5-2 s of CPU, ten times that on a loaded machine); a test of the timeout sets
    its own."""
    kw.setdefault("startup_timeout", WAIT)
    cfg = McpServerConfig(command=sys.executable, args=[str(SCRIPT), mode], **kw)  # type: ignore[arg-type]
    cfg.mark_source("", user=True)
    return cfg


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purpose (its parent has not reaped it yet)
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def http_url() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPT), "ok", "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError("the HTTP test server exited") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class AuthServer:
    """``auth_server_script.py`` running: an MCP server behind the SDK's own OAuth."""

    def __init__(self, port: int, log: Path) -> None:
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.log = log

    def events(self) -> list[str]:
        """What it did, in order: register, code, refresh, call whoami."""
        return self.log.read_text().split("\n")[:-1] if self.log.exists() else []


@contextmanager
def auth_servers(tmp_path: Path) -> Iterator[Callable[..., AuthServer]]:
    """A function starting OAuth-protected servers (its arguments: the script's options),
    each a real uvicorn on a loopback port, served from a thread of this process: a process
    of its own imported the SDK afresh (1.5-2 s of CPU, for each of some 25 tests). All are
    stopped on leaving, as uvicorn stops on SIGTERM."""
    import threading

    import uvicorn

    from tests.mcp.auth_server_script import app_for

    running: list[tuple[uvicorn.Server, threading.Thread]] = []

    def start(*args: str) -> AuthServer:
        port = free_port()
        log = tmp_path / f"server-{port}.log"
        asgi = app_for([str(port), "--log", str(log), *args])
        config = uvicorn.Config(asgi, host="127.0.0.1", port=port, log_level="error")
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, name=f"auth-server-{port}", daemon=True)
        thread.start()
        running.append((server, thread))
        deadline = time.monotonic() + WAIT
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the auth test server exited")
            if time.monotonic() > deadline:
                raise RuntimeError("the auth test server did not start")
            time.sleep(0.01)
        return AuthServer(port, log)

    try:
        yield start
    finally:
        for server, _ in running:
            server.should_exit = True
        for server, thread in running:
            thread.join(10)
            if thread.is_alive():  # a connection left open: as a second Ctrl+C does
                server.force_exit = True
                thread.join(10)


class Browser:
    """Plays the user's browser: opens the authorization URL Larik shows and follows the
    server's redirect back to Larik's loopback listener (first with a wrong state, which
    must be refused)."""

    def __init__(self) -> None:
        self.shown: list[str] = []
        self.answers: list[int] = []

    def __call__(self, server: Any, url: str) -> None:
        self.shown.append(url)
        assert server.login_url == url  # /mcp and the status line can show it meanwhile
        asyncio.get_running_loop().create_task(self._open(url))

    async def _open(self, url: str) -> None:
        async with httpx2.AsyncClient() as client:
            back = (await client.get(url)).headers["location"]
            assert back.startswith("http://127.0.0.1:")
            self.answers.append(await _from_elsewhere(back))  # another loopback address
            forged = back.split("?")[0] + "?code=stolen&state=guess"
            self.answers.append((await client.get(forged)).status_code)
            self.answers.append((await client.get(back)).status_code)
            self.answers.append(await _closed(back))  # the listener served its one login


async def _from_elsewhere(url: str) -> int:
    """The status a GET of ``url`` gets when it comes from 127.0.0.2."""
    port = int(url.split(":")[2].split("/")[0])
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.0.2", 0))
    path = "/" + url.split("/", 3)[3]
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    writer.close()
    return status


async def _closed(url: str, within: float = WAIT) -> str:
    """ "closed" once nothing listens at ``url``'s port any more (it closes right after the
    answer it took; looked at until ``within`` seconds have passed)."""
    port = int(url.split(":")[2].split("/")[0])
    loop = asyncio.get_running_loop()
    end = loop.time() + within
    while loop.time() < end:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            return "closed"
        writer.close()
        await asyncio.sleep(0.02)
    return "still listening"
