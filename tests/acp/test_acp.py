"""``larik acp`` as an editor drives it: a real subprocess, the SDK's own client side, the
scripted model (docs/scripted.md), a private LARIK_HOME."""

from __future__ import annotations

import asyncio
from pathlib import Path

import acp
import pytest

from larik.agent.sessions import find_session
from larik.agent.transcript import load_transcript

from .client import WAIT, Recorder, larik_acp, script, until

ECHO = {"tool_calls": [{"name": "bash", "input": {"command": "echo hello from the tool"}}]}


def _messages(project: Path, session_id: str) -> list:
    return load_transcript(find_session(project, session_id)).messages


async def _session(conn, rec: Recorder, project: Path) -> str:
    await conn.initialize(protocol_version=1, client_capabilities=rec.capabilities())
    return (await conn.new_session(cwd=str(project), mcp_servers=[])).session_id


async def test_the_handshake_says_what_larik_offers(project, tmp_path):
    rec = Recorder()
    async with larik_acp(project, rec) as (conn, _):
        first = await conn.initialize(protocol_version=1)
        again = await conn.initialize(protocol_version=7)  # answered by the SDK path
    assert first.protocol_version == 1 and again.protocol_version == 1  # Larik's latest
    caps = first.agent_capabilities
    assert caps.load_session and caps.prompt_capabilities.image
    assert caps.prompt_capabilities.embedded_context and caps.mcp_capabilities.http
    assert not caps.mcp_capabilities.sse
    assert caps.session_capabilities.list is not None
    assert first.agent_info.name == "larik"
    dump = {"by_alias": True, "exclude_none": True}
    assert first.model_dump(**dump) == again.model_dump(**dump)  # the early answer is the SDK's
    names = [v.name for m in first.auth_methods if getattr(m, "vars", None) for v in m.vars]
    assert "ANTHROPIC_API_KEY" in names


async def test_a_prompt_streams_the_reply_and_both_are_in_the_transcript(project, tmp_path):
    model = script(tmp_path / "m.json", {"thinking": "Let me think.", "text": "Hello there."})
    rec = Recorder()
    async with larik_acp(project, rec, "-m", model) as (conn, _):
        sid = await _session(conn, rec, project)
        out = await conn.prompt(session_id=sid, prompt=[acp.text_block("say hello")])
    assert out.stop_reason == "end_turn"
    assert rec.text() == "Hello there."
    assert rec.text("agent_thought_chunk") == "Let me think."
    assert out.usage is not None and out.usage.output_tokens > 0
    assert rec.of("usage_update")
    roles = [m.role for m in _messages(project, sid)]
    assert roles == ["user", "assistant"]


@pytest.mark.parametrize("answer", ["allow_once", "reject_once"])
async def test_a_call_that_needs_approval_is_shown_then_asked_and_runs_only_if_allowed(
    project, tmp_path, answer
):
    model = script(tmp_path / "m.json", ECHO, {"text": "done"})
    rec = Recorder(answers=[answer])
    seen_before_asking: list[int] = []
    original = rec.request_permission

    async def asking(**kw):
        seen_before_asking.append(len(rec.of("tool_call")))
        return await original(**kw)

    rec.request_permission = asking  # type: ignore[method-assign]
    async with larik_acp(project, rec, "-m", model) as (conn, _):
        sid = await _session(conn, rec, project)
        out = await conn.prompt(session_id=sid, prompt=[acp.text_block("greet")])
    assert out.stop_reason == "end_turn"
    [asked] = rec.asked
    assert seen_before_asking == [1]  # the call reached the client before the question
    assert [k for _, k in asked.options] == ["allow_once", "allow_always", "reject_once"]
    [start] = rec.of("tool_call")
    assert start.kind == "execute" and start.tool_call_id == asked.tool_call_id
    end = rec.of("tool_call_update")[-1]
    text = end.content[0].content.text
    if answer == "allow_once":
        assert end.status == "completed" and "hello from the tool" in text
    else:
        assert end.status == "failed" and "declined" in text


async def test_allow_always_is_the_rule_larik_remembers_for_the_session(project, tmp_path):
    model = script(tmp_path / "m.json", ECHO, {"text": "one"}, ECHO, {"text": "two"})
    rec = Recorder(answers=["allow_always"])
    async with larik_acp(project, rec, "-m", model) as (conn, _):
        sid = await _session(conn, rec, project)
        await conn.prompt(session_id=sid, prompt=[acp.text_block("greet")])
        await conn.prompt(session_id=sid, prompt=[acp.text_block("again")])
    assert len(rec.asked) == 1  # the second echo is covered by the rule
    assert "'bash: echo hello*'" in rec.asked[0].names[1]  # the rule, as the TUI's dialog says it
    ends = [u for u in rec.of("tool_call_update") if u.status == "completed"]
    assert len(ends) == 2


