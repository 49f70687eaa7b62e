"""Subagents are visible: their own transcript beside the session's, linked by the task call's
id; their tool calls relayed to the front end tagged with that id; links that leave the folder
are ignored."""

from __future__ import annotations

import json

from larik.agent.subagent import subagent_links, subagent_steps
from larik.agent.transcript import load_transcript

from .conftest import E, Roles, of, run, script


def worker_script():
    w = script(
        {"tool_calls": [{"name": "read_file", "input": {"path": "calc.py"}, "id": "w1"}]},
        {"tool_calls": [{"name": "read_file", "input": {"path": "nope.py"}, "id": "w2"}]},
        {"text": "calc.py subtracts"},
    )
    w.name, w.model_id = "mid", "builder"
    return w


def main_script():
    return script(
        {
            "tool_calls": [
                {"name": "task", "input": {"role": "worker", "prompt": "look"}, "id": "t1"}
            ]
        },
        {"text": "done"},
    )


async def test_a_subagent_keeps_its_own_transcript_linked_from_the_parents(make_agent):
    main, worker = main_script(), worker_script()
    agent = await make_agent(main, resolver=Roles(main, worker=worker))
    await run(agent)
    await agent.close()
    links = subagent_links(agent.transcript_path)
    assert list(links) == ["t1"]
    sub = links["t1"]
    assert sub.parent.name == f"{agent.transcript_path.stem}.subagents"
    assert sub.name == "01-worker.jsonl"
    loaded = load_transcript(sub)
    assert [m.role for m in loaded.messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert loaded.messages[0].text() == "look"
    assert [(s.name, s.args, s.status) for s in subagent_steps(sub)] == [
        ("read_file", {"path": "calc.py"}, "ok"),
        ("read_file", {"path": "nope.py"}, "error"),
    ]
    rec = next(r for r in load_transcript(agent.transcript_path).records if r["kind"] == "subagent")
    assert rec["role"] == "worker" and rec["transcript"].endswith("01-worker.jsonl")
    assert not rec["transcript"].startswith("/")


async def test_the_subagents_tool_calls_reach_the_front_end_tagged_with_the_task_call(make_agent):
    main, worker = main_script(), worker_script()
    agent = await make_agent(main, resolver=Roles(main, worker=worker))
    events = await run(agent)
    subs = [e for e in events if e.subagent and e.type in (E.TOOL_START, E.TOOL_END)]
    assert [(e.type, e.tool_id) for e in subs] == [
        (E.TOOL_START, "w1"),
        (E.TOOL_END, "w1"),
        (E.TOOL_START, "w2"),
        (E.TOOL_END, "w2"),
    ]
    assert all(e.data["parent_tool_id"] == "t1" and e.subagent == "worker" for e in subs)
    main_ends = [e for e in of(events, E.TOOL_END) if not e.subagent]
    assert [e.tool_id for e in main_ends] == ["t1"]


async def test_explore_subagents_side_by_side_get_their_own_files_and_ids(make_agent):
    a = script({"text": "one"}, {"text": "two"})
    a.name, a.model_id = "cheap", "scout"
    main = script(
        {
            "tool_calls": [
                {"name": "task", "input": {"role": "explore", "prompt": "a"}, "id": "x1"},
                {"name": "task", "input": {"role": "explore", "prompt": "b"}, "id": "x2"},
            ]
        },
        {"text": "ok"},
    )
    agent = await make_agent(main, resolver=Roles(main, explore=a))
    await run(agent)
    links = subagent_links(agent.transcript_path)
    assert sorted(links) == ["x1", "x2"] and len(set(links.values())) == 2


async def test_a_hostile_link_outside_the_subagents_folder_is_ignored(make_agent, tmp_path):
    main, worker = main_script(), worker_script()
    agent = await make_agent(main, resolver=Roles(main, worker=worker))
    await run(agent)
    await agent.close()
    with open(agent.transcript_path, "a") as f:
        for rel in ("../../../../etc/passwd", "/etc/passwd", "x.subagents/../../secret.jsonl"):
            f.write(
                json.dumps({"kind": "subagent", "role": "w", "tool_id": "evil", "transcript": rel})
                + "\n"
            )
    assert list(subagent_links(agent.transcript_path)) == ["t1"]


async def test_a_session_without_subagents_reads_nothing_more(make_agent):
    agent = await make_agent(script({"text": "hi"}))
    await run(agent)
    assert subagent_links(agent.transcript_path) == {}
