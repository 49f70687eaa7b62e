"""The task tool: a subagent on its own role, with its own tools, whose usage counts."""

from __future__ import annotations

from larik.agent.transcript import load_transcript
from larik.llm.errors import ResolveError

from .conftest import E, Roles, of, run, script


def on_role(name: str, model: str, *turns):
    p = script(*turns)
    p.name, p.model_id = name, model
    return p


def main_calls(*tasks):
    return script(
        {"tool_calls": [{"name": "task", "input": {"role": r, "prompt": q}} for r, q in tasks]},
        {"text": "all done"},
    )


async def test_an_explore_subagent_runs_on_its_role_with_read_only_tools(make_agent):
    explorer = on_role(
        "cheap",
        "scout",
        {
            "tool_calls": [{"name": "grep", "input": {"pattern": "def add"}}],
            "usage": {"input": 40, "output": 4},
        },
        {"text": "add is in calc.py line 1", "usage": {"input": 60, "output": 6}},
    )
    main = main_calls(("explore", "where is add defined?"))
    roles = Roles(main, explore=explorer)
    agent = await make_agent(main, resolver=roles)
    events = await run(agent)
    assert "explore" in roles.asked
    assert [t.name for t in explorer.requests[0].tools] == ["read_file", "glob", "grep"]
    assert "role explore" in explorer.requests[0].system[0]
    assert explorer.requests[0].messages[0].text() == "where is add defined?"
    result = agent.messages[2].blocks[0]
    assert result.content == "add is in calc.py line 1" and not result.is_error
    assert of(events, E.TURN_END)[0].text == "all done"
    explorer.assert_complete()


async def test_subagent_usage_counts_toward_the_session(make_agent):
    explorer = on_role(
        "cheap", "scout", {"text": "found it", "usage": {"input": 100, "output": 10}}
    )
    main = main_calls(("explore", "look"))
    agent = await make_agent(main, resolver=Roles(main, explore=explorer))
    events = await run(agent)
    sub_usage = [u for u in of(events, E.USAGE) if u.subagent]
    assert (
        len(sub_usage) == 1 and sub_usage[0].subagent == "explore" and sub_usage[0].model == "scout"
    )
    assert agent.usage.by_role["explore"].input == 100
    assert agent.usage.by_model["scout"].output == 10
    assert agent.usage.total.input >= 100
    recs = load_transcript(agent.transcript_path).records
    assert any(r["kind"] == "usage" and r.get("subagent") == "explore" for r in recs)


async def test_a_worker_subagent_gets_every_tool_but_task_and_can_edit(make_agent, project):
    worker = on_role(
        "mid",
        "builder",
        {
            "tool_calls": [
                {"name": "read_file", "input": {"path": "calc.py"}},
                {
                    "name": "edit_file",
                    "input": {"path": "calc.py", "old_string": "-", "new_string": "+"},
                },
            ]
        },
        {"text": "fixed calc.py"},
    )
    main = main_calls(("worker", "fix add in calc.py"))
    agent = await make_agent(main, resolver=Roles(main, worker=worker))
    await run(agent)
    assert [t.name for t in worker.requests[0].tools] == [
        "read_file",
        "write_file",
        "edit_file",
        "glob",
        "grep",
        "bash",
        "job_output",
        "job_stop",
        "web_fetch",
    ]
    assert "a + b" in (project / "calc.py").read_text()
    assert agent.messages[2].blocks[0].content == "fixed calc.py"


async def test_an_explore_subagent_cannot_write(make_agent, project):
    explorer = on_role(
        "cheap",
        "scout",
        {"tool_calls": [{"name": "write_file", "input": {"path": "x.txt", "content": "no"}}]},
        {"text": "could not write"},
    )
    main = main_calls(("explore", "write x"))
    agent = await make_agent(main, resolver=Roles(main, explore=explorer))
    await run(agent)
    assert not (project / "x.txt").exists()
    assert "unknown tool 'write_file'" in explorer.requests[1].messages[-1].blocks[0].content


async def test_subagents_follow_the_sessions_permissions(make_agent, project):
    worker = on_role(
        "mid",
        "builder",
        {"tool_calls": [{"name": "bash", "input": {"command": "touch made.txt"}}]},
        {"text": "tried"},
    )
    main = main_calls(("worker", "make a file"))
    agent = await make_agent(main, resolver=Roles(main, worker=worker), permission_mode="ask")
    await run(agent)
    assert not (project / "made.txt").exists()
    assert "permission denied" in worker.requests[1].messages[-1].blocks[0].content


async def test_a_failing_subagent_is_an_error_result(make_agent):
    explorer = on_role("cheap", "scout", {"error": {"status": 400, "message": "bad request"}})
    main = main_calls(("explore", "look"))
    agent = await make_agent(main, resolver=Roles(main, explore=explorer))
    await run(agent)
    res = agent.messages[2].blocks[0]
    assert (
        res.is_error
        and "the explore subagent failed" in res.content
        and "bad request" in res.content
    )


async def test_a_role_that_cannot_be_resolved_is_an_error_result(make_agent):
    main = main_calls(("worker", "do it"))
    roles = Roles(main)

    def resolver(spec):
        if spec == "worker":
            raise ResolveError("no API key for openai: set OPENAI_API_KEY")
        return roles(spec)

    agent = await make_agent(main, resolver=resolver)
    await run(agent)
    res = agent.messages[2].blocks[0]
    assert res.is_error and "cannot start the worker subagent" in res.content


async def test_an_unknown_role_is_refused_by_validation(make_agent):
    main = main_calls(("gpt-4", "do it"))
    agent = await make_agent(main)
    await run(agent)
    res = agent.messages[2].blocks[0]
    assert res.is_error and "invalid arguments for task: role" in res.content


async def test_several_explore_subagents_each_answer_their_own_call(make_agent):
    a = on_role("cheap", "scout", {"text": "answer one"}, {"text": "answer two"})
    main = main_calls(("explore", "first"), ("explore", "second"))
    agent = await make_agent(main, resolver=Roles(main, explore=a))
    await run(agent)
    got = sorted(b.content for b in agent.messages[2].blocks)
    assert got == ["answer one", "answer two"]
