"""One behaviour, every face (issue 23): each scenario runs through each face driver of
tests/session/faces.py — the Session API, print mode, the TUI (Textual's pilot), ACP (the
SDK's client) — on the scripted model, with real tools, a real transcript and real
checkpoints (git). A face that cannot take a step skips the scenario, saying why."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from larik.agent.sessions import find_session
from larik.agent.transcript import Transcript, load_transcript
from larik.llm import registry

from .faces import Face, script

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAcCBlCwAAAABJRU5ErkJggg=="
)
ECHO = {"tool_calls": [{"name": "bash", "input": {"command": "echo hello from the tool"}}]}


def _need(face: Face, step: str) -> None:
    if step in face.cannot:
        pytest.skip(f"the {face.name} face cannot {step}: {face.cannot[step]}")


def _transcript(project: Path, session_id: str) -> list:
    path = find_session(project, session_id)
    assert path is not None, f"no transcript for {session_id}"
    return load_transcript(path).messages


async def test_a_prompt_gets_the_reply_and_both_are_in_the_transcript(face, project, tmp_path):
    model = script(
        tmp_path / "m.json", {"text": "Hello there.", "usage": {"input": 9, "output": 3}}
    )
    await face.start(model)
    out = await face.prompt("say hello")
    assert (out.stop, out.text) == ("end_turn", "Hello there.")
    messages = _transcript(project, face.session_id)
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[0].blocks[0].text == "say hello"


@pytest.mark.parametrize("approve", [True, False], ids=["approved", "rejected"])
async def test_a_call_that_needs_approval_runs_only_when_approved(face, tmp_path, approve):
    model = script(tmp_path / "m.json", ECHO, {"text": "done"})
    await face.start(model, mode="ask")
    out = await face.prompt("greet", approve=approve)
    assert out.stop == "end_turn"
    [result] = out.results
    assert result.tool == "bash"
    if approve:
        assert not result.is_error and "hello from the tool" in result.content
    else:  # not run, and the model is told so
        assert result.is_error and "denied" in result.content
        assert "hello from the tool" not in result.content.replace("echo hello from the tool", "")
    if face.name != "print":  # the face's dialog was asked exactly once (print mode has none)
        assert out.asked == ["bash"]


async def test_cancel_mid_stream_ends_the_turn_and_the_session_goes_on(face, project, tmp_path):
    _need(face, "cancel")
    slow = {"text": "a long reply that streams slowly " * 20, "hold": 2}
    await face.start(script(tmp_path / "m.json", slow))
    out = await face.cancel_mid_stream("write a lot")
    assert out.stop == "cancelled"
    # the transcript is valid and the conversation goes on from it, reopened (on a model of
    # its own: a face may have played the first script in another process)
    await face.close()
    await face.start(
        script(tmp_path / "after.json", {"text": "after the interrupt"}), resume=face.session_id
    )
    again = await face.prompt("go on")
    assert (again.stop, again.text) == ("end_turn", "after the interrupt")
    roles = [m.role for m in _transcript(project, face.session_id)]
    assert roles[0] == "user" and roles[-1] == "assistant"


async def test_switch_model_sends_thinking_only_back_to_its_own_model(face, tmp_path):
    a = script(
        tmp_path / "a.json",
        {"thinking": "A's private reasoning", "text": "from A"},
        {"text": "A again"},
    )
    b = script(tmp_path / "b.json", {"text": "from B"})
    await face.start(a)
    assert (await face.prompt("first")).text == "from A"
    await face.switch_model(b)
    assert (await face.prompt("second")).text == "from B"
    await face.switch_model(a)
    assert (await face.prompt("third")).text == "A again"

    def thinking(requests: list) -> list[str]:
        return [x.text for m in requests[-1].messages for x in m.blocks if x.type == "thinking"]

    to_b = registry.scripted_provider(b.partition("/")[2]).requests
    to_a = registry.scripted_provider(a.partition("/")[2]).requests
    assert len(to_b) == 1 and thinking(to_b) == []  # B never sees A's reasoning
    texts = [x.text for m in to_b[0].messages for x in m.blocks if x.type == "text"]
    assert "from A" in texts  # but the conversation goes on: A's text is portable
    assert thinking(to_a) == ["A's private reasoning"]  # A gets its own back


async def test_set_mode_yolo_runs_a_command_without_asking(face, tmp_path):
    model = script(tmp_path / "m.json", ECHO, {"text": "done"})
    await face.start(model, mode="ask")
    await face.set_mode("yolo")
    out = await face.prompt("greet")  # approve=None: a question would fail the test
    [result] = out.results
    assert not result.is_error and "hello from the tool" in result.content


async def test_set_mode_plan_refuses_a_write_without_asking(face, project, tmp_path):
    write = {"tool_calls": [{"name": "write_file", "input": {"path": "x.py", "content": "1\n"}}]}
    model = script(tmp_path / "m.json", write, {"text": "planned"})
    await face.start(model, mode="ask")
    await face.set_mode("plan")
    out = await face.prompt("make x")
    assert out.results[0].is_error and not (project / "x.py").exists()


async def test_resume_goes_on_with_the_earlier_conversation(face, tmp_path):
    model = script(tmp_path / "m.json", {"text": "one"}, {"text": "two"})
    await face.start(model)
    await face.prompt("first")
    first = face.session_id
    await face.close()
    await face.start(model, resume=first)
    out = await face.prompt("second")
    assert out.text == "two" and face.session_id == first
    sent = registry.scripted_provider(model.partition("/")[2]).requests[-1]
    assert [m.role for m in sent.messages] == ["user", "assistant", "user"]


async def test_fork_goes_on_in_a_copy_and_keeps_the_original(face, project, tmp_path):
    _need(face, "fork")
    model = script(tmp_path / "m.json", {"text": "one"}, {"text": "two"})
    await face.start(model)
    await face.prompt("first")
    original = face.session_id
    await face.fork()
    await face.prompt("second")
    forked = face.session_id
    assert forked != original
    assert len(_transcript(project, forked)) == 4
    assert len(_transcript(project, original)) == 2  # kept as it was


async def test_undo_takes_back_the_last_turns_file_changes(face, project, tmp_path):
    _need(face, "undo")
    (project / "app.py").write_text("x = 1\n")
    edit = {
        "tool_calls": [
            {
                "name": "edit_file",
                "input": {"path": "app.py", "old_string": "x = 1", "new_string": "x = 2"},
            }
        ]
    }
    read = {"tool_calls": [{"name": "read_file", "input": {"path": "app.py"}}]}
    model = script(tmp_path / "m.json", read, edit, {"text": "changed"})
    await face.start(model, mode="edits")
    await face.prompt("change x")
    assert (project / "app.py").read_text() == "x = 2\n"
    said = await face.undo()
    assert "app.py" in said
    assert (project / "app.py").read_text() == "x = 1\n"


async def test_close_saves_the_session_and_lets_it_go(face, project, tmp_path):
    model = script(tmp_path / "m.json", {"text": "one"})
    await face.start(model)
    await face.prompt("first")
    await face.close()
    path = find_session(project, face.session_id)
    assert path is not None
    transcript, loaded = Transcript.reopen(path)  # not locked by the closed session any more
    transcript.close()
    assert [m.role for m in loaded.messages] == ["user", "assistant"]


async def test_an_image_the_prompt_names_reaches_the_model_as_an_image(face, project, tmp_path):
    (project / "shot.png").write_bytes(PNG)
    model = script(tmp_path / "m.json", {"text": "a dot"})
    await face.start(model)
    out = await face.prompt("what is in @shot.png")
    assert out.text == "a dot"
    [sent] = registry.scripted_provider(model.partition("/")[2]).requests
    images = [b for m in sent.messages for b in m.blocks if b.type == "image"]
    assert len(images) == 1 and base64.b64decode(images[0].data) == PNG
    assert images[0].media_type == "image/png"
    user = _transcript(project, face.session_id)[0]
    assert [b.type for b in user.blocks].count("image") == 1  # kept, as sent


async def test_a_mode_larik_does_not_have_is_refused_in_one_line_and_nothing_changes(
    face, tmp_path
):
    model = script(tmp_path / "m.json", ECHO, {"text": "done"})
    await face.start(model, mode="ask")
    said = await face.bad_mode("godmode")
    assert "godmode" in said and "\n" not in said and "Traceback" not in said
    out = await face.prompt("greet", approve=True)  # still ask: the call is asked about
    assert out.stop == "end_turn" and not out.results[0].is_error
    if face.name != "print":
        assert out.asked == ["bash"]


async def test_with_an_editor_the_file_tools_read_its_unsaved_buffer(face, project, tmp_path):
    _need(face, "editor")
    (project / "app.py").write_text("x = 1\n")
    face.buffers = {"app.py": "x = 1  # unsaved in the editor\n"}
    read = {"tool_calls": [{"name": "read_file", "input": {"path": "app.py"}}]}
    await face.start(script(tmp_path / "m.json", read, {"text": "read it"}))
    out = await face.prompt("read app.py")
    assert out.stop == "end_turn"
    [result] = [
        b
        for m in _transcript(project, face.session_id)
        for b in m.blocks
        if b.type == "tool_result"
    ]  # what the model was told
    assert "unsaved in the editor" in str(result.content) and not result.is_error
    assert (project / "app.py").read_text() == "x = 1\n"
