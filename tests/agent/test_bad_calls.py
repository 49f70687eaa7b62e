"""Bad tool calls become clear error results the model sees; the loop never crashes."""

from __future__ import annotations

from larik.agent.tools import get_tool
from tests.patience import WAIT

from .conftest import E, of, run, script, valid_conversation


async def first_result(make_agent, call):
    p = script({"tool_calls": [call]}, {"text": "ok"})
    agent = await make_agent(p)
    events = await run(agent)
    assert of(events, E.TURN_END)[0].text == "ok"
    valid_conversation(agent.messages)
    return agent.messages[2].blocks[0], events


async def test_malformed_json_arguments_are_an_error_result(make_agent):
    res, _ = await first_result(make_agent, {"name": "read_file", "input": '{"path": "calc.py"'})
    assert res.is_error and "not a valid JSON object" in res.content


async def test_arguments_that_fail_validation_name_the_field(make_agent):
    res, _ = await first_result(make_agent, {"name": "edit_file", "input": {"path": "calc.py"}})
    assert res.is_error and res.content.startswith("invalid arguments for edit_file:")
    assert "old_string: Field required" in res.content


async def test_an_unexpected_argument_is_named(make_agent):
    res, _ = await first_result(
        make_agent, {"name": "read_file", "input": {"path": "calc.py", "file": "x"}}
    )
    assert res.is_error and "file: unexpected argument" in res.content


async def test_null_for_an_optional_argument_means_its_default(make_agent):
    res, _ = await first_result(
        make_agent, {"name": "read_file", "input": {"path": "calc.py", "offset": None}}
    )
    assert not res.is_error and "def add" in res.content


async def test_an_unknown_tool_is_an_error_result_listing_the_tools(make_agent):
    res, events = await first_result(make_agent, {"name": "browse_web", "input": {}})
    assert (
        res.is_error and "unknown tool 'browse_web'" in res.content and "read_file" in res.content
    )
    assert of(events, E.TOOL_END)[0].is_error


async def test_a_tool_that_raises_becomes_an_error_result(make_agent, monkeypatch):
    tool = get_tool("glob")

    async def boom(args, ctx):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(tool.module, "run", boom)
    res, _ = await first_result(make_agent, {"name": "glob", "input": {"pattern": "*"}})
    assert res.is_error and res.content == "glob failed: RuntimeError: disk on fire"


async def test_a_tool_error_is_prefixed_with_the_tool_name(make_agent):
    res, events = await first_result(make_agent, {"name": "read_file", "input": {"path": "nope"}})
    assert res.content.startswith("read_file: no such file: nope")  # then what the folder holds
    end = of(events, E.TOOL_END)[0]
    assert end.is_error and end.text == res.content and end.tool_name == "read_file"


async def test_tool_end_carries_the_edit_diff(make_agent):
    edit = {"name": "edit_file", "input": {"path": "calc.py", "old_string": "-", "new_string": "+"}}
    p = script(
        {"tool_calls": [{"name": "read_file", "input": {"path": "calc.py"}}, edit]}, {"text": "ok"}
    )
    events = await run(await make_agent(p))
    end = of(events, E.TOOL_END)[1]
    assert not end.is_error and "+    return a + b" in end.data["diff"] and end.duration >= 0


async def test_read_only_calls_run_concurrently_and_results_keep_call_order(
    make_agent, monkeypatch
):
    import asyncio

    tool = get_tool("grep")
    both_running = asyncio.Event()
    active = 0
    real = tool.module.run

    async def slow(args, ctx):
        nonlocal active
        active += 1
        if active == 2:
            both_running.set()
        await asyncio.wait_for(both_running.wait(), WAIT)  # only returns if both run at once
        return await real(args, ctx)

    monkeypatch.setattr(tool.module, "run", slow)
    p = script(
        {
            "tool_calls": [
                {"name": "grep", "input": {"pattern": "add"}},
                {"name": "grep", "input": {"pattern": "return"}},
            ]
        },
        {"text": "ok"},
    )
    agent = await make_agent(p)
    await run(agent)
    first, second = agent.messages[2].blocks
    assert "def add" in first.content and "return" in second.content


async def test_a_hanging_command_times_out_into_an_error_result(make_agent):
    res, _ = await first_result(
        make_agent, {"name": "bash", "input": {"command": "sleep 30", "timeout": 0.3}}
    )
    assert res.is_error and "timed out after 0.3 s" in res.content and "[exit code" in res.content


async def test_a_huge_file_comes_back_one_page_at_a_time(make_agent, project):
    (project / "huge.log").write_text("".join(f"entry {i}\n" for i in range(200_000)))
    res, _ = await first_result(make_agent, {"name": "read_file", "input": {"path": "huge.log"}})
    assert not res.is_error and "of 200000" in res.content and len(res.content) < 60_000
