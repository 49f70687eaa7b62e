"""Compaction: on the threshold or a context overflow, summarise with the compact role."""

from __future__ import annotations

from larik.agent import Agent, compaction
from larik.agent.events import NoticeLevel
from larik.agent.transcript import load_transcript
from larik.config import Config, ModelOverride
from larik.llm.types import Block, Message

from .conftest import E, Roles, of, run, script, valid_conversation


def small_window(window: int = 2000, threshold: float = 0.5, **extra) -> Config:
    return Config(
        compact_threshold=threshold,
        models={"scripted/m": ModelOverride(context_window=window, **extra)},
    )


def summariser(text: str = "SUMMARY: the user wants add fixed.") -> object:
    p = script({"text": text, "usage": {"input": 50, "output": 10}})
    p.name = "cheap"
    p.model_id = "summ"
    return p


def tool_turn(i: int) -> Message:
    return Message(role="assistant", blocks=[Block.tool_use(f"c{i}", "glob", {"pattern": "*"})])


def result_turn(i: int, size: int = 10) -> Message:
    return Message(role="user", blocks=[Block.tool_result(f"c{i}", "x" * size)])


def test_the_cut_never_separates_a_tool_call_from_its_result():
    msgs = [Message.user("task")]
    for i in range(6):
        msgs += [tool_turn(i), result_turn(i, size=400)]
    for window in (100, 1000, 2000, 5000, 100_000):
        cut = compaction.choose_cut(msgs, window)
        assert 1 <= cut <= len(msgs)
        if cut < len(msgs):
            kept = msgs[cut]
            assert not (kept.role == "user" and kept.blocks[0].type == "tool_result")


def test_the_cut_keeps_recent_messages_within_the_budget():
    msgs = [Message.user("task")]
    for i in range(20):
        msgs += [tool_turn(i), result_turn(i, size=4000)]
    cut = compaction.choose_cut(msgs, 20_000)  # keep budget: 4,000 tokens
    assert (
        compaction.estimate_tokens(msgs[cut:]) <= 4000 < compaction.estimate_tokens(msgs[cut - 2 :])
    )


def test_the_summary_request_is_plain_text_with_long_results_shortened():
    msgs = [Message.user("fix it"), tool_turn(1), result_turn(1, size=50_000)]
    req = compaction.summary_request("summ", msgs, 100_000)
    assert req.tools == [] and len(req.messages) == 1
    body = req.messages[0].text()
    assert "fix it" in body and "[called glob" in body and "characters omitted" in body
    assert len(body) < 10_000


async def test_passing_the_threshold_compacts_with_the_compact_role(make_agent):
    main = script(
        {
            "tool_calls": [{"name": "read_file", "input": {"path": "calc.py"}}],
            "usage": {"input": 1500, "output": 10},
        },
        {"text": "fixed", "usage": {"input": 300, "output": 5}},
    )
    compact = summariser()
    roles = Roles(main, compact=compact)
    agent = await make_agent(main, resolver=roles, config=small_window())
    events = await run(agent, "fix add")
    assert "compact" in roles.asked
    assert len(compact.requests) == 1 and "fix add" in compact.requests[0].messages[0].text()
    sent = main.requests[1].messages
    assert sent[0].text().startswith(compaction.SUMMARY_HEADER)
    assert "SUMMARY: the user wants add fixed." in sent[0].text()
    valid_conversation(agent.messages)
    assert any("compacted" in n.text for n in of(events, E.NOTICE))
    assert [u.role for u in of(events, E.USAGE)] == ["main", "compact", "main"]
    assert agent.usage.by_role["compact"].input == 50 and "summ" in agent.usage.by_model
    rec = [r for r in load_transcript(agent.transcript_path).records if r["kind"] == "compaction"]
    assert len(rec) == 1 and rec[0]["reason"] == "threshold" and rec[0]["model"] == "cheap/summ"


async def test_tool_results_since_the_last_reply_count_toward_the_threshold(make_agent, project):
    (project / "big.txt").write_text(("word " * 20 + "\n") * 100)  # ~2,500 tokens once read
    main = script(
        {
            "tool_calls": [{"name": "read_file", "input": {"path": "big.txt"}}],
            "usage": {"input": 100, "output": 10},
        },
        {"text": "read it", "usage": {"input": 3000, "output": 5}},
    )
    compact = summariser()
    agent = await make_agent(main, resolver=Roles(main, compact=compact), config=small_window(4000))
    await run(agent)
    assert len(compact.requests) == 1  # compacted before the second call, not after it


async def test_a_context_overflow_compacts_and_retries_once(make_agent):
    main = script(
        {"text": "earlier answer"},
        {"error": {"status": "overflow", "message": "prompt is too long"}},
        {"text": "answered after compacting"},
    )
    compact = summariser()
    agent = await make_agent(main, resolver=Roles(main, compact=compact))
    await run(agent, "first question")
    events = await run(agent, "second question")
    assert of(events, E.TURN_END)[0].text == "answered after compacting"
    retry = main.requests[2].messages
    assert retry[0].text().startswith(compaction.SUMMARY_HEADER)
    assert retry[-1].text().endswith("second question")
    rec = [r for r in load_transcript(agent.transcript_path).records if r["kind"] == "compaction"]
    assert rec[0]["reason"] == "overflow"


async def test_an_overflow_after_compacting_ends_the_turn_with_a_clear_error(make_agent):
    overflow = {"error": {"status": "overflow", "message": "prompt is too long"}}
    main = script({"text": "earlier"}, overflow, overflow)
    agent = await make_agent(main, resolver=Roles(main, compact=summariser()))
    await run(agent, "one")
    events = await run(agent, "two")
    err = of(events, E.ERROR)
    assert len(err) == 1 and "even after compacting" in err[0].text
    valid_conversation(agent.messages)


