"""A running command's output as tool_output events (larik/agent/live.py): they come while the
command runs, few and bounded however much it prints, before the call's tool_end; what the
model gets is still the bounded result."""

from __future__ import annotations

import asyncio
from pathlib import Path

from larik.agent.events import AgentEvent
from larik.agent.live import MAX_EVENT_BYTES, LiveOutput
from larik.agent.tools.bash import MAX_OUTPUT
from tests.patience import WAIT

from .conftest import E, of, script

TEN_MB = 10 * 1024 * 1024


def bash_call(command: str) -> dict:
    return {"tool_calls": [{"name": "bash", "input": {"command": command}, "id": "b1"}]}


async def test_the_first_chunk_goes_out_at_once_and_a_burst_becomes_one_more_event():
    got: list[AgentEvent] = []
    live = LiveOutput(got.append, "t1", "bash", interval=0.05)
    live.add(b"first\n")
    assert [e.text for e in got] == ["first\n"]  # not held back
    for i in range(1000):
        live.add(f"line {i}\n".encode())
    assert len(got) == 1  # gathered, not one event per chunk
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while len(got) < 2 and loop.time() < deadline:  # one interval later, on a loaded machine
        await asyncio.sleep(0.01)
    assert len(got) == 2 and got[1].text.endswith("line 999\n")
    assert got[1].tool_id == "t1" and got[1].type is E.TOOL_OUTPUT
    live.close()
    assert len(got) == 2  # nothing left to send


async def test_an_event_carries_only_the_newest_output_and_counts_what_it_left_out():
    got: list[AgentEvent] = []
    live = LiveOutput(got.append, "t1", "bash", interval=10, max_bytes=100)
    live.add(b"a")
    live.add(b"x" * 1000 + b"END")
    live.close()
    assert got[1].text.endswith("END") and len(got[1].text) == 100
    assert got[1].data == {"skipped": 903}


async def test_a_character_cut_between_two_chunks_arrives_whole():
    got: list[AgentEvent] = []
    live = LiveOutput(got.append, "t1", "bash", interval=0)
    euro = "€".encode()
    live.add(b"price " + euro[:1])
    live.add(euro[1:] + b"\n")
    live.close()
    assert "".join(e.text for e in got) == "price €\n"


async def test_a_failing_view_stops_getting_output_without_failing_the_command():
    def broken(ev: AgentEvent) -> None:
        raise RuntimeError("view bug")

    live = LiveOutput(broken, "t1", "bash", interval=0)
    live.add(b"x")  # raises inside: swallowed, the view gets no more
    live.add(b"y")
    live.close()


async def test_a_command_streams_its_output_before_it_exits(make_agent, project: Path):
    go = project / "go"
    command = f"echo started; while [ ! -e {go.name} ]; do sleep 0.01; done; echo finished"
    agent = await make_agent(script(bash_call(command), {"text": "done"}))
    seen: list[AgentEvent] = []
    async for ev in agent.run_turn("run it"):
        seen.append(ev)
        if ev.type is E.TOOL_OUTPUT and "started" in ev.text:
            assert not of(seen, E.TOOL_END)  # the command is still waiting for us
            go.touch()
    outputs = of(seen, E.TOOL_OUTPUT)
    assert "".join(e.text for e in outputs) == "started\nfinished\n"
    assert all(e.tool_id == "b1" and e.tool_name == "bash" for e in outputs)
    end = seen.index(of(seen, E.TOOL_END)[0])
    assert all(seen.index(e) < end for e in outputs)  # all of it before the call's end
    assert "started\nfinished" in of(seen, E.TOOL_END)[0].text


async def test_ten_megabytes_stream_as_few_bounded_events_and_a_bounded_result(make_agent):
    command = f"head -c {TEN_MB} /dev/zero | tr '\\0' x; echo; echo THE-END"
    agent = await make_agent(script(bash_call(command), {"text": "done"}))
    seen = [ev async for ev in agent.run_turn("flood")]
    outputs = of(seen, E.TOOL_OUTPUT)
    assert outputs and all(len(e.text.encode()) <= MAX_EVENT_BYTES for e in outputs)
    assert sum(len(e.text) for e in outputs) < TEN_MB  # bounded: the middle was skipped …
    assert sum(e.data.get("skipped", 0) for e in outputs) > 0  # … and the events say so
    assert outputs[-1].text.endswith("THE-END\n")  # the tail always arrives
    result = of(seen, E.TOOL_END)[0].text
    assert "THE-END" in result and len(result) < MAX_OUTPUT + 500  # what the model gets
    (sent,) = [b for m in agent.messages for b in m.blocks if b.type == "tool_result"]
    assert sent.content == result  # the model gets the result, not the stream


async def test_only_commands_stream(make_agent, project: Path):
    (project / "notes.txt").write_text("hello\n")
    read = {"tool_calls": [{"name": "read_file", "input": {"path": "notes.txt"}}]}
    agent = await make_agent(script(read, {"text": "done"}))
    assert not of([ev async for ev in agent.run_turn("read")], E.TOOL_OUTPUT)


async def test_a_key_split_between_two_events_never_leaves_in_parts():
    from larik.llm import secrets

    key = "gsk_live_SECRET_0123456789"
    secrets.remember(key)
    try:
        got: list[AgentEvent] = []
        live = LiveOutput(got.append, "t1", "bash", interval=0)
        live.add(b"token=" + key[:9].encode())  # the event goes out at once: the start waits
        assert [e.text for e in got] == ["token="]
        live.add(key[9:].encode() + b" done\n")
        live.add(b"ends with a prefix: gsk")
        live.close()
        sent = "".join(e.text for e in got)
        assert sent == "token=*** done\nends with a prefix: gsk"  # the held end goes out at close
        assert all(part not in e.text for e in got for part in (key[:9], key[9:]))
        # output dropped before an event cut a key: its end (what is left of it) is masked
        got.clear()
        live = LiveOutput(got.append, "t1", "bash", interval=10, max_bytes=40)
        live.add(b"a")
        live.add(b"x" * 100 + key.encode() + b" tail of the output")
        live.close()
        last = got[-1].text
        assert last.startswith("***") and "0123456789" not in last and last.endswith("output")
    finally:
        secrets.forget_all()


def test_split_tail_and_mask_head_leave_ordinary_text_alone():
    from larik.llm import secrets

    secrets.remember("sk-abcdefghijkl")
    try:
        assert secrets.split_tail("no secret here\n") == ("no secret here\n", "")
        assert secrets.split_tail("key: sk-ab") == ("key: ", "sk-ab")
        assert secrets.mask_head("hijkl rest") == "*** rest"
        assert secrets.mask_head("kl rest") == "kl rest"  # too short to be worth masking
    finally:
        secrets.forget_all()
