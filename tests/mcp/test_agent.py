"""MCP tools in the agent: a scripted model calls mcp__NAME__TOOL, in print mode, against a real
server; permissions, deferred schemas and the tool search."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from larik.agent.transcript import load_transcript
from larik.config import user_config_path
from larik.printmode import PrintOptions, run_print
from tests.mcp.conftest import SCRIPT, in_project
from tests.patience import WAIT


def write_user(text: str) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def server_toml(name: str = "t", mode: str = "ok", extra: str = "") -> str:
    args = json.dumps([str(SCRIPT), mode])
    return f"[mcp.servers.{name}]\ncommand = {json.dumps(sys.executable)}\nargs = {args}\n{extra}"


def script(path: Path, *turns: dict) -> str:
    path.write_text(json.dumps({"turns": list(turns)}))
    return f"scripted/{path}"


def run(project: Path, model: str, *, mode: str = "ask", fmt: str = "stream-json", **kw):
    import io

    out, err = io.StringIO(), io.StringIO()
    opts = PrintOptions(
        prompt="go", cwd=project, model=model, permission_mode=mode, output_format=fmt, **kw
    )
    code = run_print(opts, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def tool_results(out: str) -> list[dict]:
    results = []
    for line in out.splitlines():
        ev = json.loads(line)
        if ev["type"] == "message" and ev["message"]["role"] == "user":
            results += [b for b in ev["message"]["blocks"] if b["type"] == "tool_result"]
    return results


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


def test_a_scripted_model_gets_the_real_servers_result_into_the_transcript(tmp_path, project):
    write_user(server_toml())
    model = script(
        tmp_path / "s.json",
        {"tool_calls": [{"name": "mcp__t__echo", "input": {"text": "hello mcp"}}]},
        {"text": "done"},
    )
    code, out, err = run(project, model)
    assert code == 0, err
    [result] = tool_results(out)
    assert result["content"] == "echo: hello mcp" and not result.get("is_error")
    session = json.loads(out.splitlines()[-1])["session_id"]
    path = next(user_config_path().parent.rglob(f"{session}.jsonl"))
    blocks = [b for m in load_transcript(path).messages for b in m.blocks]
    assert any(b.type == "tool_result" and b.content == "echo: hello mcp" for b in blocks)


@pytest.mark.parametrize(
    ("mode", "tool", "args", "allowed"),
    [
        ("ask", "mcp__t__echo", {"text": "x"}, True),  # readOnlyHint: runs in ask mode
        ("ask", "mcp__t__write_note", {"path": "a", "text": "b"}, False),
        ("edits", "mcp__t__write_note", {"path": "a", "text": "b"}, False),
        ("yolo", "mcp__t__write_note", {"path": "a", "text": "b"}, True),
    ],
)
def test_permission_modes_apply_with_read_only_hints(tmp_path, project, mode, tool, args, allowed):
    write_user(server_toml())
    model = script(
        tmp_path / "s.json", {"tool_calls": [{"name": tool, "input": args}]}, {"text": "done"}
    )
    code, out, err = run(project, model, mode=mode)
    [result] = tool_results(out)
    assert result.get("is_error", False) is not allowed, result
    if not allowed:
        assert "permission denied" in result["content"]
        assert "'mcp__t__write_note'" in result["content"]  # the rule that would allow it


def test_allow_and_deny_rules_name_mcp_tools(tmp_path, project):
    write_user('[permissions]\nallow = ["mcp__t__*"]\ndeny = ["mcp__t__echo"]\n' + server_toml())
    model = script(
        tmp_path / "s.json",
        {
            "tool_calls": [
                {"name": "mcp__t__write_note", "input": {"path": "a", "text": "b"}},
                {"name": "mcp__t__echo", "input": {"text": "x"}},
            ]
        },
        {"text": "done"},
    )
    code, out, err = run(project, model)
    write, echo = tool_results(out)
    assert not write.get("is_error") and write["content"].startswith("wrote 1")
    assert echo["is_error"] and "denied by the rule 'mcp__t__echo'" in echo["content"]


def test_a_tool_error_and_a_dead_server_reach_the_model_as_error_results(tmp_path, project):
    write_user(server_toml())
    model = script(
        tmp_path / "s.json",
        {"tool_calls": [{"name": "mcp__t__fail", "input": {"reason": "disk full"}}]},
        {"tool_calls": [{"name": "mcp__t__die", "input": {}}]},
        {"text": "done"},
    )
    code, out, err = run(project, model, mode="yolo")
    assert code == 0, err
    failed, died = tool_results(out)
    assert failed["is_error"]
    assert died["is_error"] and "MCP server 't'" in died["content"]


def test_a_server_that_fails_to_start_is_a_warning_and_the_task_goes_on(tmp_path, project):
    write_user(server_toml("broken", "exit"))
    model = script(tmp_path / "s.json", {"text": "fine without it"})
    code, out, err = run(project, model, fmt="text")
    assert code == 0 and out.strip() == "fine without it"
    assert "larik: warning: MCP server 'broken' failed" in err
    assert "fatal: missing GITHUB_TOKEN" in err


def test_an_untrusted_projects_mcp_json_does_not_start_in_print_mode(tmp_path, project):
    mark = project / "ran"  # in the project: trusted, the server runs in the OS sandbox
    (project / ".git").mkdir()
    servers = {
        "evil": {
            "command": sys.executable,
            "args": [str(in_project(project))],
            "env": {"MCP_TEST_MARK": str(mark)},
        }
    }
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    model = script(
        tmp_path / "s.json",
        {"tool_calls": [{"name": "mcp__evil__echo", "input": {"text": "x"}}]},
        {"text": "done"},
    )
    code, out, err = run(project, model, mode="yolo")
    assert not mark.exists()
    assert "ignored (untrusted project)" in err and ".mcp.json starts MCP servers" in err
    [result] = tool_results(out)
    assert result["is_error"] and "unknown tool 'mcp__evil__echo'" in result["content"]
    model = script(
        tmp_path / "s2.json",
        {"tool_calls": [{"name": "mcp__evil__echo", "input": {"text": "x"}}]},
        {"text": "done"},
    )
    code, out, err = run(project, model, mode="yolo", trust_project=True)
    assert mark.exists()
    [result] = tool_results(out)
    assert result["content"] == "echo: x"


def test_a_server_echoing_its_token_does_not_send_it_to_the_model(tmp_path, project, monkeypatch):
    from larik.llm import secrets

    monkeypatch.setenv("TEST_MCP_TOKEN", "tok-0123456789abcdef")
    write_user(server_toml(extra='env = { GITHUB_TOKEN = "${TEST_MCP_TOKEN}" }\n'))
    model = script(
        tmp_path / "s.json",
        {"tool_calls": [{"name": "mcp__t__env", "input": {"name": "GITHUB_TOKEN"}}]},
        {"text": "done"},
    )
    try:
        code, out, err = run(project, model, mode="yolo")
        [result] = tool_results(out)
        assert result["content"] == "***"  # the server had the value; the model sees a mask
        assert "tok-0123456789abcdef" not in out
    finally:
        secrets.forget_all()


def test_ctrl_c_during_a_call_leaves_no_server_running(tmp_path, project, mark):
    import signal
    import subprocess
    import time

    from tests.procs import MARK_VARIABLE, carrying

    # the server runs in the OS sandbox: the project is writable, and the pids it writes are its
    # pid namespace's, so its processes are found by the mark in their environment
    pidfile = project / "pids"
    env = f'env = {{ MCP_TEST_PIDFILE = "{pidfile}", MCP_TEST_CHILD = "1", {MARK_VARIABLE} = "{mark}" }}\n'
    write_user(server_toml(extra=env))
    model = script(
        tmp_path / "s.json",
        {"tool_calls": [{"name": "mcp__t__slow", "input": {"seconds": 60}}]},
        {"text": "done"},
    )
    argv = [sys.executable, "-m", "larik.cli", "-p", "go", "-m", model]
    argv += ["--permission-mode", "yolo", "--output-format", "stream-json"]
    proc = subprocess.Popen(
        argv, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # until the call is under way
            if json.loads(line)["type"] == "tool_start":
                break
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    pids = [int(p) for p in pidfile.read_text().split()]
    assert len(pids) == 2  # the server and the child it started
    deadline = time.monotonic() + WAIT
    while carrying(mark) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not carrying(mark)
