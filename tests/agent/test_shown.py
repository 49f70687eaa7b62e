"""Display-only transcript records read back defensively (issue 19 items 14, 28): a record of
the wrong shape is left out, never a crash; compaction drops what it replaced."""

from __future__ import annotations

from larik.agent.sessions import rebuild
from larik.agent.shown import MAX_DIFF, Shown, shell_record, tool_end_record
from larik.llm.types import Message


def test_records_of_the_wrong_shape_are_left_out():
    s = Shown()
    for rec in (
        {"kind": "tool_end", "id": 7, "duration": 1},
        {"kind": "tool_end", "id": "a", "duration": "soon", "data": ["x"]},
        {
            "kind": "tool_end",
            "id": "b",
            "duration": float("nan"),
            "data": {"diff": "x" * (MAX_DIFF + 1), "exit_code": 1, "deep": {"a": 1}},
        },
        {"kind": "notice", "text": None},
        {"kind": "notice", "text": "hi", "level": "shout", "subagent": 3},
        {"kind": "shell", "command": ["rm"]},
        {"kind": "shell", "command": "ls", "output": 5, "exit_code": "0", "duration": -4},
    ):
        s.take(rec, 0)
    assert s.tool_ends == {
        "a": {"duration": None, "data": {}},
        "b": {"duration": None, "data": {"exit_code": 1}},
    }
    assert [r for _, r in s.items] == [
        {"kind": "notice", "text": "hi", "level": "info", "subagent": ""},
        {"kind": "shell", "command": "ls", "output": "", "exit_code": -1, "duration": 0.0},
    ]


def test_what_is_recorded_is_small_and_read_back_the_same():
    rec = tool_end_record("c1", 1.23456, {"exit_code": 2, "diff": "d" * (MAX_DIFF + 1), "x": [1]})
    assert rec == {"kind": "tool_end", "id": "c1", "duration": 1.235, "data": {"exit_code": 2}}
    out = shell_record("seq 1 9", "y" * 20_000, 0, 0.5)
    assert len(out["output"]) == 16_000
    s = Shown()
    s.take(rec, 1)
    assert s.tool_ends["c1"] == {"duration": 1.235, "data": {"exit_code": 2}}


def test_the_text_a_write_replaced_is_not_recorded():
    rec = tool_end_record("c1", 0.5, {"diff": "-a\n+b\n", "previous": "a\n" * 1000})
    assert rec["data"] == {"diff": "-a\n+b\n"}  # the editor had it live; the transcript not


def test_a_compaction_drops_the_notices_before_it_and_the_context_of_the_last_reply():
    header = {"kind": "header", "model": "p/m"}
    records = [
        {"kind": "message", "message": Message.user("one")},
        {"kind": "notice", "text": "before", "level": "warning"},
        {"kind": "usage", "model": "m", "role": "main", "usage": {"input": 100, "output": 5}},
        {
            "kind": "compaction",
            "message": Message.user("summary").model_dump(mode="json"),
            "kept": 0,
        },
        {"kind": "notice", "text": "after", "level": "info"},
    ]
    out = rebuild(header, records)
    assert [r["text"] for _, r in out.shown.items] == ["after"]
    assert out.shown.context == 0
    out = rebuild(header, records[:3])
    assert out.shown.context == 105 and out.shown.items[0][0] == 1
