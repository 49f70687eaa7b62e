"""Stuck detection in the loop, on scripted models that loop: told once, then stopped."""

from __future__ import annotations

from larik.agent.transcript import load_transcript
from larik.config import Config, StuckConfig
from larik.llm.types import StopReason

from .conftest import E, Roles, of, run, script, valid_conversation


def call(name: str, text: str = "", **args):
    return {"text": text, "tool_calls": [{"name": name, "input": args}]}


LOOP = call("write_file", path="junk.py", content="x = 1\n")


async def test_a_model_repeating_one_call_is_told_then_stopped_within_a_handful_of_calls(
    make_agent,
):
    p = script(*[LOOP] * 100)
    agent = await make_agent(p)
    events = await run(agent)
    end = of(events, E.TURN_END)[0]
    assert end.stop_reason is StopReason.STUCK
    assert end.data == {"stuck": "repeat", "repeats": 4}
    assert len(p.requests) == 5  # the write created the file, then 4 identical rewrites
    # the third identical result carried the nudge; the model saw it in its next request
    nudged = p.requests[4].messages[-1].blocks[0].content
    assert "you are repeating yourself" in nudged and "write_file" in nudged
    notices = [n.text for n in of(events, E.NOTICE)]
    assert any("told it so" in n for n in notices)
    assert any(n.startswith("stopped: the model is stuck") for n in notices)
    valid_conversation(agent.messages)
    records = load_transcript(agent.transcript_path).records
    assert any("stuck" in r.get("text", "") for r in records if r["kind"] == "notice")


async def test_two_calls_alternating_end_stuck(make_agent):
    a, b = call("read_file", path="calc.py"), call("glob", pattern="*.py")
    p = script(*[a, b] * 50)
    agent = await make_agent(p)
    end = of(await run(agent), E.TURN_END)[0]
    assert end.stop_reason is StopReason.STUCK and end.data["stuck"] == "alternate"
    assert len(p.requests) == 7


async def test_the_same_text_reply_repeated_ends_stuck(make_agent):
    turns = [call("grep", "Let me look at the code.", pattern=f"p{i}") for i in range(50)]
    p = script(*turns)
    agent = await make_agent(p)
    events = await run(agent)
    end = of(events, E.TURN_END)[0]
    assert end.stop_reason is StopReason.STUCK and end.data["stuck"] == "text"
    assert len(p.requests) == 4 and end.text == "Let me look at the code."
    assert "the same reply 3 times" in p.requests[3].messages[-1].blocks[-1].content


async def test_a_run_of_errors_from_one_tool_ends_stuck(make_agent):
    turns = [
        call("edit_file", path="calc.py", old_string=f"nope {i}", new_string="x") for i in range(50)
    ]
    p = script(call("read_file", path="calc.py"), *turns)
    agent = await make_agent(p)
    end = of(await run(agent), E.TURN_END)[0]
    assert end.stop_reason is StopReason.STUCK and end.data["stuck"] == "errors"
    assert len(p.requests) == 7  # the read, then six failing edits


async def test_a_model_that_listens_to_the_nudge_finishes_normally(make_agent, project):
    p = script(LOOP, LOOP, LOOP, LOOP, {"text": "Done: junk.py holds x = 1."})
    agent = await make_agent(p)
    end = of(await run(agent), E.TURN_END)[0]
    assert end.stop_reason is StopReason.END_TURN and end.text.startswith("Done")
    p.assert_complete()


async def test_the_counts_come_from_the_config(make_agent):
    a = call("glob", pattern="*")
    p = script(*[a] * 20)
    cfg = Config(stuck=StuckConfig(repeats=5, warnings=0))
    agent = await make_agent(p, config=cfg)
    end = of(await run(agent), E.TURN_END)[0]
    assert end.stop_reason is StopReason.STUCK and len(p.requests) == 5


async def test_switched_off_a_loop_runs_to_the_turn_limit(make_agent):
    a = call("glob", pattern="*")
    p = script(*[a] * 20)
    off = StuckConfig(repeats=0, same_calls=0, alternations=0, text_repeats=0, tool_errors=0)
    agent = await make_agent(p, config=Config(stuck=off), max_turns=8)
    end = of(await run(agent), E.TURN_END)[0]
    assert end.stop_reason is StopReason.MAX_TURNS and len(p.requests) == 8


async def test_each_user_turn_starts_counting_afresh(make_agent):
    a = call("glob", pattern="*")
    p = script(a, a, {"text": "ok"}, a, a, {"text": "ok again"})
    agent = await make_agent(p)
    assert of(await run(agent), E.TURN_END)[0].stop_reason is StopReason.END_TURN
    assert of(await run(agent), E.TURN_END)[0].stop_reason is StopReason.END_TURN


async def test_a_looping_subagent_is_stopped_and_the_parent_is_told(make_agent):
    worker = script(*[LOOP] * 100)
    worker.name, worker.model_id = "mid", "builder"
    main = script(
        {"tool_calls": [{"name": "task", "input": {"role": "worker", "prompt": "junk"}}]},
        {"text": "the worker got stuck"},
    )
    agent = await make_agent(main, resolver=Roles(main, worker=worker))
    events = await run(agent)
    assert len(worker.requests) == 5
    result = agent.messages[2].blocks[0].content
    assert "the worker subagent was stopped: it was stuck" in result
    subs = [n for n in of(events, E.NOTICE) if n.subagent == "worker"]
    assert any("stuck" in n.text for n in subs)
    assert of(events, E.TURN_END)[0].stop_reason is StopReason.END_TURN


async def test_the_same_call_with_a_different_result_each_time_still_ends_stuck(
    make_agent, project
):
    """issue 13: 29 identical edit_file calls, each appending 'again' to a file: every result
    differed, so 'repeat' never fired and the run went on until the wall clock."""
    append = call("bash", command="echo again >> notes.txt; wc -l notes.txt")
    p = script(*[append] * 100)
    agent = await make_agent(p)
    events = await run(agent)
    end = of(events, E.TURN_END)[0]
    assert end.stop_reason is StopReason.STUCK
    assert end.data == {"stuck": "same_call", "repeats": 7}
    assert len(p.requests) == 7  # nudged at the sixth call, stopped at the seventh
    assert "6 times in a row" in p.requests[6].messages[-1].blocks[0].content
    valid_conversation(agent.messages)


async def test_polling_a_job_is_not_being_stuck(make_agent):
    poll = call("job_output")
    p = script(*[poll] * 8, {"text": "done waiting"})
    agent = await make_agent(p, config=Config(stuck=StuckConfig(repeats=0, tool_errors=0)))
    end = of(await run(agent), E.TURN_END)[0]
    assert end.stop_reason is not StopReason.STUCK and end.text == "done waiting"
