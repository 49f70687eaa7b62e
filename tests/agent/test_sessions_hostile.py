"""Sessions against hostile input: ids that are paths, transcripts with corrupt records."""

from __future__ import annotations

import json

import pytest

from larik.agent.sessions import find_session, latest_session, list_sessions, project_dir, rebuild
from larik.agent.transcript import Transcript, TranscriptError, load_transcript
from larik.llm.types import Message

from .conftest import E, of, run, script, valid_conversation


def _victim(path, text="theirs"):
    path.parent.mkdir(parents=True, exist_ok=True)
    with Transcript.create(path, session_id="victim") as t:
        t.append_message(Message.user(text))
    return path.read_bytes()


@pytest.mark.parametrize(
    "make_id",
    [
        lambda victim, pdir: "../../../x/victim",
        lambda victim, pdir: str(victim.with_suffix("")),  # an absolute path
        lambda victim, pdir: "../" + pdir.name + "/../../x/victim",
        lambda victim, pdir: "sub/victim",
        lambda victim, pdir: ".hidden",
        lambda victim, pdir: "a\x00b",
        lambda victim, pdir: "x" * 200,
    ],
)
async def test_a_session_id_that_is_a_path_is_refused_and_nothing_outside_is_touched(
    make_agent, project, make_id
):
    pdir = project_dir(project)
    victim = (pdir / "../../../x/victim.jsonl").resolve()
    before = _victim(victim)
    (pdir / "sub").mkdir(parents=True)
    sub = _victim(pdir / "sub" / "victim.jsonl")
    bad = make_id(victim, pdir)
    with pytest.raises(TranscriptError, match="not a session id"):
        find_session(project, bad)
    with pytest.raises(TranscriptError, match="not a session id"):
        await make_agent(script({"text": "hijacked"}), resume=bad)
    assert victim.read_bytes() == before
    assert (pdir / "sub" / "victim.jsonl").read_bytes() == sub


async def test_a_symlink_in_the_sessions_folder_is_not_a_session(make_agent, project, tmp_path):
    victim = tmp_path / "elsewhere" / "victim.jsonl"
    before = _victim(victim)
    pdir = project_dir(project)
    pdir.mkdir(parents=True)
    (pdir / "20990101-000000-aaaaaa.jsonl").symlink_to(victim)
    assert list_sessions(project) == [] and latest_session(project) is None
    with pytest.raises(TranscriptError):
        await make_agent(script({"text": "x"}), resume="20990101-000000-aaaaaa")
    assert victim.read_bytes() == before


async def test_a_real_id_and_a_prefix_still_resume(make_agent):
    agent = await make_agent(script({"text": "x"}))
    await run(agent)
    await agent.close()
    assert find_session(agent.root, agent.session_id) == agent.transcript_path
    resumed = await make_agent(script(), resume=agent.session_id[:10])
    assert resumed.session_id == agent.session_id


CORRUPT_LINES = [
    b'{"kind": "compaction", "message": {"role": "user", "blocks": []}, "kept": Infinity}',
    b"[" * 100_000,
    b'{"kind":"message","message":{"role":"assistant","blocks":[{"type":"te',
    b"\x00\xff\xfe garbage \x80\x81",
    b'{"kind": "usage", "usage": {"input": 1e999}, "cost": 1e999}',
]


async def test_resume_skips_corrupt_lines_keeps_the_rest_and_reports_how_many(make_agent):
    agent = await make_agent(script({"text": "one"}, {"text": "two"}))
    await run(agent, "first")
    await agent.close()
    path = agent.transcript_path
    with open(path, "ab") as fh:
        for line in CORRUPT_LINES:
            fh.write(line + b"\n")
    with Transcript.reopen(path)[0] as t:  # a later, good record after the corrupt ones
        t.append_message(Message.user("second"))
        t.append_message(Message(role="assistant", blocks=[], model="m"))
    p2 = script({"text": "three"})
    resumed = await make_agent(p2, resume="latest")
    assert [m.text() for m in resumed.messages][:3] == ["first", "one", "second"]
    events = await run(resumed, "third")
    notices = [e.text for e in of(events, E.NOTICE)]
    report = [n for n in notices if "skipped" in n]
    assert len(report) == 1 and report[0].startswith("5 unreadable transcript lines skipped")
    assert of(events, E.TURN_END)[0].text == "three"
    valid_conversation(resumed.messages)
    # the report is in the transcript too, and the file still loads
    loaded = load_transcript(path)
    assert any(r.get("kind") == "notice" and "5 unreadable" in r["text"] for r in loaded.records)


def test_a_compaction_keeping_more_messages_than_exist_keeps_them_all():
    msgs = [Message.user("a"), Message(role="assistant", blocks=[], model="m")]
    summary = Message.user("summary").model_dump(mode="json")
    records = [{"kind": "message", "message": m} for m in msgs]
    out = rebuild({}, [*records, {"kind": "compaction", "message": summary, "kept": 7}])
    assert [m.text() for m in out.messages] == ["summary", "a", ""] and not out.problems
    for kept in (-1, 2.5, True, "3", None):
        bad = {"kind": "compaction", "message": summary, "kept": kept}
        out = rebuild({}, [*records, bad])
        assert len(out.messages) == 2 and len(out.problems) == 1, kept
        assert "compaction record was skipped" in out.report()


def test_a_model_switch_or_usage_with_odd_types_does_not_crash():
    records = [
        {"kind": "model_switch", "to": ["not", "a", "spec"]},
        {"kind": "usage", "usage": {"input": "many"}, "cost": "free"},
        {"kind": {"a": 1}},
    ]
    out = rebuild({"model": 3}, records)
    assert out.model == "" and len(out.problems) == 1
    assert json.dumps(out.report())  # one plain line


def test_a_usage_record_with_an_infinite_cost_is_skipped():
    rec = {"kind": "usage", "model": "m", "role": "main", "usage": {"input": 1}, "cost": 1e999}
    out = rebuild({}, [json.loads(json.dumps(rec))])
    assert out.usage == [] and "usage record was skipped" in out.report()
