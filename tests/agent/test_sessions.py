"""Sessions: where they live, listing, and resuming exactly the conversation that was sent."""

from __future__ import annotations

import json
import os

import pytest

from larik.agent.sessions import latest_session, list_sessions, project_dir, project_key
from larik.agent.transcript import TranscriptError, load_transcript
from larik.config import sessions_dir

from .conftest import E, Roles, of, run, script, valid_conversation


def test_project_key_is_a_readable_slug_plus_a_hash(tmp_path):
    a, b = tmp_path / "one" / "My App", tmp_path / "two" / "My App"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    ka, kb = project_key(a), project_key(b)
    assert ka.endswith("one-My-App-" + ka[-8:]) and kb.endswith("two-My-App-" + kb[-8:])
    assert ka != kb
    assert ka.rsplit("-", 1)[1].isalnum() and len(ka.rsplit("-", 1)[1]) == 8
    assert project_key(a) == ka  # stable


async def test_a_session_is_one_jsonl_under_the_sessions_dir_keyed_by_project(make_agent, project):
    agent = await make_agent(script({"text": "hi"}))
    assert not agent.transcript_path.exists()  # nothing written before the first message
    await run(agent, "hello")
    path = agent.transcript_path
    assert path == sessions_dir() / project_key(project) / f"{agent.session_id}.jsonl"
    header = json.loads(path.read_text().splitlines()[0])
    assert header["session"] == agent.session_id and header["model"] == "scripted/m"
    assert header["cwd"] == str(project)


async def test_per_turn_usage_records_carry_model_and_role(make_agent):
    agent = await make_agent(script({"text": "hi", "usage": {"input": 7, "output": 3}}))
    await run(agent)
    usage = [r for r in load_transcript(agent.transcript_path).records if r["kind"] == "usage"]
    assert usage == [
        {
            "kind": "usage",
            "model": "m",
            "provider": "scripted",
            "role": "main",
            "usage": {"input": 7, "output": 3},
            "cost": 0.0,  # the scripted provider counts as local: free
        }
    ]


async def test_sessions_are_listed_most_recent_first_with_their_first_prompt(make_agent, project):
    first = await make_agent(script({"text": "a"}))
    await run(first, "the first task")
    second = await make_agent(script({"text": "b"}, {"text": "c"}))
    await run(second, "the second task")
    await run(second, "more")
    os.utime(first.transcript_path, (1, 1))
    sessions = list_sessions(project)
    assert [s.id for s in sessions] == [second.session_id, first.session_id]
    assert sessions[0].first_prompt == "the second task" and sessions[0].messages == 4
    assert latest_session(project).id == second.session_id


async def test_continue_rebuilds_exactly_the_conversation_that_was_sent(make_agent, project):
    p = script(
        {"thinking": "plan", "tool_calls": [{"name": "read_file", "input": {"path": "calc.py"}}]},
        {"text": "it subtracts"},
        {"text": "bye"},
    )
    agent = await make_agent(p)
    await run(agent, "what does add do")
    before = agent.messages
    await agent.close()  # a session is written by one agent at a time
    p2 = script({"text": "still here"})
    resumed = await make_agent(p2, resume="latest")
    assert resumed.session_id == agent.session_id and resumed.messages == before
    await run(resumed, "and now?")
    # the resumed request is the old conversation plus the new prompt, replay rules included
    assert p2.requests[0].messages[:-1] == agent.loop._request().messages
    assert p2.requests[0].messages[-1].text() == "and now?"
    assert load_transcript(agent.transcript_path).messages == resumed.messages


async def test_resume_by_id_or_unique_prefix_and_clear_errors(make_agent, project):
    agent = await make_agent(script({"text": "x"}))
    await run(agent)
    await agent.close()
    by_id = await make_agent(script(), resume=agent.session_id)
    assert by_id.messages == agent.messages
    await by_id.close()
    by_prefix = await make_agent(script(), resume=agent.session_id[:-2])
    assert by_prefix.session_id == agent.session_id
    with pytest.raises(TranscriptError, match="no session 'nope'"):
        await make_agent(script(), resume="nope")


async def test_continue_with_no_earlier_session_says_so(make_agent):
    with pytest.raises(TranscriptError, match="no earlier session"):
        await make_agent(script(), resume="latest")


async def test_resume_after_a_crash_that_truncated_the_last_line(make_agent):
    agent = await make_agent(script({"text": "one"}, {"text": "two"}))
    await run(agent, "first")
    await run(agent, "second")
    agent.log.close()
    path = agent.transcript_path
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 25])  # the crash cut the last record mid-line
    p2 = script({"text": "three"})
    resumed = await make_agent(p2, resume="latest")
    assert [m.text() for m in resumed.messages] == ["first", "one", "second"]
    events = await run(resumed, "third")
    assert of(events, E.TURN_END)[0].text == "three"
    loaded = load_transcript(path)
    assert not loaded.problems and not loaded.truncated_tail
    assert [m.text() for m in loaded.messages] == ["first", "one", "second", "third", "three"]


async def test_resume_answers_a_tool_call_left_without_result_by_a_crash(make_agent):
    agent = await make_agent(
        script({"tool_calls": [{"name": "bash", "input": {"command": "true"}}]})
    )
    gen = agent.run_turn("go")
    async for ev in gen:
        if ev.type is E.MESSAGE and ev.message.tool_uses():
            break  # "crash": the tool results are never written
    agent.log.close()
    agent.loop._running = None
    p2 = script({"text": "recovered"})
    resumed = await make_agent(p2, resume="latest")
    valid_conversation(resumed.messages)
    assert "session ended" in resumed.messages[-1].blocks[0].content
    await run(resumed, "again")
    valid_conversation(load_transcript(agent.transcript_path).messages)
    await gen.aclose()


async def test_resume_goes_back_to_the_model_the_session_last_used(make_agent):
    a, b = script({"text": "a"}), script({"text": "b"})
    b.name, b.model_id = "other", "m2"
    roles = Roles(a, **{"other/m2": b})
    agent = await make_agent(a, resolver=roles)
    await run(agent)
    agent.set_model("other/m2")
    await run(agent)
    await agent.close()
    resumed = await make_agent(a, resolver=roles, resume="latest")
    assert resumed.spec == "other/m2"


async def test_a_listed_session_names_the_model_it_last_used(make_agent, project):
    a, b = script({"text": "a"}), script({"text": "b"})
    b.name, b.model_id = "other", "m2"
    roles = Roles(a, **{"other/m2": b})
    agent = await make_agent(a, resolver=roles)
    await run(agent)
    assert list_sessions(project)[0].model == "scripted/m"
    agent.set_model("other/m2")
    await run(agent)
    assert list_sessions(project)[0].model == "other/m2"


async def test_resume_restores_the_session_usage_totals(make_agent):
    agent = await make_agent(script({"text": "a", "usage": {"input": 10, "output": 5}}))
    await run(agent)
    await agent.close()
    resumed = await make_agent(script(), resume="latest")
    assert resumed.usage.total.input == 10 and resumed.usage.by_role["main"].output == 5


def test_sessions_dir_follows_larik_home(monkeypatch, tmp_path):
    monkeypatch.setenv("LARIK_HOME", str(tmp_path / "home"))
    assert project_dir(tmp_path).parent == tmp_path / "home" / "sessions"
