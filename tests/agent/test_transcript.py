"""The JSONL transcript: append-only, flushed, tolerant of a crash, strict about versions."""

import json

import pytest

from larik.agent.transcript import (
    FORMAT_VERSION,
    Transcript,
    TranscriptError,
    load_transcript,
)
from larik.llm.types import Block, Message


def _msgs():
    return [
        Message.user("hello"),
        Message(
            role="assistant",
            model="m",
            blocks=[
                Block.thinking_block("t", signature="s", provider="p"),
                Block.tool_use("c1", "bash", '{"command": "ls"}'),
            ],
        ),
        Message(role="user", blocks=[Block.tool_result("c1", "a.py\n")]),
    ]


def test_header_then_one_record_per_message(tmp_path):
    path = tmp_path / "s.jsonl"
    with Transcript.create(path, cwd=tmp_path, session_id="abc") as t:
        for m in _msgs():
            t.append_message(m)
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["kind"] == "header" and header["session"] == "abc"
    assert header["cwd"] == str(tmp_path) and header["format"] == FORMAT_VERSION
    assert header["larik"] and header["started"]
    loaded = load_transcript(path)
    assert loaded.messages == _msgs() and not loaded.problems


def test_each_append_is_on_disk_before_it_returns(tmp_path):
    path = tmp_path / "s.jsonl"
    t = Transcript.create(path)
    t.append_message(Message.user("one"))
    # read through a separate handle while the writer is still open
    assert load_transcript(path).messages[0].text() == "one"
    t.close()


def test_truncated_last_line_is_tolerated_and_cut_on_reopen(tmp_path):
    path = tmp_path / "s.jsonl"
    with Transcript.create(path) as t:
        for m in _msgs():
            t.append_message(m)
    with open(path, "a") as fh:
        fh.write('{"kind":"message","message":{"role":"assis')  # crash mid-write
    loaded = load_transcript(path)
    assert loaded.truncated_tail and not loaded.problems and len(loaded.messages) == 3
    t, again = Transcript.reopen(path)
    t.append_message(Message.user("after the crash"))
    t.close()
    final = load_transcript(path)
    assert [m.text() for m in final.messages][-1] == "after the crash"
    assert not final.problems and len(final.messages) == 4


def test_corrupt_lines_are_reported_by_number_and_good_lines_kept(tmp_path):
    path = tmp_path / "s.jsonl"
    with Transcript.create(path) as t:
        t.append_message(Message.user("first"))
        t._write_line("this is not json")
        t._write_line('{"kind":"message","message":{"role":"robot","blocks":[]}}')
        t.append_message(Message.user("last"))
    loaded = load_transcript(path)
    assert [m.text() for m in loaded.messages] == ["first", "last"]
    assert len(loaded.problems) == 2
    assert loaded.problems[0].endswith(":3: not valid JSON, skipped")
    assert ":4: not a valid message (role" in loaded.problems[1]


def test_unknown_record_kinds_are_kept(tmp_path):
    path = tmp_path / "s.jsonl"
    with Transcript.create(path) as t:
        t.append({"kind": "model_switch", "to": "gpt-5"})
    assert load_transcript(path).records == [{"kind": "model_switch", "to": "gpt-5"}]


def test_a_newer_format_is_refused_clearly(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(
        json.dumps({"kind": "header", "session": "x", "format": FORMAT_VERSION + 1}) + "\n"
    )
    with pytest.raises(TranscriptError, match="newer than this Larik"):
        load_transcript(path)


def test_not_a_session_file_is_refused(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"role":"user"}\n')
    with pytest.raises(TranscriptError, match=":1: not a Larik session"):
        load_transcript(path)
