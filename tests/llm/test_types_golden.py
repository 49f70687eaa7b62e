"""The neutral model is the on-disk model: every block kind round-trips byte-for-byte."""

from pathlib import Path

from larik.llm.types import Block, Message, Request, Usage

GOLDEN = Path(__file__).parents[1] / "fixtures" / "golden_transcript.jsonl"


def test_golden_transcript_round_trips_byte_identical():
    raw = GOLDEN.read_bytes()
    lines = raw.decode("utf-8").splitlines(keepends=True)
    assert len(lines) >= 5
    out = "".join(Message.model_validate_json(line).model_dump_json() + "\n" for line in lines)
    assert out.encode("utf-8") == raw


def test_golden_fixture_covers_every_block_kind():
    msgs = [Message.model_validate_json(x) for x in GOLDEN.read_text("utf-8").splitlines()]
    blocks = [b for m in msgs for b in m.blocks]
    kinds = {b.type for b in blocks}
    assert kinds == {"text", "thinking", "tool_use", "tool_result", "image", "opaque"}
    assert any(b.type == "thinking" and b.signature for b in blocks)
    assert any(b.type == "thinking" and b.redacted for b in blocks)
    assert any(b.type == "tool_result" and b.is_error and b.images for b in blocks)
    assert any(m.interrupted for m in msgs)


def test_tool_arguments_survive_byte_for_byte():
    args = '{"path":  "a.py" ,"n":1.50, "u":"\\u00e9"}'
    b = Block.tool_use("t1", "read_file", args)
    again = Message.model_validate_json(
        Message(role="assistant", blocks=[b]).model_dump_json()
    ).blocks[0]
    assert again.input == args
    assert again.input_dict() == {"path": "a.py", "n": 1.5, "u": "é"}


def test_opaque_raw_and_signature_never_altered():
    raw = '{"b": 1,  "a": [true, null], "z": "\\"q\\""}'
    m = Message(
        role="assistant",
        model="m",
        blocks=[Block.opaque("openai", raw), Block.thinking_block("t", signature="s+/=\n")],
    )
    again = Message.model_validate_json(m.model_dump_json())
    assert again.blocks[0].raw == raw
    assert again.blocks[1].signature == "s+/=\n"


def test_usage_adds_in_four_tiers():
    total = Usage(input=1, output=2, cache_read=3, cache_write=4) + Usage(input=10, output=20)
    assert total == Usage(input=11, output=22, cache_read=3, cache_write=4)
    assert total.context == 11 + 3 + 4


def test_request_system_accepts_a_string_or_blocks():
    assert Request(model="m", system="be brief").system == ["be brief"]
    assert Request(model="m", system=["a", "b"]).system_text() == "a\n\nb"
    assert Request(model="m").system == []
