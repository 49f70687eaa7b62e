"""Print mode as a real process: stop signals, two writers of one session, bytes that are not
UTF-8. Each test starts `python -m larik.cli` on a scripted model and checks what is left
behind: the exit code, the result object, the transcript, and no orphaned commands."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from larik.agent.sessions import find_session, latest_session
from larik.agent.transcript import Transcript, load_transcript
from tests.patience import WAIT

from .procs import carrying
from .test_printmode import larik, write_script


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.chdir(root)  # for the in-process larik()
    return root


def start(project: Path, *argv: str, stdin: int | None = subprocess.DEVNULL) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "larik.cli", *argv],
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=project,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def wait_for(check, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.02)


def catches(pid: int, sig: int) -> bool:
    """Whether process ``pid`` has a handler for ``sig`` (Linux: SigCgt in /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = int(next(x for x in status.splitlines() if x.startswith("SigCgt:")).split()[1], 16)
    return bool(mask & (1 << (sig - 1)))


needs_proc = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")


@needs_proc
@pytest.mark.parametrize(
    "sigs,reason",
    [
        ((signal.SIGTERM,), "terminated"),
        ((signal.SIGHUP,), "terminated"),
        ((signal.SIGINT,), "interrupted"),
        ((signal.SIGINT, signal.SIGINT), "interrupted"),  # a quick double Ctrl+C
        ((signal.SIGTERM, signal.SIGTERM, signal.SIGHUP), "terminated"),
    ],
    ids=["SIGTERM", "SIGHUP", "SIGINT", "SIGINT twice", "SIGTERM twice then SIGHUP"],
)
def test_a_stop_signal_ends_the_run_like_ctrl_c_and_kills_running_commands(
    project, tmp_path, sigs, reason, mark
):
    pidfile = project / "sleep.pid"
    command = f"sleep 300 & echo $! > {pidfile.name}; wait"
    model = write_script(
        tmp_path / "s.json",
        {"text": "Starting.", "tool_calls": [{"name": "bash", "input": {"command": command}}]},
        {"text": "never reached"},
    )
    argv = ["-p", "run it", "-m", model, "--permission-mode", "yolo"]
    proc = start(project, *argv, "--output-format", "stream-json")
    wait_for(lambda: pidfile.exists() and pidfile.read_text().strip(), "the command to start")
    assert len(carrying(mark)) >= 3  # larik, the shell and sleep (its pid is the sandbox's)
    for sig in sigs:
        proc.send_signal(sig)
    out, err = proc.communicate(timeout=WAIT)
    sig = proc.returncode - 128  # the first delivered (pending ones come lowest number first)
    assert sig in sigs, err
    assert "Traceback" not in err and err.count("\n") == 1
    assert "session was saved" in err
    result = json.loads(out.splitlines()[-1])
    assert result["type"] == "result" and result["ok"] is False
    assert result["stop_reason"] == reason and result["signal"] == signal.Signals(sig).name
    # a reader saw the call start; it sees it end (it was left hanging before the result)
    events = [json.loads(line) for line in out.splitlines()]
    (start_ev,) = [e for e in events if e["type"] == "tool_start"]
    (end,) = [e for e in events if e["type"] == "tool_end"]
    assert end["tool_id"] == start_ev["tool_id"] and end["is_error"] is True
    assert end["data"] == {"interrupted": True} and "interrupted" in end["text"]
    wait_for(lambda: carrying(mark) == [], "the command's child to be killed")
    # the transcript is whole, the call answered, and the session free to resume
    path = latest_session(project).path
    loaded = load_transcript(path)
    assert not loaded.problems and not loaded.truncated_tail
    last = loaded.messages[-1]
    assert last.role == "user" and last.interrupted and last.blocks[0].is_error
    Transcript.reopen(path)[0].close()


@needs_proc
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_while_reading_the_prompt_still_writes_a_result(project, tmp_path, sig):
    model = write_script(tmp_path / "s.json", {"text": "x"})
    proc = start(project, "-p", "-", "-m", model, "--output-format", "json", stdin=subprocess.PIPE)
    wait_for(lambda: catches(proc.pid, sig), "larik to handle the signal")
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 128 + sig
    assert err == f"larik: terminated ({signal.Signals(sig).name}); nothing saved\n"
    result = json.loads(out)
    assert result["stop_reason"] == "terminated" and result["session_id"] is None
    assert latest_session(project) is None


def test_text_mode_sigterm_says_so_on_stderr_and_exits_143(project, tmp_path):
    model = write_script(tmp_path / "s.json", {"text": "word " * 400, "hold": 2})
    proc = start(project, "-p", "talk", "-m", model)
    wait_for(lambda: latest_session(project) is not None, "the session to start")
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 143 and out == ""
    assert err.startswith("larik: terminated (SIGTERM); the session was saved")
    assert load_transcript(latest_session(project).path).messages[0].text() == "talk"


def test_two_runs_continuing_at_once_never_share_a_transcript(project, tmp_path):
    code, out, _ = larik(
        "-p", "one", "-m", write_script(tmp_path / "0.json", {"text": "first"}),
        "--output-format", "json",
    )  # fmt: skip
    sid = json.loads(out)["session_id"]
    hold = {"name": "bash", "input": {"command": "while [ ! -e go ]; do sleep 0.05; done"}}
    a_model = write_script(tmp_path / "a.json", {"tool_calls": [hold]}, {"text": "A done"})
    a = start(
        project, "-p", "two", "-c", "-m", a_model, "--permission-mode", "yolo",
        "--output-format", "stream-json",
    )  # fmt: skip
    assert a.stdout is not None
    for line in a.stdout:
        if '"tool_start"' in line:
            break  # A holds the session and is in the middle of its turn
    b_model = write_script(tmp_path / "b.json", {"text": "B done"})
    b = subprocess.run(
        [sys.executable, "-m", "larik.cli", "-p", "three", "-c", "-m", b_model,
         "--output-format", "json"],
        capture_output=True, text=True, cwd=project, timeout=WAIT,
    )  # fmt: skip
    assert b.returncode == 0, b.stderr
    assert b.stderr == (
        f"larik: the latest session {sid} is in use by another larik; starting a new session\n"
    )
    b_sid = json.loads(b.stdout)["session_id"]
    assert b_sid != sid
    c = subprocess.run(
        [sys.executable, "-m", "larik.cli", "-p", "four", "--resume", sid, "-m", b_model],
        capture_output=True, text=True, cwd=project, timeout=WAIT,
    )  # fmt: skip
    assert c.returncode == 2 and c.stdout == ""
    assert c.stderr == (
        f"larik: session {sid} is in use: another larik is writing to it "
        "(wait for it to finish, or start a new session)\n"
    )
    (project / "go").touch()
    rest, err = a.communicate(timeout=WAIT)
    assert a.returncode == 0, err
    texts = [m.text() for m in load_transcript(find_session(project, sid)).messages]
    assert texts[:2] == ["one", "first"] and texts[2] == "two" and texts[-1] == "A done"
    assert "three" not in texts and "four" not in texts and "B done" not in texts
    b_texts = [m.text() for m in load_transcript(find_session(project, b_sid)).messages]
    assert b_texts == ["three", "B done"]


LATIN1_DIFF = (
    b"diff --git a/menu.txt b/menu.txt\n--- a/menu.txt\n+++ b/menu.txt\n"
    b"@@ -1 +1 @@\n-caf\xe9 cr\xe8me\n+caf\xe9 cr\xe8me br\xfbl\xe9e\n"
)


def test_a_latin1_diff_piped_to_stdin_reaches_the_model_as_escapes(project, tmp_path):
    """`git diff | larik -p -` on a Latin-1 file."""
    model = write_script(tmp_path / "s.json", {"text": "a dessert"})
    proc = subprocess.run(
        [sys.executable, "-m", "larik.cli", "-p", "-", "-m", model, "--output-format", "json"],
        input=LATIN1_DIFF,
        capture_output=True,
        cwd=project,
        timeout=WAIT,
    )
    err = proc.stderr.decode()
    assert proc.returncode == 0, err
    assert err == "larik: warning: the prompt is not valid UTF-8: 6 bytes kept as \\xNN escapes\n"
    assert json.loads(proc.stdout)["text"] == "a dessert"
    prompt = load_transcript(latest_session(project).path).messages[0].text()
    assert "+caf\\xe9 cr\\xe8me br\\xfbl\\xe9e" in prompt


def test_a_prompt_argument_with_bytes_that_are_not_utf8_is_kept_as_escapes(project, tmp_path):
    model = write_script(tmp_path / "s.json", {"text": "ok"})
    proc = subprocess.run(
        [sys.executable.encode(), b"-m", b"larik.cli", b"-p", b"explain caf\xe9", b"-m",
         model.encode()],
        capture_output=True, cwd=project, timeout=WAIT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b"ok\n" and b"1 byte kept" in proc.stderr
    assert load_transcript(latest_session(project).path).messages[0].text() == "explain caf\\xe9"


def test_stream_json_shows_a_commands_output_while_it_runs(project, tmp_path):
    """``tool_output`` events come as the command prints (here before it may go on), then the
    call's ``tool_end`` with the whole result; the event names the call, not its input."""
    command = "echo first; while [ ! -e go ]; do sleep 0.01; done; echo second"
    call = {"name": "bash", "input": {"command": command}, "id": "b1"}
    model = write_script(tmp_path / "s.json", {"tool_calls": [call]}, {"text": "ok"})
    proc = start(
        project, "-p", "run", "-m", model, "--permission-mode", "yolo",
        "--output-format", "stream-json",
    )  # fmt: skip
    assert proc.stdout is not None
    events = []
    for line in proc.stdout:
        events.append(json.loads(line))
        if events[-1]["type"] == "tool_output" and "first" in events[-1]["text"]:
            assert not [e for e in events if e["type"] == "tool_end"]  # still running
            (project / "go").touch()  # now it may finish
            break
    else:
        raise AssertionError(f"no tool_output before the stream ended: {events}")
    out, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 0, err
    events += [json.loads(line) for line in out.splitlines()]
    outputs = [e for e in events if e["type"] == "tool_output"]
    assert outputs[0] == {"type": "tool_output", "text": "first\n", "tool_id": "b1",
                          "tool_name": "bash"}  # fmt: skip
    assert "".join(e["text"] for e in outputs) == "first\nsecond\n"
    (end,) = [e for e in events if e["type"] == "tool_end"]
    assert events.index(end) > events.index(outputs[-1])
    assert end["text"].startswith("first\nsecond") and events[-1]["type"] == "result"
