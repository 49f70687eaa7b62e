"""The Session API's own rules, beyond the behaviour every face shares (test_behaviour.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from larik.config import Config
from larik.llm.errors import LarikError
from larik.session import Session, SessionBusy, SessionEvent, SessionEventType, SessionOptions
from larik.session.commands import builtin_names, parse

from .faces import script


async def _started(project, model: str, **kw) -> Session:
    session = Session(project, Config(), SessionOptions(model=model, **kw))
    await session.start()
    return session


async def test_events_carry_the_turn_in_order_and_end_when_the_session_closes(project, tmp_path):
    session = await _started(project, script(tmp_path / "m.json", {"text": "hi"}))
    stream = session.events()
    await session.send("hello").run()
    await session.close()
    seen = [ev async for ev in stream]
    kinds = [ev.type.value for ev in seen]
    assert kinds[0] == "turn_started" and kinds[-1] == "turn_finished"
    assert "text_delta" in kinds and kinds.index("turn_end") < kinds.index("turn_finished")
    last = seen[-1]
    assert isinstance(last, SessionEvent) and last.result is not None
    assert (last.result.stop, last.result.text) == ("end_turn", "hi")


async def test_a_second_turn_while_one_runs_is_refused(project, tmp_path):
    slow = {"text": "x" * 400, "hold": 2}
    session = await _started(project, script(tmp_path / "m.json", slow, {"text": "b"}))
    turn = session.send("one")
    first = aiter(turn)
    await anext(first)  # the first turn is under way
    with pytest.raises(SessionBusy):
        await session.send("two").run()
    assert session.busy is True  # the refused turn did not end the running one
    assert session.cancel() is True
    rest = [ev async for ev in first]  # the cancelled turn ends without an exception
    assert all(ev.type.value != "turn_end" for ev in rest)
    assert turn.result.stop == "cancelled"
    assert session.busy is False and session.cancel() is False
    await session.close()


async def test_without_an_approval_hook_a_call_that_needs_asking_is_denied(project, tmp_path):
    echo = {"tool_calls": [{"name": "bash", "input": {"command": "echo hi"}}]}
    session = await _started(project, script(tmp_path / "m.json", echo, {"text": "ok"}))
    events: list = []
    await session.send("go").run(events.append)
    [end] = [ev for ev in events if ev.type.value == "tool_end"]
    assert end.is_error and end.data.get("denied")
    await session.close()


async def test_a_bad_mode_or_effort_is_one_line_and_changes_nothing(project, tmp_path):
    session = await _started(project, script(tmp_path / "m.json"), permission_mode="ask")
    with pytest.raises(LarikError, match="unknown permission mode 'loose'"):
        session.settings.set_mode("loose")
    with pytest.raises(LarikError, match="unknown effort"):
        session.settings.set_effort("extreme")
    assert session.permission_mode == "ask"
    assert session.settings.set_mode("plan") == "ask" and session.permission_mode == "plan"
    await session.close()


async def test_changes_are_published_for_a_status_line(project, tmp_path):
    session = await _started(project, script(tmp_path / "m.json"))
    stream = session.events()
    session.settings.set_mode("edits")
    session.settings.set_effort("high")
    changed = [ev.text for ev in stream.drain() if ev.type is SessionEventType.CHANGED]
    assert changed == ["mode", "effort"]
    await session.close()


def test_slash_parsing_is_face_neutral_and_names_the_builtins():
    assert parse("/model  openai/gpt-5 ") == ("model", "openai/gpt-5")
    assert parse("/usr/bin/env") is None and parse("// not a command") is None
    assert {"model", "clear", "new", "exit", "q"} <= builtin_names()


def test_importing_the_session_imports_no_pydantic_and_no_sdk():
    probe = (
        "import sys, larik.session\n"
        "heavy = ('pydantic', 'larik.llm.types', 'larik.config', 'anthropic', 'openai', 'mcp')\n"
        "print(','.join(h for h in heavy if h in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


async def test_a_calls_duration_is_the_one_the_transcript_keeps_live_and_resumed(project, tmp_path):
    """A card resumed reads as it did live: a call of 0.0499 s was shown live as 0.0s, kept
    as 0.05 and resumed as 0.1s (a CI failure of test_resume_parity)."""
    import json

    echo = {"tool_calls": [{"name": "bash", "input": {"command": "echo hi"}}]}
    model = script(tmp_path / "m.json", echo, {"text": "ok"})
    session = await _started(project, model, permission_mode="yolo")
    events: list = []
    await session.send("go").run(events.append)
    [end] = [ev for ev in events if ev.type.value == "tool_end"]
    _, shell_seconds = await session.run_shell("echo from the user", lambda _: None, 10)
    path = session.agent.log.path
    await session.close()
    records = [json.loads(line) for line in path.read_text().splitlines()]
    [kept] = [r["duration"] for r in records if r.get("kind") == "tool_end"]
    [shell] = [r["duration"] for r in records if r.get("kind") == "shell"]
    assert end.duration == kept and shell_seconds == shell
