"""A reply that runs away is cancelled as it streams (issue 24 item 3): the same short piece or
an empty numbered list dozens of times, in text or in a tool call's arguments, stops the request
within a bounded number of deltas; the model is nudged and asked once more, cooler; a second
runaway ends the turn stuck."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from larik.agent.profile import SMALL_SAMPLING
from larik.agent.runaway import (
    BLOCK_REPEATS,
    LONG_NUMBERED,
    MIN_SPAN,
    NUMBERED,
    RunawayWatch,
    cooler,
)
from larik.llm.providers.openai_compat import OpenAICompatProvider
from larik.llm.types import EventType, StopReason
from tests.llm.helpers import endpoint
from tests.llm.providers.kits.openai_compat import chunk, reply
from tests.loopback import Reply

from .conftest import E, of, resolved, run, script, valid_conversation

pytestmark = pytest.mark.usefixtures("small_loop")  # the small profile's loop

ROOT = Path(__file__).resolve().parents[2]
SMALL = "qwen2.5-coder-1.5b-instruct"
# the 1.5B model's write_file: a start, then "1. 2. 3. …" until the output cap
COUNTING = "".join(f"{i}. " for i in range(1, 5001))
BOUND = 40  # deltas of the runaway reply pulled before it is cancelled


class Counting:
    """The provider's stream, counting the events pulled from each reply until it is closed."""

    def __init__(self, inner):
        self.inner, self.name, self.pulled = inner, inner.name, []

    async def stream(self, request):
        n = 0
        try:
            async for ev in self.inner.stream(request):
                if ev.type is not EventType.DONE:
                    n += 1
                yield ev
        finally:
            self.pulled.append(n)


def first_runaway(data: str, channel: str = "text", piece: int = 3):
    watch = RunawayWatch()
    for i in range(0, len(data), piece):
        if (found := watch.feed(data[i : i + piece], channel)) is not None:
            return i // piece + 1, found
    return None


def test_a_numbered_list_and_a_repeated_piece_are_found_within_a_bounded_stretch():
    at, found = first_runaway(COUNTING)
    assert found.pattern == "numbered" and at * 3 <= NUMBERED * 5 + 20
    at, found = first_runaway(json.dumps("".join(f"{i}.\n" for i in range(900))), "arguments")
    assert found.pattern == "numbered" and found.channel == "arguments"
    at, found = first_runaway("The answer is 42. " * 300)
    assert found.pattern == "repeat" and at * 3 <= MIN_SPAN + 20
    assert "'The answer is 42. '" in found.describe()
    at, found = first_runaway(json.dumps("    return self.value\n" * 300), "arguments", piece=1)
    assert found.unit.strip() == "return self.value" and at <= MIN_SPAN * 2


MEDIAN = (
    "def median(values):\n"
    '    """Median of a non-empty sequence of numbers."""\n'
    "    if not values:\n"
    '        raise ValueError("median of empty data")\n'
    "    ordered = sorted(values)\n"
    "    mid = len(ordered) // 2\n"
    "    if len(ordered) % 2:\n"
    "        return ordered[mid]\n"
    "    return (ordered[mid - 1] + ordered[mid]) / 2\n"
    "=======\n\n>>>>>>> REPLACE\n"
)


def test_a_repeated_block_is_found_too():
    """Measured (qwen2.5-coder-0.5b, fix-failing-test, search/replace blocks): a 325-character
    block over and over to the output cap, twice, and the run ended by the wall clock."""
    said = "stats.py\n```python\n<<<<<<< SEARCH\n" + MEDIAN * 30
    at, found = first_runaway(said, piece=4)
    assert found.pattern == "repeat" and found.count == BLOCK_REPEATS
    assert at * 4 <= 40 + (BLOCK_REPEATS + 1) * len(MEDIAN)
    blocks = "".join(MEDIAN.replace("median", f"median{i}") for i in range(12))
    assert first_runaway(blocks) is None  # blocks that differ are not a repeat
    assert first_runaway(MEDIAN * (BLOCK_REPEATS - 1)) is None


def test_a_numbered_list_of_one_long_item_is_found_too():
    """Measured (qwen2.5-coder-0.5b, settings-clear-errors, search/replace blocks asked for):
    a 58-character item under 126 numbers, until the output cap, three replies running — the
    run ended by the wall clock. Found within LONG_NUMBERED items."""
    item = ". Change `app/settings.py` to load a JSON settings file.\n"
    said = "One sentence, then each file to change:\n\n" + "".join(
        f"{i}{item}" for i in range(1, 130)
    )
    at, found = first_runaway(said, piece=4)
    assert found.pattern == "numbered" and found.count == LONG_NUMBERED
    assert at * 4 <= 45 + (LONG_NUMBERED + 2) * (len(item) + 3)
    assert "a numbered item in its text ('N. Change `app/settings.py`" in found.describe()
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi".split()
    steps = "".join(
        f"{i}. Change `{w}.py`: rename `old_{w}` to `new_{w}`.\n" for i, w in enumerate(words)
    )
    assert first_runaway(steps * 3) is None  # what changes is more than the number


