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


# -- private, locked, never following a link ------------------------------------------------


def test_a_transcript_and_a_folder_made_for_it_are_private(tmp_path):
    path = tmp_path / "new" / "deeper" / "s.jsonl"
    with Transcript.create(path) as t:
        t.append_message(Message.user("secret file contents"))
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert path.parent.parent.stat().st_mode & 0o777 == 0o700


def test_reopening_an_old_world_readable_transcript_makes_it_private(tmp_path):
    path = tmp_path / "s.jsonl"
    with Transcript.create(path) as t:
        t.append_message(Message.user("one"))
    path.chmod(0o644)
    tmp_path.chmod(0o755)
    t, _ = Transcript.reopen(path)
    t.close()
    assert path.stat().st_mode & 0o777 == 0o600
    assert tmp_path.stat().st_mode & 0o777 == 0o700


def test_a_second_writer_is_refused_until_the_first_closes(tmp_path):
    from larik.agent.transcript import SessionLocked

    path = tmp_path / "s.jsonl"
    first = Transcript.create(path, session_id="s")
    first.append_message(Message.user("one"))
    with pytest.raises(SessionLocked, match="in use"):
        Transcript.reopen(path)
    first.append_message(Message.user("two"))
    first.close()
    second, loaded = Transcript.reopen(path)
    assert [m.text() for m in loaded.messages] == ["one", "two"]
    with pytest.raises(SessionLocked):
        Transcript.reopen(path)
    second.close()


def test_a_locked_transcript_is_not_cut_while_its_writer_is_mid_line(tmp_path):
    """The lock is taken before reading: a half-written last line of a live session is the
    writer's, not a crash to repair."""
    from larik.agent.transcript import SessionLocked

    path = tmp_path / "s.jsonl"
    first = Transcript.create(path)
    first._fh.write('{"kind":"message","mess')  # a write in progress
    first._fh.flush()
    size = path.stat().st_size
    with pytest.raises(SessionLocked):
        Transcript.reopen(path)
    assert path.stat().st_size == size
    first.close()


def test_a_symlinked_transcript_is_never_opened(tmp_path):
    victim = tmp_path / "victim.jsonl"
    with Transcript.create(victim) as t:
        t.append_message(Message.user("theirs"))
    before = victim.read_bytes()
    link = tmp_path / "s.jsonl"
    link.symlink_to(victim)
    with pytest.raises(TranscriptError, match="symbolic link"):
        Transcript.reopen(link)
    with pytest.raises(TranscriptError, match="symbolic link"):
        Transcript.create(link)
    assert victim.read_bytes() == before


# -- corrupt lines: skipped and counted, never a crash --------------------------------------

CORRUPT = {
    "infinity": b'{"kind": "usage", "usage": {"input": 1}, "cost": Infinity}',
    "nan message": b'{"kind":"message","message":{"role":"user","blocks":[],"x":NaN}}',
    "deep nesting": b"[" * 100_000,
    "deep object": b'{"kind":"notice","text":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "truncated": b'{"kind":"message","message":{"role":"user","blo',
    "binary": bytes(range(256)) * 4,
    "not an object": b"[1, 2, 3]",
}


@pytest.mark.parametrize("name", CORRUPT)
def test_a_corrupt_line_in_the_middle_is_skipped_and_reported(tmp_path, name):
    path = tmp_path / "s.jsonl"
    with Transcript.create(path) as t:
        t.append_message(Message.user("before"))
        t._fh.write(CORRUPT[name].decode("latin-1").replace("\n", " ") + "\n")
        t.append_message(Message.user("after"))
    if name == "binary":  # written as bytes, exactly
        lines = path.read_bytes().split(b"\n")
        lines[2] = CORRUPT[name].replace(b"\n", b" ")
        path.write_bytes(b"\n".join(lines))
    loaded = load_transcript(path)
    assert [m.text() for m in loaded.messages] == ["before", "after"]
    assert len(loaded.problems) == 1 and ":3: not valid JSON" in loaded.problems[0]


def test_a_header_nested_too_deep_is_a_clear_error(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"[" * 100_000 + b"\n")
    with pytest.raises(TranscriptError, match=":1: the header is not valid JSON"):
        load_transcript(path)


def test_a_lone_surrogate_escape_is_a_corrupt_line_and_a_pair_is_text(tmp_path):
    """`"\\ud800"` parses, but no text has it: kept, it would break the next dump of the
    conversation (a request, a compaction) long after the resume."""
    path = tmp_path / "s.jsonl"
    with Transcript.create(path) as t:
        t._write_line(
            '{"kind":"message","message":{"role":"user","blocks":[{"type":"text","text":"a\\ud800b"}]}}'
        )
        t._write_line('{"kind":"notice","text":"x\\uDFFF","level":"info"}')
        t._write_line(
            '{"kind":"message","message":{"role":"user","blocks":[{"type":"text","text":"smile \\ud83d\\ude00"}]}}'
        )
    loaded = load_transcript(path)
    assert [m.text() for m in loaded.messages] == ["smile \U0001f600"]
    assert len(loaded.problems) == 2 and all("not valid JSON" in p for p in loaded.problems)


def test_a_reopened_session_is_named_by_its_file_when_the_header_id_is_unusable(tmp_path):
    for bad in ({"a": 1}, "../../x", "", None):
        path = tmp_path / "20250101-000000-abcdef.jsonl"
        header = {"kind": "header", "session": bad, "format": FORMAT_VERSION}
        path.write_text(json.dumps(header) + "\n")
        t, _ = Transcript.reopen(path)
        assert t.session_id == "20250101-000000-abcdef", bad
        t.close()


def test_a_file_system_without_locks_still_gets_its_transcript(tmp_path, monkeypatch):
    import errno

    import filelock

    def no_locks(fd, **kw):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(filelock, "lock_descriptor", no_locks)
    with Transcript.create(tmp_path / "s.jsonl") as t:
        t.append_message(Message.user("still written"))
    assert load_transcript(tmp_path / "s.jsonl").messages[0].text() == "still written"

    def broken(fd, **kw):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(filelock, "lock_descriptor", broken)
    with pytest.raises(TranscriptError, match="cannot lock the session file"):
        Transcript.reopen(tmp_path / "s.jsonl")
