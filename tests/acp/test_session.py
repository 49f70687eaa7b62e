"""Sessions over ACP: modes and the model selector mid-session, load (the history replayed),
list and resume, prompts with images and files, the slash commands offered."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path

import acp
import pytest
from acp.schema import EmbeddedResourceContentBlock, TextResourceContents

from larik.agent.sessions import find_session
from larik.agent.transcript import load_transcript
from larik.llm.types import Request

from .client import WAIT, Recorder, env, larik_acp, script, until

ECHO = {"tool_calls": [{"name": "bash", "input": {"command": "echo hello from the tool"}}]}
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
    )
).decode()


def _messages(project: Path, sid: str) -> list:
    return load_transcript(find_session(project, sid)).messages


async def _open(conn, rec: Recorder, project: Path):
    await conn.initialize(protocol_version=1, client_capabilities=rec.capabilities())
    return await conn.new_session(cwd=str(project), mcp_servers=[])


def _option(options: list, option_id: str):
    return next(o for o in options if o.id == option_id)


async def test_modes_are_larik_permission_modes_and_yolo_asks_nothing(project, tmp_path):
    model = script(tmp_path / "m.json", ECHO, {"text": "done"})
    rec = Recorder()  # no answers: a question would be rejected
    async with larik_acp(project, rec, "-m", model) as (conn, _):
        new = await _open(conn, rec, project)
        assert new.modes.current_mode_id == "ask"
        assert [m.id for m in new.modes.available_modes] == ["ask", "edits", "yolo", "plan"]
        await conn.set_session_mode(session_id=new.session_id, mode_id="yolo")
        await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("greet")])
        with pytest.raises(acp.RequestError) as bad:
            await conn.set_session_mode(session_id=new.session_id, mode_id="godmode")
    assert bad.value.code == -32602
    assert rec.asked == []
    done = [u for u in rec.of("tool_call_update") if u.status == "completed"]
    assert "hello from the tool" in done[-1].content[0].content.text


def _recording(path: Path, *turns: dict) -> tuple[str, Path]:
    """A scripted model that records each request it gets (docs/scripted.md): its spec, and
    the file its requests go to."""
    record = path.with_suffix(".requests.jsonl")
    path.write_text(json.dumps({"turns": list(turns), "record": record.name}))
    return f"scripted/{path}", record


def _sent(record: Path) -> list[Request]:
    return [Request.model_validate_json(line) for line in record.read_text().splitlines()]


def _thinking(request: Request) -> list[str]:
    return [b.text for m in request.messages for b in m.blocks if b.type == "thinking"]


async def test_the_model_selector_switches_the_next_request_mid_session(project, tmp_path):
    a, to_a = _recording(
        tmp_path / "a.json",
        {"thinking": "A's reasoning", "text": "from A"},
        {"text": "A again"},
    )
    b, to_b = _recording(tmp_path / "b.json", {"text": "from B"})
    rec = Recorder()
    async with larik_acp(project, rec, "-m", a) as (conn, _):
        new = await _open(conn, rec, project)
        sid = new.session_id
        selector = _option(new.config_options, "model")
        assert selector.category == "model" and selector.current_value == a
        assert _option(new.config_options, "mode").category == "mode"
        await conn.prompt(session_id=sid, prompt=[acp.text_block("first")])
        answer = await conn.set_config_option(session_id=sid, config_id="model", value=b)
        assert _option(answer.config_options, "model").current_value == b
        await conn.prompt(session_id=sid, prompt=[acp.text_block("second")])
        with pytest.raises(acp.RequestError):
            await conn.set_config_option(session_id=sid, config_id="model", value="nope/x")
        await conn.set_config_option(session_id=sid, config_id="model", value=a)
        await conn.prompt(session_id=sid, prompt=[acp.text_block("third")])
    replies = [m for m in _messages(project, sid) if m.role == "assistant"]
    assert [m.text() for m in replies] == ["from A", "from B", "A again"]
    assert replies[1].model == b.partition("/")[2]  # B answered the request after the switch
    assert rec.text().endswith("A again")
    [to_b_first] = _sent(to_b)  # what the larik acp process sent B: A's text, not its thinking
    assert _thinking(to_b_first) == []
    assert "from A" in [x.text for m in to_b_first.messages for x in m.blocks if x.type == "text"]
    assert _thinking(_sent(to_a)[-1]) == ["A's reasoning"]  # A gets its own back


async def test_load_replays_the_history_and_the_conversation_goes_on(project, tmp_path):
    model = script(
        tmp_path / "m.json", {"thinking": "hm", "text": "one"}, ECHO, {"text": "two"},
        {"text": "three"},
    )  # fmt: skip
    first = Recorder(answers=["allow_once"])
    async with larik_acp(project, first, "-m", model) as (conn, _):
        sid = (await _open(conn, first, project)).session_id
        await conn.prompt(session_id=sid, prompt=[acp.text_block("hello")])
        await conn.prompt(session_id=sid, prompt=[acp.text_block("greet")])
    later = Recorder()
    async with larik_acp(project, later, "-m", model) as (conn, _):
        await conn.initialize(protocol_version=1)
        listed = await conn.list_sessions(cwd=str(project))
        assert [s.session_id for s in listed.sessions] == [sid]
        assert listed.sessions[0].title == "hello"
        await conn.load_session(cwd=str(project), session_id=sid, mcp_servers=[])
        kinds = [u.session_update for _, u in later.updates]
        assert later.text("user_message_chunk") == "hellogreet"
        assert later.text("agent_thought_chunk") == "hm"
        assert "tool_call" in kinds and later.text().startswith("one")
        with pytest.raises(acp.RequestError) as missing:
            await conn.load_session(cwd=str(project), session_id="20990101-000000-abcdef")
        out = await conn.prompt(session_id=sid, prompt=[acp.text_block("on")])
    assert missing.value.code == -32002  # resource not found
    assert out.stop_reason == "end_turn"
    assert [m.role for m in _messages(project, sid)][-2:] == ["user", "assistant"]


async def test_resume_reopens_without_replaying(project, tmp_path):
    model = script(tmp_path / "m.json", {"text": "one"}, {"text": "two"})
    rec = Recorder()
    async with larik_acp(project, rec, "-m", model) as (conn, _):
        sid = (await _open(conn, rec, project)).session_id
        await conn.prompt(session_id=sid, prompt=[acp.text_block("hello")])
        await conn.close_session(session_id=sid)
        rec.updates.clear()
        await conn.resume_session(cwd=str(project), session_id=sid, mcp_servers=[])
        assert not rec.of("user_message_chunk")
        await conn.prompt(session_id=sid, prompt=[acp.text_block("again")])
    assert [m.text() for m in _messages(project, sid) if m.role == "assistant"] == ["one", "two"]


async def test_an_image_and_files_reach_the_model_as_attachments(project, tmp_path):
    (project / "notes.md").write_text("the notes\n")
    home = Path(env()["LARIK_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[permissions]\ndeny = ["read_file: .env"]\n')
    (project / ".env").write_text("SECRET=1\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("not the project's\n")
    model = script(tmp_path / "m.json", {"text": "seen"})
    rec = Recorder()
    prompt = [
        acp.text_block("look at these"),
        acp.image_block(PNG, "image/png"),
        acp.resource_link_block("notes.md", (project / "notes.md").as_uri()),
        acp.resource_link_block(".env", (project / ".env").as_uri()),
        acp.resource_link_block("outside.txt", outside.as_uri()),
        EmbeddedResourceContentBlock(
            type="resource",
            resource=TextResourceContents(uri=(project / "buf.py").as_uri(), text="x = 'buffer'"),
        ),
        acp.image_block("not base64!", "image/png"),
    ]
    async with larik_acp(project, rec, "-m", model) as (conn, _):
        sid = (await _open(conn, rec, project)).session_id
        out = await conn.prompt(session_id=sid, prompt=prompt)
    assert out.stop_reason == "end_turn"
    user = _messages(project, sid)[0]
    kinds = [b.type for b in user.blocks]
    assert kinds.count("image") == 1 and user.blocks[1].data == PNG
    texts = "\n".join(b.text for b in user.blocks if b.type == "text")
    assert '<file path="notes.md">\nthe notes\n' in texts
    assert "<file path=\"buf.py\">\nx = 'buffer'" in texts
    assert "SECRET" not in texts and "not the project's" not in texts
    said = rec.text()
    assert "@.env: a permissions.deny rule covers it" in said
    assert "outside the project" in said and "not base64" in said


async def test_a_prompt_with_files_is_kept_as_the_editor_s_text_for_the_lists(project, tmp_path):
    """Issue 43 item 5's class: the turn lists (and /rewind on resuming in the TUI) showed
    the files an editor attached inside the prompt."""
    from larik.agent.rewind import turns_of

    (project / "notes.md").write_text("the notes\n")
    model = script(tmp_path / "m.json", {"text": "seen"})
    rec = Recorder()
    prompt = [
        acp.text_block("look at"),
        acp.resource_link_block("notes.md", (project / "notes.md").as_uri()),
    ]
    async with larik_acp(project, rec, "-m", model) as (conn, _):
        sid = (await _open(conn, rec, project)).session_id
        await conn.prompt(session_id=sid, prompt=prompt)
    records = load_transcript(find_session(project, sid)).records
    assert [t.prompt for t in turns_of(records)] == ["look at"]


async def test_the_slash_commands_are_offered_and_run(project, tmp_path):
    commands = project / ".larik" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(
        "---\ndescription: review the code\n---\nReview $ARGUMENTS\n"
    )
    model = script(tmp_path / "m.json", {"text": "reviewed"})
    rec = Recorder()
    async with larik_acp(project, rec, "-m", model) as (conn, _):
        sid = (await _open(conn, rec, project)).session_id
        await conn.prompt(session_id=sid, prompt=[acp.text_block("/permissions edits")])
        out = await conn.prompt(session_id=sid, prompt=[acp.text_block("/review app.py")])
    [offered, *_] = rec.of("available_commands_update")
    names = [c.name for c in offered.available_commands]
    assert names[:3] == ["model", "effort", "permissions"] and "review" in names
    assert "Permission mode: `edits`" in rec.text()
    assert [u.current_mode_id for u in rec.of("current_mode_update")] == ["edits"]
    assert out.stop_reason == "end_turn"
    assert "Review app.py" in _messages(project, sid)[0].text()


async def test_a_plan_mode_turn_sends_its_plan_and_offers_to_carry_it_out(project, tmp_path):
    plan = "The plan:\n1. Change x in app.py\n2. Run the tests"
    model = script(tmp_path / "m.json", {"text": plan}, {"text": "carried out"})
    rec = Recorder(answers=["allow_always"])  # "Yes, and edit freely (edits mode)"
    async with larik_acp(project, rec, "-m", model, "--permission-mode", "plan") as (conn, _):
        sid = (await _open(conn, rec, project)).session_id
        out = await conn.prompt(session_id=sid, prompt=[acp.text_block("plan it")])
    assert out.stop_reason == "end_turn"
    [update] = rec.of("plan")
    assert [e.content for e in update.entries] == ["Change x in app.py", "Run the tests"]
    [asked] = rec.asked
    assert asked.title == "Carry out the plan?" and len(asked.options) == 3
    assert "edits" in [u.current_mode_id for u in rec.of("current_mode_update")]
    messages = _messages(project, sid)
    assert "The user accepted the plan" in messages[2].text()
    assert messages[-1].text() == "carried out"


@pytest.mark.parametrize("answer", ["allow_always", "reject_once"], ids=["trusted", "not now"])
async def test_the_trust_question_goes_to_the_client_at_the_first_prompt(project, tmp_path, answer):
    (project / ".larik").mkdir()
    (project / ".larik" / "config.toml").write_text('[permissions]\nallow = ["bash: echo *"]\n')
    model = script(tmp_path / "m.json", ECHO, {"text": "done"}, {"text": "again"})
    rec = Recorder(answers=[answer, "reject_once"])
    async with larik_acp(project, rec, "-m", model) as (conn, _):
        sid = (await _open(conn, rec, project)).session_id
        await conn.prompt(session_id=sid, prompt=[acp.text_block("greet")])
    titles = [a.title for a in rec.asked]
    assert titles[0] == "Trust this folder?"
    result = [u for u in rec.of("tool_call_update") if u.tool_call_id == "call_1"][-1]
    if answer == "allow_always":  # the project's allow rule applies: echo is not asked about
        assert titles == ["Trust this folder?"] and result.status == "completed"
        again = Recorder()
        async with larik_acp(project, again, "-m", model) as (conn, _):  # remembered
            sid2 = (await _open(conn, again, project)).session_id
            await conn.prompt(session_id=sid2, prompt=[acp.text_block("hi")])
        assert again.asked == []
    else:
        assert titles == ["Trust this folder?", "bash: echo hello from the tool"]
        assert result.status == "failed"
    assert [m.role for m in _messages(project, sid)][:2] == ["user", "assistant"]


async def test_fork_goes_on_in_a_copy_and_the_original_stays_open(project, tmp_path):
    model = script(tmp_path / "m.json", {"text": "one"}, {"text": "two"}, {"text": "three"})
    rec = Recorder()
    async with larik_acp(project, rec, "-m", model) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=rec.capabilities())
        hello = await conn.initialize(protocol_version=1)
        assert hello.agent_capabilities.session_capabilities.fork is not None
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.set_session_mode(session_id=new.session_id, mode_id="edits")
        await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("first")])
        forked = await conn.fork_session(session_id=new.session_id, cwd=str(project))
        assert forked.session_id != new.session_id
        assert forked.modes.current_mode_id == "edits"  # as the original was set
        await conn.prompt(session_id=forked.session_id, prompt=[acp.text_block("second")])
        await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("again")])
        with pytest.raises(acp.RequestError) as unknown:
            await conn.fork_session(session_id="20260101-000000-abcdef", cwd=str(project))
        with pytest.raises(acp.RequestError) as malformed:
            await conn.fork_session(session_id="../../etc/passwd", cwd=str(project))
    assert [m.text() for m in _messages(project, forked.session_id)] == [
        "first", "one", "second", "two"
    ]  # fmt: skip
    assert [m.text() for m in _messages(project, new.session_id)] == [
        "first", "one", "again", "three"
    ]  # fmt: skip
    assert unknown.value.code == -32002 and malformed.value.code == -32602


async def test_a_session_is_not_forked_while_its_turn_runs(project, tmp_path):
    model = script(tmp_path / "m.json", {"text": "a long reply " * 40, "hold": 2})
    rec = Recorder()
    async with larik_acp(project, rec, "-m", model) as (conn, _):
        new = await _open(conn, rec, project)
        turn = asyncio.ensure_future(
            conn.prompt(session_id=new.session_id, prompt=[acp.text_block("talk")])
        )
        await until(lambda: rec.of("agent_message_chunk"), "the reply to stream")
        with pytest.raises(acp.RequestError) as busy:
            await conn.fork_session(session_id=new.session_id, cwd=str(project))
        await conn.cancel(session_id=new.session_id)
        assert (await asyncio.wait_for(turn, WAIT)).stop_reason == "cancelled"
    assert busy.value.code == -32600 and "turn is running" in str(busy.value.data)
