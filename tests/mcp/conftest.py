"""Real MCP servers for the tests: ``server_script.py`` started as a process (stdio), or serving
streamable HTTP on a loopback port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from larik.mcp.config import McpServerConfig

SCRIPT = Path(__file__).with_name("server_script.py")


def stdio_config(mode: str = "ok", **kw: object) -> McpServerConfig:
    return McpServerConfig(command=sys.executable, args=[str(SCRIPT), mode], **kw)  # type: ignore[arg-type]


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
        deadline = time.monotonic() + 30
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