async def test_cancel_mid_stream_ends_the_turn_and_the_session_goes_on(project, tmp_path):
    slow = {"text": "a long reply that streams slowly " * 40, "hold": 2}
    model = script(tmp_path / "m.json", slow, {"text": "after the interrupt"})
    rec = Recorder()
    async with larik_acp(project, rec, "-m", model) as (conn, _):
        sid = await _session(conn, rec, project)
        rec.on_update = lambda u: (
            asyncio.ensure_future(conn.cancel(session_id=sid))
            if u.session_update == "agent_message_chunk" and rec.on_update
            else None
        )
        out = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=[acp.text_block("write a lot")]), WAIT
        )
        rec.on_update = None
        assert out.stop_reason == "cancelled"
        again = await conn.prompt(session_id=sid, prompt=[acp.text_block("go on")])
    assert again.stop_reason == "end_turn"
    assert rec.text().endswith("after the interrupt")
    messages = _messages(project, sid)
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[1].interrupted and len(messages[1].text()) < len(slow["text"])


async def test_a_prompt_for_an_unknown_session_is_invalid_params(project):
    rec = Recorder()
    async with larik_acp(project, rec) as (conn, _):
        await conn.initialize(protocol_version=1)
        with pytest.raises(acp.RequestError) as info:
            await conn.prompt(session_id="no-such-session", prompt=[acp.text_block("hi")])
    assert info.value.code == -32602


async def test_no_model_is_authentication_required_naming_the_variables(project):
    rec = Recorder()
    async with larik_acp(project, rec) as (conn, _):
        await conn.initialize(protocol_version=1)
        with pytest.raises(acp.RequestError) as info:
            await conn.new_session(cwd=str(project), mcp_servers=[])
    assert info.value.code == -32000
    assert "ANTHROPIC_API_KEY" in str(info.value.data)


async def test_the_process_ends_cleanly_when_the_client_closes_its_end(project, tmp_path):
    model = script(tmp_path / "m.json", {"text": "x" * 400, "hold": 2})
    rec = Recorder()
    async with larik_acp(project, rec, "-m", model) as (conn, proc):
        sid = await _session(conn, rec, project)
        asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[acp.text_block("go")]))
        await until(lambda: rec.of("agent_message_chunk"), "the reply to stream")
        proc.stdin.close()  # the editor went away mid-turn
        code = await asyncio.wait_for(proc.wait(), WAIT)
        err = (await proc.stderr.read()).decode()
    assert code == 0
    assert "Traceback" not in err
    messages = _messages(project, sid)  # saved, unlocked, valid
    assert [m.role for m in messages] == ["user", "assistant"] and messages[1].interrupted


async def test_a_budget_stop_ends_the_prompt_with_the_closest_acp_stop_reason(project, tmp_path):
    from larik.config import user_config_path

    dollar = {"input": 10, "output": 1000}  # $1.00 at the price below
    call = {"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}], "usage": dollar}
    model = script(tmp_path / "m.json", call, {"text": "never", "usage": dollar})
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'[models."{model}"]\ninput_price = 0.0\noutput_price = 1000.0\n'
        "[budget]\nsession_usd = 1.5\n"
    )
    rec = Recorder()
    async with larik_acp(project, rec, "-m", model) as (conn, _):
        sid = await _session(conn, rec, project)
        out = await conn.prompt(session_id=sid, prompt=[acp.text_block("look")])
    assert out.stop_reason == "max_turn_requests"


async def test_an_editor_lists_the_session_rules_and_takes_one_back(project, tmp_path):
    """An editor's "allow always" adds a session rule its own dialog cannot show or take back:
    /permissions lists it, /permissions forget N takes it back, and the call is asked again."""
    model = script(tmp_path / "m.json", ECHO, {"text": "one"}, ECHO, {"text": "two"})
    rec = Recorder(answers=["allow_always", "allow_once"])
    async with larik_acp(project, rec, "-m", model) as (conn, _):
        sid = await _session(conn, rec, project)
        await conn.prompt(session_id=sid, prompt=[acp.text_block("greet")])
        await conn.prompt(session_id=sid, prompt=[acp.text_block("/permissions")])
        listed = rec.text()
        await conn.prompt(session_id=sid, prompt=[acp.text_block("/permissions forget 7")])
        await conn.prompt(session_id=sid, prompt=[acp.text_block("/permissions forget 1")])
        await conn.prompt(session_id=sid, prompt=[acp.text_block("again")])
    assert "allowed for this session" in listed and "1: `bash: echo hello*`" in listed
    said = rec.text()[len(listed) :]
    assert "forgot `bash: echo hello*`: such calls are asked again" in said
    assert said.index("no session rule 7") < said.index("forgot")  # a bad number: one line
    assert len(rec.asked) == 2  # the second echo was asked again
