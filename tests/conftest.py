"""Test-wide rules: no network but loopback, no keys, a private LARIK_HOME."""

from __future__ import annotations

import ipaddress
import os
import socket
import uuid
from collections.abc import Iterator

import pytest

from tests.loopback import WIRE, LoopbackServer
from tests.procs import MARK_VARIABLE

_KEY_VARS = [
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENROUTER_API_KEY",
    "GROQ_API_KEY",
    "DEEPSEEK_API_KEY",
    "NVIDIA_API_KEY",
    "TOGETHER_API_KEY",
    "FIREWORKS_API_KEY",
    "CEREBRAS_API_KEY",
    "MISTRAL_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
    "OLLAMA_HOST",
    "OLLAMA_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "XAI_API_KEY",
]

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _loopback_only(addr: object) -> None:
    if isinstance(addr, tuple) and addr:
        host = str(addr[0])
        try:
            ok = ipaddress.ip_address(host.split("%")[0]).is_loopback
        except ValueError:
            ok = host == "localhost"
        if not ok:
            raise ConnectionRefusedError(f"tests may only connect to loopback, not {host}")


def _guarded_connect(self: socket.socket, addr: object) -> None:
    _loopback_only(addr)
    return _real_connect(self, addr)


def _guarded_connect_ex(self: socket.socket, addr: object) -> int:
    _loopback_only(addr)
    return _real_connect_ex(self, addr)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _hermetic(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    for var in _KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    home = tmp_path_factory.mktemp("larik-home")
    monkeypatch.setenv("LARIK_HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg-config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "xdg-state"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / "claude"))  # not the real ~/.claude
    monkeypatch.setenv("NO_COLOR", "1")


@pytest.fixture(autouse=True)
def _fresh_cooldowns() -> Iterator[None]:
    from larik.llm.fallback import cooldowns

    cooldowns.clear()
    yield
    cooldowns.clear()


@pytest.fixture(autouse=True)
def _fresh_secrets() -> Iterator[None]:
    from larik.llm.secrets import forget_all

    forget_all()
    yield
    forget_all()


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    server = LoopbackServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def wire_dir():
    if not WIRE.is_dir():
        pytest.skip("../shared/wire is absent")
    return WIRE


def pytest_report_header(config: pytest.Config) -> str:
    return f"wire recordings: {WIRE if WIRE.is_dir() else 'absent (those tests skip)'}; pid {os.getpid()}"


@pytest.fixture
def mark(monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh mark in this process's environment, inherited by every process its commands
    start (tests/procs.py: ``carrying(mark)`` finds them; this process itself does not carry
    it, since /proc shows the environment a process was started with)."""
    value = uuid.uuid4().hex
    monkeypatch.setenv(MARK_VARIABLE, value)
    return value
