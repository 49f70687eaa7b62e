"""Print mode: a failing hook is a warning line on stderr (a notice event in stream-json), the run
goes on; a blocking hook's reason reaches the model."""

from __future__ import annotations

import json

import pytest

from larik.config import user_config_path

from ..test_printmode import larik, write_script


@pytest.fixture
def here(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


CALL = {"tool_calls": [{"name": "bash", "input": {"command": "echo ran"}}]}


def hooks(text: str) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_failing_hook_is_a_warning_on_stderr_and_the_run_goes_on(here, tmp_path):
    hooks('[[hooks.PreToolUse]]\ncommand = "echo no config >&2; exit 1"\n')
    model = write_script(tmp_path / "s.json", CALL, {"text": "finished"})
    code, out, err = larik("-p", "go", "-m", model, "--permission-mode", "yolo")
    assert code == 0 and out == "finished\n"
    assert "larik: warning: PreToolUse hook `echo no config >&2; exit 1`" in err
    assert "failed (exit 1): no config" in err


def test_stream_json_carries_the_hook_notice(here, tmp_path):
    hooks('[[hooks.PreToolUse]]\ncommand = "sleep 30"\ntimeout = 0.3\n')
    model = write_script(tmp_path / "s.json", CALL, {"text": "finished"})
    code, out, _ = larik(
        "-p", "go", "-m", model, "--permission-mode", "yolo", "--output-format", "stream-json"
    )
    events = [json.loads(line) for line in out.splitlines()]
    notices = [e for e in events if e["type"] == "notice"]
    assert code == 0 and any("timed out after 0.3 s" in n["text"] for n in notices)
    assert notices[0]["level"] == "warning"


def test_a_blocking_hook_reaches_the_model_in_print_mode(here, tmp_path):
    hooks('[[hooks.PreToolUse]]\nmatcher = "Bash"\ncommand = "echo not today >&2; exit 2"\n')
    model = write_script(tmp_path / "s.json", CALL, {"text": "finished"})
    code, out, _ = larik(
        "-p", "go", "-m", model, "--permission-mode", "yolo", "--output-format", "stream-json"
    )
    ends = [json.loads(line) for line in out.splitlines() if '"tool_end"' in line]
    assert ends[0]["is_error"] and "blocked by a PreToolUse hook: not today" in ends[0]["text"]


def test_session_end_runs_at_the_end_of_a_print_run(here, tmp_path):
    marker = here / "ended.json"  # the hook runs in the OS sandbox: the project is writable
    hooks(f'[[hooks.SessionEnd]]\ncommand = "cat > {marker}; echo cleaned up >&2; exit 1"\n')
    model = write_script(tmp_path / "s.json", {"text": "finished"})
    code, out, err = larik("-p", "go", "-m", model, "--output-format", "stream-json")
    event = json.loads(marker.read_text())
    assert event["hook_event_name"] == "SessionEnd" and event["reason"] == "other"
    events = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and events[-1]["type"] == "result"  # the result stays the last line
    assert any(e["type"] == "notice" and "cleaned up" in e["text"] for e in events)
