"""`larik login` as a real process on a machine with no browser (SSH, no display), and offline:
it says what it waits for and how to stop, offers --device, and a server it cannot reach is
one line — against loopback fakes of the sign-in servers."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.llm.signin.fake_auth import FakeAuth
from tests.llm.signin.test_chatgpt_login import get

ROOT = Path(__file__).resolve().parents[1]
WAIT = 60.0  # seconds a step may take on a loaded machine
CALLBACK = "http://localhost:1455/auth/callback"  # the redirect OpenAI registered for Codex


@pytest.fixture
def fake() -> Iterator[FakeAuth]:
    server = FakeAuth().start()
    yield server
    server.stop()


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port bound and not listening: a connection to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("SSH_CONNECTION", None)
    return {**env, "PYTHONPATH": str(ROOT), **extra}


class Login:
    """`larik login ARGS` as a process, its stderr read by a thread as it comes."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "larik.cli", "login", *args], env=env, text=True,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        self.err: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.err.append(line)

    def wait_for(self, text: str) -> str:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            found = next((line for line in list(self.err) if text in line), "")
            if found:
                return found
            if self.proc.poll() is not None and not self.reader.is_alive():
                break
            time.sleep(0.02)
        raise AssertionError(f"no {text!r} on stderr: {''.join(self.err)}")

    def end(self) -> tuple[int, str, str]:
        out = self.proc.stdout.read() if self.proc.stdout is not None else ""
        code = self.proc.wait(timeout=WAIT)
        self.reader.join(timeout=WAIT)
        return code, out, "".join(self.err)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the no-display rule is Linux's")
@pytest.mark.parametrize(
    ("where", "offered"),
    [({}, True), ({"SSH_CONNECTION": "10.0.0.2 50000 10.0.0.1 22"}, True), ({"DISPLAY": ":0"}, False)],
    ids=["no display", "over ssh", "a display"],
)  # fmt: skip
def test_browser_sign_in_says_what_it_waits_for_and_offers_device_with_no_display(
    fake, where, offered
):
    login = Login(["chatgpt", "--no-browser"], _env(LARIK_CHATGPT_AUTH_URL=fake.url, **where))
    try:
        waiting = login.wait_for("Ctrl+C to cancel")
        assert CALLBACK in waiting  # the loopback port the browser must reach
        page = login.wait_for("/oauth/authorize?").strip()
        assert parse_qs(urlsplit(page).query)["redirect_uri"] == [CALLBACK]
        status, back = get(page)  # the browser: the sign-in page sends it back
        assert status == 302 and get(back)[0] == 200
        code, out, err = login.end()
    finally:
        login.kill()
    assert code == 0 and "Signed in to ChatGPT" in out
    assert ("--device" in err) is offered
    if offered:
        assert "no browser opens here; `larik login chatgpt --device`" in err


def test_ctrl_c_while_waiting_for_the_browser_is_one_line(fake):
    login = Login(["chatgpt", "--no-browser"], _env(LARIK_CHATGPT_AUTH_URL=fake.url))
    try:
        login.wait_for("Ctrl+C to cancel")
        login.proc.send_signal(signal.SIGINT)
        code, _, err = login.end()
    finally:
        login.kill()
    assert code == 130 and err.strip().splitlines()[-1] == "larik: sign-in cancelled"
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "variable", "what"),
    [
        (["copilot"], "LARIK_COPILOT_AUTH_URL", "GitHub sign-in"),
        (["chatgpt", "--device"], "LARIK_CHATGPT_AUTH_URL", "ChatGPT device sign-in"),
    ],
    ids=["copilot", "chatgpt --device"],
)
def test_offline_the_sign_in_ends_with_one_line(closed_port, args, variable, what):
    env = _env(**{variable: f"http://127.0.0.1:{closed_port}"})
    done = subprocess.run(
        [sys.executable, "-m", "larik.cli", "login", *args, "--no-browser"], env=env,
        capture_output=True, text=True, timeout=WAIT, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr == f"larik: {what}: cannot reach 127.0.0.1:{closed_port}: offline?\n"


def test_a_server_that_fails_tls_is_not_called_offline(fake):
    port = urlsplit(fake.url).port  # plain http: a TLS handshake with it fails
    env = _env(LARIK_COPILOT_AUTH_URL=f"https://127.0.0.1:{port}")
    done = subprocess.run(
        [sys.executable, "-m", "larik.cli", "login", "copilot", "--no-browser"], env=env,
        capture_output=True, text=True, timeout=WAIT, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"larik: GitHub sign-in: cannot reach 127.0.0.1:{port} securely:")
    assert "offline" not in done.stderr
