"""SIGTERM and SIGHUP quit the real TUI (on a pseudo-terminal) as /exit does: the running
command killed, the session closed and resumable, the terminal restored."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest

from larik.agent.sessions import latest_session
from larik.agent.transcript import Transcript, load_transcript
from tests.patience import WAIT

from ..procs import carrying

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux")


def wait_for(check, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


class Tui:
    """`larik` on a pseudo-terminal, its output collected by a thread."""

    def __init__(self, argv: list[str], cwd: Path, typed_before: bytes = b"") -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        if typed_before:  # typed before larik starts: waiting in the terminal for it
            os.write(self.master, typed_before)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "larik.cli", *argv],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            start_new_session=True,
        )
        os.close(slave)
        self.out = bytearray()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.out += chunk

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        try:
            os.close(self.master)
        except OSError:
            pass


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_stop_signal_quits_the_tui_cleanly(tmp_path, sig, mark):
    project = tmp_path / "proj"
    project.mkdir()
    pidfile = project / "sleep.pid"
    script = tmp_path / "s.json"
    command = f"sleep 300 & echo $! > {pidfile.name}; wait"
    call = {"name": "bash", "input": {"command": command}}
    script.write_text(json.dumps({"turns": [{"tool_calls": [call]}, {"text": "never"}]}))
    tui = Tui(["-m", f"scripted/{script}", "--permission-mode", "yolo"], project)
    try:
        wait_for(lambda: b"/help" in tui.out, "the TUI to start")
        tui.type("run the command\r")
        wait_for(lambda: pidfile.exists() and pidfile.read_text().strip(), "the command")
        assert len(carrying(mark)) >= 3  # the TUI, the shell, sleep (its pid is the sandbox's)
        hung_up = sig == signal.SIGHUP
        if hung_up:  # the terminal is gone before the signal comes
            os.close(tui.master)
        tui.proc.send_signal(sig)
        code = tui.proc.wait(timeout=WAIT)
        assert code == 128 + sig
        wait_for(lambda: carrying(mark) == [], "the command's child to be killed")
        if not hung_up:
            tui.reader.join(timeout=WAIT)
            screen = bytes(tui.out)
            assert b"\x1b[?1049l" in screen  # the alternate screen was left: terminal restored
            assert b"Traceback" not in screen
            session = latest_session(project)
            assert f"Session {session.id} saved".encode() in screen
        path = latest_session(project).path
        loaded = load_transcript(path)
        assert not loaded.problems and not loaded.truncated_tail
        last = loaded.messages[-1]
        assert last.role == "user" and last.interrupted  # the call has its result
        Transcript.reopen(path)[0].close()  # closed: the lock is free
    finally:
        tui.close()


def test_a_sigcont_without_a_suspend_does_not_restart_the_terminal_mode(tmp_path):
    """A closed terminal window sends SIGHUP and SIGCONT. Textual took the SIGCONT for a resume
    after Ctrl+Z and started its terminal mode again (the alternate screen entered a second
    time, a second output thread) behind the shutdown's back, which then waited for ever on the
    thread it replaced: one orphaned larik per closed window (seen in tmux)."""
    project = tmp_path / "proj"
    project.mkdir()
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"turns": [{"text": "hello there"}]}))
    tui = Tui(["-m", f"scripted/{script}"], project)
    try:
        wait_for(lambda: b"/help" in tui.out, "the TUI to start")
        time.sleep(0.5)
        assert tui.out.count(b"\x1b[?1049h") == 1  # the alternate screen, entered once
        tui.proc.send_signal(signal.SIGCONT)
        time.sleep(1.0)
        tui.type("hi\r")
        wait_for(lambda: b"hello there" in tui.out, "the reply")
        assert tui.out.count(b"\x1b[?1049h") == 1  # not entered again
        tui.proc.send_signal(signal.SIGTERM)
        assert tui.proc.wait(timeout=WAIT) == 128 + signal.SIGTERM
    finally:
        tui.close()


async def test_a_shutdown_stuck_after_the_session_closed_still_ends_the_process(monkeypatch):
    """Whatever holds Textual's shutdown (a terminal that is gone), the process ends once the
    session is closed: 128 + the signal, after EXIT_GRACE."""
    import asyncio

    from larik.tui import signals

    exits: list[int] = []
    monkeypatch.setattr(signals, "EXIT_GRACE", 0.05)
    monkeypatch.setattr(signals.os, "_exit", exits.append)

    class App:
        closed = False
        is_headless = False  # a real terminal's app

        async def quit_app(self, reason: str, *, wait: bool = False) -> None:
            self.closed = reason == "other" and wait  # returns once the closing is over

    app, quitter = App(), signals.QuitOnSignals()
    quitter.signum = signal.SIGHUP
    await quitter._quit_app(app)
    assert app.closed and exits == []  # the session first; the process is given its time
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while not exits and loop.time() < deadline:  # EXIT_GRACE after the closing
        await asyncio.sleep(0.01)
    assert exits == [128 + signal.SIGHUP]
    quitter.signum, exits[:] = signal.SIGTERM, []
    await quitter._quit_app(app)
    quitter.disarm()  # the run ended in time: nothing is forced
    await asyncio.sleep(6 * signals.EXIT_GRACE)  # a negative: its grace, six times over
    assert exits == []


def test_print_on_exit_leaves_the_conversation_in_the_terminals_scrollback(tmp_path):
    from larik.config import user_config_path

    project = tmp_path / "proj"
    project.mkdir()
    script = tmp_path / "s.json"
    call = {"name": "glob", "input": {"pattern": "*.txt"}}
    turns = [{"tool_calls": [call]}, {"text": "There is one text file, notes.txt."}]
    script.write_text(json.dumps({"turns": turns}))
    (project / "notes.txt").write_text("x\n")
    config = user_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[tui]\nprint_on_exit = true\n")
    tui = Tui(["-m", f"scripted/{script}", "which text files are there"], project)
    try:

        def replied() -> bool:
            session = latest_session(project)
            messages = load_transcript(session.path).messages if session else []
            return any("one text file" in m.text() for m in messages)

        wait_for(replied, "the reply")
        tui.proc.send_signal(signal.SIGTERM)  # quits as /exit does (tested above)
        assert tui.proc.wait(timeout=WAIT) == 128 + signal.SIGTERM
        tui.reader.join(timeout=WAIT)
        after = bytes(tui.out).rsplit(b"\x1b[?1049l", 1)[1].decode()  # after the full screen
    finally:
        tui.close()
    import re

    after = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", after)  # the terminal's mode resets
    lines = after.replace("\r\n", "\n").splitlines()
    assert "› which text files are there" in lines
    call = next(i for i, line in enumerate(lines) if line.startswith("▌ glob"))
    assert (
        '"*.txt"' in lines[call]
        and lines[call + 1 : call + 3] == ["  ↳ glob:", "  notes.txt"]
        and "There is one text file, notes.txt." in lines
    )
    assert after.index("There is one text file") < after.index("saved. Resume it with")