async def test_resume_after_compaction_rebuilds_the_compacted_conversation(make_agent):
    main = script(
        {"text": "earlier answer"},
        {"error": {"status": "overflow", "message": "too long"}},
        {"text": "after"},
    )
    agent = await make_agent(main, resolver=Roles(main, compact=summariser()))
    await run(agent, "one")
    await run(agent, "two")
    await agent.close()  # a session is written by one agent at a time
    p2 = script({"text": "resumed"})
    resumed = await make_agent(p2, resume="latest")
    assert resumed.messages == agent.messages
    assert resumed.messages[0].text().startswith(compaction.SUMMARY_HEADER)
    await run(resumed, "three")
    assert p2.requests[0].messages[:-1] == agent.loop._request().messages


async def test_compact_on_demand(make_agent):
    main = script({"text": "a"}, {"text": "b"})
    agent = await make_agent(main, resolver=Roles(main, compact=summariser("short summary")))
    await run(agent, "one")
    await run(agent, "two")
    events = [ev async for ev in agent.compact()]
    assert len(agent.messages) == 1 and agent.messages[0].text().endswith("short summary")
    assert of(events, E.USAGE)[0].role == "compact"
    assert "## User\none" in compact_body(agent)


def compact_body(agent):
    return agent._settings.resolver("compact").provider.requests[0].messages[0].text()


async def test_a_smaller_loaded_window_than_the_catalogs_is_warned_about(make_agent):
    class Local:
        name = "scripted"

        def __init__(self):
            self.inner = script({"text": "hi"})
            self.requests = self.inner.requests

        def stream(self, request):
            return self.inner.stream(request)

        async def context_window(self, model):
            return 4096

        async def supports_tools(self, model):
            return True

    agent = await make_agent(Local(), config=small_window(window=32_768, threshold=0.8))
    events = await run(agent)
    warn = [n for n in of(events, E.NOTICE) if "4,096-token" in n.text]
    assert warn and warn[0].level is NoticeLevel.WARNING and "32,768" in warn[0].text
    assert agent.context_window == 4096


async def test_a_model_without_tools_is_warned_about_and_sent_no_tools(make_agent):
    class NoTools:
        name = "scripted"

        def __init__(self):
            self.inner = script({"text": "hi"})

        def stream(self, request):
            return self.inner.stream(request)

        async def context_window(self, model):
            return None

        async def supports_tools(self, model):
            return False

    p = NoTools()
    agent = await make_agent(p)
    events = await run(agent)
    assert any("does not support tools" in n.text for n in of(events, E.NOTICE))
    assert p.inner.requests[0].tools == []


async def test_a_catalog_model_without_tools_is_warned_about(make_agent):
    p = script({"text": "hi"})
    agent = await make_agent(p, config=small_window(window=8000, tools=False))
    events = await run(agent)
    assert any("does not support tools" in n.text for n in of(events, E.NOTICE))
    assert p.requests[0].tools == []


async def test_compaction_uses_the_model_in_use_when_the_compact_role_is_unset(project, tmp_path):
    """`larik -m MODEL` with no config and no key: /compact goes to MODEL, not to a default."""
    import json

    path = tmp_path / "s.json"
    path.write_text(json.dumps({"turns": [{"text": "a"}, {"text": "the summary"}]}))
    agent = await Agent.create(cwd=project, config=Config(), model=f"scripted/{path}")
    try:
        await run(agent, "one")
        events = [ev async for ev in agent.compact()]
    finally:
        await agent.close()
    assert not of(events, E.ERROR)
    assert agent.messages[0].text().endswith("the summary")


async def test_the_summary_request_fits_the_window_the_compact_models_server_loaded(make_agent):
    """A local compact model loaded with 4k tokens gets a 4k-sized request, not a catalog-sized
    one (which the server refuses: 'exceeds the available context size')."""

    class Local:
        name = "llamacpp"

        def __init__(self):
            self.inner = summariser("short")
            self.requests = self.inner.requests

        def stream(self, request):
            return self.inner.stream(request)

        async def context_window(self, model):
            return 4096

        async def supports_tools(self, model):
            return False

    main = script(*({"text": "x" * 20_000} for _ in range(3)))
    compact = Local()
    agent = await make_agent(main, resolver=Roles(main, compact=compact))
    for prompt in ("one", "two", "three"):
        await run(agent, prompt)
    events = [ev async for ev in agent.compact()]
    assert not of(events, E.ERROR)
    assert len(compact.requests[0].messages[0].text()) < 4096 * compaction.CHARS_PER_TOKEN


async def test_a_summary_request_that_overflows_is_retried_smaller(make_agent):
    main = script(*({"text": "x" * 20_000} for _ in range(3)))
    compact = script(
        {"error": {"status": "overflow", "message": "exceeds the available context size"}},
        {"text": "short summary"},
    )
    config = Config(models={"scripted/compact": ModelOverride(context_window=20_000)})
    agent = await make_agent(main, resolver=Roles(main, compact=compact), config=config)
    for prompt in ("one", "two", "three"):
        await run(agent, prompt)
    events = [ev async for ev in agent.compact()]
    assert not of(events, E.ERROR)
    assert agent.messages[0].text().endswith("short summary")
    first, second = (r.messages[0].text() for r in compact.requests)
    assert len(second) < len(first)
