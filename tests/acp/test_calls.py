"""How a tool call looks in the editor: an overwrite as an overwrite, a call cut short by a
cancel with its final status, the commands advertised when they change — ``larik acp`` as a
real subprocess, the scripted model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import acp

from larik.agent.sessions import find_session

from .client import WAIT, Recorder, larik_acp, script, until


def _call(name: str, **args: object) -> dict:
    return {"tool_calls": [{"name": name, "input": args}]}


async def _open(conn, rec: Recorder, project: Path) -> str:
    await conn.initialize(protocol_version=1, client_capabilities=rec.capabilities())
    return (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id


def _diffs(rec: Recorder, kind: str) -> list:
    return [c for u in rec.of(kind) for c in u.content or [] if c.type == "diff"]


def _records(project: Path, session_id: str) -> list[dict]:
    lines = find_session(project, session_id).read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


async def test_an_overwrite_is_sent_with_the_text_it_replaced_and_a_new_file_as_new(
    project, tmp_path
):
    (project / "app.py").write_text("x = 1  # the old line\n")
    model = script(
        tmp_path / "m.json",
        _call("read_file", path="app.py"),
        _call("write_file", path="app.py", content="x = 2\n"),
        _call("write_file", path="new.py", content="y = 1\n"),
        {"text": "done"},
    )
    rec = Recorder()
    async with larik_acp(project, rec, "-m", model, "--permission-mode", "edits") as (conn, _):
        sid = await _open(conn, rec, project)
        out = await conn.prompt(session_id=sid, prompt=[acp.text_block("rewrite app.py")])
    assert out.stop_reason == "end_turn"
    assert (project / "app.py").read_text() == "x = 2\n"
    # no diff before the tool ran: what it replaces is known only to the tool
    assert _diffs(rec, "tool_call") == []
    overwrite, created = _diffs(rec, "tool_call_update")
    assert overwrite.path == str(project / "app.py") and overwrite.new_text == "x = 2\n"
    assert overwrite.old_text == "x = 1  # the old line\n"  # an overwrite, not a new file
    assert created.path == str(project / "new.py") and created.old_text is None
    # the replaced text reached the editor only: the transcript's record keeps no copy
    ends = [r for r in _records(project, sid) if r.get("kind") == "tool_end"]
    assert ends and all("previous" not in r["data"] for r in ends)


async def test_an_overwrite_too_big_to_show_says_so_instead_of_posing_as_a_new_file(
    project, tmp_path
):
    big = "".join(f"line {i}\n" for i in range(30_000))  # 318,890 characters: over the bound
    (project / "big.txt").write_text(big)
    model = script(
        tmp_path / "m.json",
        _call("read_file", path="big.txt", limit=5),
        _call("write_file", path="big.txt", content="short now\n"),
        {"text": "done"},
    )
    rec = Recorder()
    async with larik_acp(project, rec, "-m", model, "--permission-mode", "edits") as (conn, _):
        sid = await _open(conn, rec, project)
        await conn.prompt(session_id=sid, prompt=[acp.text_block("shrink it")])
    assert (project / "big.txt").read_text() == "short now\n"
    assert _diffs(rec, "tool_call_update") == []  # no oldText-less diff: not a "new file"
    said = [c.content.text for u in rec.of("tool_call_update") for c in u.content or []]
    assert f"it replaced {len(big):,} characters: too big to show as a diff" in said


async def test_a_call_cancelled_while_it_runs_gets_its_final_status(project, tmp_path):
    running = _call("bash", command="touch started && sleep 60")
    model = script(tmp_path / "m.json", running, {"text": "after"})
    rec = Recorder()
    async with larik_acp(project, rec, "-m", model, "--permission-mode", "yolo") as (conn, _):
        sid = await _open(conn, rec, project)
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("go")]))
        [start] = await until(lambda: rec.of("tool_call"), "the call to start")
        await until((project / "started").exists, "the command to run")
        await conn.cancel(session_id=sid)
        out = await asyncio.wait_for(turn, WAIT)
    assert out.stop_reason == "cancelled"
    last = [u for u in rec.of("tool_call_update") if u.tool_call_id == start.tool_call_id][-1]
    assert last.status == "failed"  # ACP v1's final status for a call that did not finish
    assert "cancelled" in last.content[0].content.text


async def test_the_commands_are_advertised_when_they_change_not_after_every_turn(project, tmp_path):
    model = script(tmp_path / "m.json", {"text": "one"}, {"text": "two"}, {"text": "three"})
    rec = Recorder()
    async with larik_acp(project, rec, "-m", model) as (conn, _):
        sid = await _open(conn, rec, project)
        await conn.prompt(session_id=sid, prompt=[acp.text_block("first")])
        await conn.prompt(session_id=sid, prompt=[acp.text_block("second")])
        assert len(rec.of("available_commands_update")) == 1  # at the start only
        commands = project / ".larik" / "commands"
        commands.mkdir(parents=True)
        (commands / "review.md").write_text("---\ndescription: review\n---\nReview $ARGUMENTS\n")
        await conn.prompt(session_id=sid, prompt=[acp.text_block("/review app.py")])
    first, changed = rec.of("available_commands_update")
    assert "review" not in [c.name for c in first.available_commands]
    assert "review" in [c.name for c in changed.available_commands]


async def test_a_refused_call_names_the_mode_that_would_allow_it_as_the_editor_shows_it(
    project, tmp_path
):
    """The permission policy's remedy in an editor's words (issue 44 item 5): the mode's name
    as the editor's mode list shows it, not print mode's flag nor the TUI's key."""
    (project / "calc.py").write_text("a - b\n")
    edit = _call("edit_file", path="calc.py", old_string="a - b", new_string="a + b")
    model = script(tmp_path / "m.json", edit, {"text": "1. change calc.py"})
    rec = Recorder()
    async with larik_acp(project, rec, "-m", model, "--permission-mode", "plan") as (conn, _):
        sid = await _open(conn, rec, project)
        await conn.prompt(session_id=sid, prompt=[acp.text_block("fix it")])
    assert (project / "calc.py").read_text() == "a - b\n"
    [refused] = [u for u in rec.of("tool_call_update") if u.status == "failed"]
    text = refused.content[0].content.text
    assert text.endswith("To allow file changes, switch to the Edits mode."), text
    assert "--permission-mode" not in text and "Shift+Tab" not in text
