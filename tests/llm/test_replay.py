"""Switching models: reasoning goes only back to the provider *and* model that made it."""

from larik.llm.replay import replayable_blocks, replayable_messages
from larik.llm.types import Block, Message


def _assistant(model: str, provider: str) -> Message:
    return Message(
        role="assistant",
        model=model,
        blocks=[
            Block.thinking_block("hmm", signature="sig", provider=provider),
            Block.opaque(provider, '{"type":"reasoning"}'),
            Block.text_block("answer"),
            Block.tool_use("c1", "bash", '{"command":"ls"}'),
        ],
    )


def test_same_provider_and_model_gets_thinking_and_opaque():
    m = _assistant("claude-x", "anthropic")
    assert replayable_blocks(m, "anthropic", "claude-x") == m.blocks


def test_other_model_same_provider_gets_only_portable_blocks():
    m = _assistant("claude-x", "anthropic")
    kinds = [b.type for b in replayable_blocks(m, "anthropic", "claude-y")]
    assert kinds == ["text", "tool_use"]


def test_same_model_name_other_provider_gets_only_portable_blocks():
    m = _assistant("model-a", "openrouter")
    kinds = [b.type for b in replayable_blocks(m, "groq", "model-a")]
    assert kinds == ["text", "tool_use"]


def test_gemini_display_thoughts_are_never_replayed_even_to_gemini():
    m = Message(
        role="assistant",
        model="gemini-2.5-pro",
        blocks=[
            Block(type="thinking", text="summary", provider="gemini-display"),
            Block(type="text", text="hi", signature="thought-sig"),
        ],
    )
    out = replayable_blocks(m, "gemini", "gemini-2.5-pro")
    assert [b.type for b in out] == ["text"]
    assert out[0].signature == "thought-sig"


def test_tool_results_and_images_are_portable():
    m = Message(
        role="user",
        blocks=[
            Block.tool_result("c1", "ok", images=[Block.image("image/png", "AA==")]),
            Block.image("image/png", "AA=="),
        ],
    )
    assert replayable_blocks(m, "any", "thing") == m.blocks


def test_message_left_empty_is_dropped_and_stored_copy_untouched():
    m = Message(role="assistant", model="a", blocks=[Block.thinking_block("x", provider="p")])
    assert replayable_messages([m], "q", "b") == []
    assert len(m.blocks) == 1


# -- filtered once, by the adapter that really answers ------------------------------------------


async def test_after_a_fallback_switch_the_answering_model_gets_its_own_reasoning_back(tmp_path):
    """The agent does not filter: a fallback candidate that answered keeps seeing its own
    thinking on the next turn (the agent used to filter for the primary and strip it)."""
    from larik.agent import Agent
    from larik.config import Config
    from larik.llm.fallback import with_fallback
    from larik.llm.providers.scripted import ScriptedProvider
    from larik.routing import Resolved

    primary = ScriptedProvider([{"error": {"status": 503}}, {"error": {"status": 503}}])
    primary.name = "first"
    backup = ScriptedProvider(
        [{"thinking": "my own plan", "signature": "sig-b", "text": "one"}, {"text": "two"}]
    )
    backup.name = "second"
    chain = with_fallback([(primary, "model-a"), (backup, "model-b")])

    def resolver(spec: str) -> Resolved:
        return Resolved(chain, "model-a", "first", None, "first/model-a")

    agent = await Agent.create(
        cwd=tmp_path, config=Config(), resolver=resolver, permission_mode="yolo"
    )
    try:
        for prompt in ("go", "again"):
            [ev async for ev in agent.run_turn(prompt)]
    finally:
        agent.log.close()
    second = backup.requests[1].messages
    thinking = [b for m in second for b in m.blocks if b.type == "thinking"]
    assert [b.text for b in thinking] == ["my own plan"]


def test_messages_for_merges_only_around_a_dropped_message():
    from larik.llm.replay import messages_for
    from larik.llm.types import Request

    foreign = Message(
        role="assistant",
        model="claude-x",
        blocks=[Block.thinking_block("private", signature="s", provider="anthropic")],
    )
    msgs = [Message.user("a"), foreign, Message.user("b"), Message.user("c")]
    out = messages_for(Request(model="m", messages=msgs), "ollama")
    assert [[b.text for b in m.blocks] for m in out] == [["a", "b"], ["c"]]