@pytest.mark.parametrize("name", ["docs/security.md", "larik/agent/agent.py", "docs/tools.md"])
def test_the_projects_own_files_never_count_as_a_runaway(name):
    """Tables, code, box drawing: text or JSON-escaped (\\u2500, \\n) as a tool call sends it."""
    text = (ROOT / name).read_text()
    assert first_runaway(text, piece=7) is None
    assert first_runaway(json.dumps(text)[1:-1], "arguments", piece=7) is None
    assert first_runaway(json.dumps("─" * 80 + "\n" + "=" * 120)[1:-1], "arguments") is None


async def test_a_write_that_degenerates_into_a_numbered_list_is_cancelled_and_asked_again(
    make_agent, project
):
    before = (project / "calc.py").read_text()
    runaway = {"path": "calc.py", "content": "def add(a, b):\n" + COUNTING}
    fix = {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"}
    inner = script(
        {"tool_calls": [{"name": "read_file", "input": {"path": "calc.py"}}]},
        {"tool_calls": [{"name": "write_file", "input": runaway}]},
        {"tool_calls": [{"name": "edit_file", "input": fix}]},
        {"text": "fixed"},
    )
    p = Counting(inner)
    agent = await make_agent(p, resolver=lambda spec: resolved(p, model=SMALL))
    events = await run(agent)
    total = len(json.dumps(runaway)) // 8  # the deltas the whole reply would have been
    assert p.pulled[1] <= BOUND < total // 50, p.pulled
    assert (project / "calc.py").read_text() == before.replace("a - b", "a + b")
    notes = [n.text for n in of(events, E.NOTICE)]
    assert any("reply was cancelled: it kept repeating an empty numbered list" in n for n in notes)
    retry = inner.requests[2]
    assert retry.temperature == cooler(SMALL_SAMPLING.temperature) < SMALL_SAMPLING.temperature
    assert inner.requests[3].temperature == SMALL_SAMPLING.temperature  # only the retry
    nudge = retry.messages[-1].blocks[-1].text
    assert "your last reply was stopped and discarded" in nudge and "edit_file" in nudge
    sent = json.dumps([m.model_dump() for m in retry.messages])
    assert "5. 6. 7." not in sent  # the runaway is not sent back
    assert of(events, E.TURN_END)[0].text == "fixed"
    valid_conversation(agent.messages)


async def test_a_second_runaway_in_the_turn_ends_it_stuck(make_agent):
    loop = {"text": "I will fix it. " * 400}
    p = Counting(script(loop, loop))
    agent = await make_agent(p, resolver=lambda spec: resolved(p, model=SMALL))
    events = await run(agent)
    end = of(events, E.TURN_END)[0]
    assert end.stop_reason is StopReason.STUCK and end.data["stuck"] == "runaway"
    assert all(n <= MIN_SPAN // 8 + 10 for n in p.pulled), p.pulled
    assert any("ran away again" in n.text for n in of(events, E.NOTICE))
    assert [m.role for m in agent.messages] == ["user", "user"]  # the prompt, the nudge


async def test_a_real_servers_runaway_stream_is_closed_before_it_ends(make_agent, loopback):
    """An OpenAI-compatible stream of a write_file whose arguments repeat: 3,000 chunks 5 ms
    apart (15 s and more) — the connection is closed before its end (the server sees the
    client go while it still sends), and the retry is sent cooler."""
    start = {"index": 0, "id": "call_1", "type": "function"}
    start["function"] = {"name": "write_file", "arguments": '{"path": "a.py", "content": "'}
    chunks = [chunk({"role": "assistant", "tool_calls": [start]})]
    line = {"index": 0, "function": {"arguments": "x = 1\\n"}}
    chunks += [chunk({"tool_calls": [line]}) for _ in range(3000)]
    for probe in ("/props", "/v1/models", f"/api/v0/models/{SMALL}"):
        loopback.route(probe, Reply(status=404, body="{}", content_type="application/json"))
    parts = [f"data: {json.dumps(c)}\n\n" for c in chunks]
    loopback.add(
        Reply(body=parts, chunk_delay=0.005),
        reply([chunk({"role": "assistant", "content": "sorry"}), chunk(finish="stop")]),
    )
    provider = OpenAICompatProvider(endpoint("openai-compatible", f"{loopback.url}/v1"))
    agent = await make_agent(provider, resolver=lambda spec: resolved(provider, model=SMALL))
    events = await run(agent)
    assert loopback.wait_disconnect()  # gone mid-stream: a stream read to its end sets nothing
    assert not (agent.root / "a.py").exists()
    chats = [r.json() for r in loopback.requests if r.path.endswith("/chat/completions")]
    assert len(chats) == 2 and chats[1]["temperature"] < chats[0]["temperature"]
    assert "stopped and discarded" in json.dumps(chats[1]["messages"])
    assert of(events, E.TURN_END)[0].text == "sorry"


async def test_a_large_model_is_not_watched_unless_the_config_says_so(make_agent):
    from larik.config import Config, ModelOverride

    long = {"text": "word " * 400}  # a long repetition from a model trusted to mean it
    p = Counting(script(long))
    agent = await make_agent(p)
    assert of(await run(agent), E.TURN_END)[0].text == long["text"]
    p = Counting(script(long, {"text": "ok"}))
    cfg = Config(models={"scripted/m": ModelOverride(cancel_runaway=True)})
    agent = await make_agent(p, config=cfg)
    assert of(await run(agent), E.TURN_END)[0].text == "ok"
