"""The client as the tools' editor: file tools through fs/*, bash in the client's terminal —
and Larik's rules (the project root, the deny rules, the bounds) applied before the client is
asked, whatever it answers."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import acp
from acp.schema import ReadTextFileResponse

from larik.agent.sessions import find_session
from larik.agent.transcript import load_transcript

from .client import WAIT, Recorder, env, larik_acp, script, until


def _results(project: Path, session_id: str) -> list:
    messages = load_transcript(find_session(project, session_id)).messages
    return [b for m in messages for b in m.blocks if b.type == "tool_result"]


async def _prompt(project: Path, rec: Recorder, model: str, *args: str, text: str = "go"):
    async with larik_acp(project, rec, "-m", model, *args) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=rec.capabilities())
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        out = await conn.prompt(session_id=sid, prompt=[acp.text_block(text)])
    return sid, out


def _call(name: str, **args: object) -> dict:
    return {"tool_calls": [{"name": name, "input": args}]}


async def test_an_edit_reads_the_editors_buffer_and_writes_through_the_editor(project, tmp_path):
    app = project / "app.py"
    app.write_text("x = 1\n")
    buffer = "x = 1  # unsaved in the editor\n"
    rec = Recorder(files={str(app): buffer})
    model = script(
        tmp_path / "m.json",
        _call("read_file", path="app.py"),
        _call(
            "edit_file", path="app.py", old_string="x = 1  # unsaved", new_string="x = 2  # unsaved"
        ),
        {"text": "changed"},
    )
    sid, out = await _prompt(project, rec, model, "--permission-mode", "edits")
    assert out.stop_reason == "end_turn"
    assert rec.reads and all(p == str(app) for p in rec.reads)
    assert rec.writes == [(str(app), "x = 2  # unsaved in the editor\n")]
    assert app.read_text() == "x = 1\n"  # the editor writes its buffer; Larik did not
    read, edit = _results(project, sid)
    assert "unsaved in the editor" in read.content and not edit.is_error
    [start] = [u for u in rec.of("tool_call") if u.kind == "edit"]
    assert start.locations[0].path == str(app)
    assert start.content[0].type == "diff" and start.content[0].new_text == "x = 2  # unsaved"


async def test_the_project_root_and_deny_rules_hold_before_the_editor_is_asked(project, tmp_path):
    home = Path(env()["LARIK_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[permissions]\ndeny = ["read_file: secret.txt"]\n')
    (project / "secret.txt").write_text("the real secret\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("not the project's\n")
    lying = "a lying editor's content"
    rec = Recorder(files={}, read_reply=lambda p: ReadTextFileResponse(content=lying))
    model = script(
        tmp_path / "m.json",
        _call("read_file", path="secret.txt"),
        _call("read_file", path=str(outside)),
        _call("read_file", path="../outside.txt"),
        {"text": "done"},
    )
    sid, _ = await _prompt(project, rec, model, "--permission-mode", "yolo")
    assert rec.reads == []  # the editor was never asked
    results = _results(project, sid)
    assert len(results) == 3 and all(r.is_error and "denied" in r.content for r in results)
    assert not any(lying in r.content for r in results)


async def test_what_the_editor_answers_is_bounded_and_its_errors_are_tool_errors(project, tmp_path):
    (project / "big.txt").write_text("small on disk\n")
    (project / "gone.txt").write_text("on disk\n")

    def reply(path: str) -> ReadTextFileResponse:
        if path.endswith("big.txt"):
            return ReadTextFileResponse(content="y" * (8 << 20 + 1))
        raise acp.RequestError(-32603, "the buffer was closed")

    rec = Recorder(files={}, read_reply=reply)
    model = script(
        tmp_path / "m.json",
        _call("read_file", path="big.txt"),
        _call("read_file", path="gone.txt"),
        {"text": "done"},
    )
    sid, out = await _prompt(project, rec, model)
    assert out.stop_reason == "end_turn"  # the session goes on
    big, gone = _results(project, sid)
    assert big.is_error and "the limit is" in big.content and "yyyy" not in big.content
    assert gone.is_error and "the buffer was closed" in gone.content


async def test_bash_runs_in_the_editors_terminal_sandboxed_and_without_credentials(
    project, tmp_path, monkeypatch
):
    monkeypatch.setenv("MY_SERVICE_TOKEN", "do-not-leak")
    rec = Recorder(terminals=True)
    model = script(
        tmp_path / "m.json", _call("bash", command="echo hi from the editor"), {"text": "done"}
    )
    sid, out = await _prompt(project, rec, model, "--permission-mode", "yolo")
    assert out.stop_reason == "end_turn"
    [(command, args)] = rec.commands
    assert os.path.isabs(command) and os.path.basename(command) == "env" and args[0] == "-i"
    assert args[-3:] == ["bash", "-c", "echo hi from the editor"]
    assert not any("do-not-leak" in a for a in args)
    terminal = [
        u for u in rec.of("tool_call_update") if u.content and u.content[0].type == "terminal"
    ]
    assert terminal  # the call embeds the editor's terminal
    [result] = _results(project, sid)
    assert "hi from the editor" in result.content and "[exit code 0]" in result.content


async def test_cancel_kills_the_command_in_the_editors_terminal(project, tmp_path):
    rec = Recorder(terminals=True)
    model = script(tmp_path / "m.json", _call("bash", command="sleep 60"), {"text": "after"})
    async with larik_acp(project, rec, "-m", model, "--permission-mode", "yolo") as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=rec.capabilities())
        sid = (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("go")]))
        await until(lambda: rec.commands, "the command to start")
        await conn.cancel(session_id=sid)
        out = await asyncio.wait_for(turn, WAIT)
        await until(lambda: rec.killed, "the terminal to be killed")
    assert out.stop_reason == "cancelled"
    [result] = _results(project, sid)
    assert result.is_error and "interrupted" in result.content
    json.dumps(result.content)  # a valid transcript record
