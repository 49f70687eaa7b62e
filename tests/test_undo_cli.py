"""Checkpoints from the command line: `larik -p` turns, then `larik undo`, `larik rewind` and
`larik --resume ID --fork`, on a scripted model in a temp project (a git repository whose own
state must not change)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from larik.agent.sessions import list_sessions
from larik.agent.transcript import load_transcript

from .agent.test_checkpoints import git, tree_digest
from .test_printmode import larik, write_script

ORIGINAL = "def add(a, b):\n    return a - b\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "calc.py").write_text(ORIGINAL)
    (root / "keep.txt").write_text("keep me\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    git(root, "branch", "side")
    monkeypatch.chdir(root)
    return root


def call(name: str, **args) -> dict:
    return {"tool_calls": [{"name": name, "input": args}]}


READ = call("read_file", path="calc.py")  # a file is replaced only after it was read


def turn(tmp_path: Path, name: str, *steps: dict, resume: bool = True) -> list[dict]:
    """One `larik -p` turn (continuing the latest session); its stream-json events."""
    model = write_script(tmp_path / f"{name}.json", *steps, {"text": f"{name} done"})
    argv = ["-p", name, "-m", model, "--permission-mode", "yolo", "--output-format", "stream-json"]
    code, out, err = larik(*argv, *(["--continue"] if resume else []))
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def four_turns(tmp_path: Path) -> list[list[dict]]:
    return [
        turn(tmp_path, "t1", call("write_file", path="new.txt", content="new\n"), resume=False),
        turn(tmp_path, "t2", READ, call("write_file", path="calc.py", content="overwritten\n")),
        turn(
            tmp_path,
            "t3",
            READ,
            call("edit_file", path="calc.py", old_string="over", new_string="re"),
        ),
        turn(tmp_path, "t4", call("bash", command="rm keep.txt && echo made > made.txt")),
    ]


def session_file() -> Path:
    return list_sessions(Path.cwd())[0].path


def test_stream_json_shows_the_checkpoint_ids_and_the_files_each_turn_changed(project, tmp_path):
    events = turn(tmp_path, "t1", call("write_file", path="new.txt", content="x"), resume=False)
    cps = [e for e in events if e["type"] == "checkpoint"]
    assert len(cps) == 2 and cps[0]["data"]["turn"] == 1
    assert cps[0]["data"]["checkpoint"] == cps[1]["data"]["checkpoint"]
    assert len(cps[0]["data"]["checkpoint"]) == 40
    assert cps[1]["data"]["files"] == ["new.txt"] and cps[1]["data"]["done"] is True
    types = [e["type"] for e in events]
    assert types.index("tool_start") < types.index("checkpoint") < types.index("tool_end")


def test_undo_walks_back_bash_edit_overwrite_and_new_file_one_turn_at_a_time(project, tmp_path):
    git_state = tree_digest(project / ".git")
    four_turns(tmp_path)
    assert (project / "calc.py").read_text() == "rewritten\n"
    assert not (project / "keep.txt").exists() and (project / "made.txt").exists()

    code, out, err = larik("undo")
    assert code == 0, err
    assert "took back turn 4" in out and "keep.txt" in out and "made.txt" in out
    assert (project / "keep.txt").read_text() == "keep me\n" and not (project / "made.txt").exists()
    assert larik("undo")[0] == 0  # turn 3: the edit
    assert (project / "calc.py").read_text() == "overwritten\n"
    assert larik("undo")[0] == 0  # turn 2: the overwrite
    assert (project / "calc.py").read_text() == ORIGINAL
    code, out, _ = larik("undo", "--json")  # turn 1: the new file
    assert json.loads(out)["removed"] == ["new.txt"] and not (project / "new.txt").exists()
    code, _, err = larik("undo")
    assert code == 1 and "no file changes to take back" in err
    assert tree_digest(project / ".git") == git_state
    assert git(project, "status", "--porcelain") == ""


def test_rewind_lists_the_turns_with_their_files(project, tmp_path):
    four_turns(tmp_path)
    code, out, _ = larik("rewind")
    assert code == 0
    lines = out.splitlines()
    assert "t1" in lines[1] and "new.txt" in lines[1]
    assert "t4" in lines[4] and "keep.txt, made.txt" in lines[4]
    rows = json.loads(larik("rewind", "--json")[1])["turns"]
    assert [r["turn"] for r in rows] == [1, 2, 3, 4] and rows[2]["files"] == ["calc.py"]
    assert all(r["at"] and len(r["checkpoint"]) == 40 for r in rows)


def test_rewind_code_only_restores_the_files_and_keeps_the_conversation(project, tmp_path):
    four_turns(tmp_path)
    path = session_file()
    messages = len(load_transcript(path).messages)
    code, out, err = larik("rewind", "2", "--code")
    assert code == 0, err
    assert (project / "calc.py").read_text() == ORIGINAL
    assert (project / "new.txt").exists()  # turn 1 stays
    assert (project / "keep.txt").exists() and not (project / "made.txt").exists()
    assert len(list_sessions(project)) == 1
    loaded = load_transcript(path)
    assert len(loaded.messages) == messages
    assert loaded.records[-1]["kind"] == "undo" and loaded.records[-1]["turns"] == [4, 3, 2]


def test_rewind_conversation_only_is_a_fork_and_leaves_files_and_original_alone(project, tmp_path):
    four_turns(tmp_path)
    path = session_file()
    before = path.read_bytes()
    files = tree_digest(project)
    code, out, err = larik("rewind", "3", "--conversation", "--json")
    assert code == 0, err
    new_id = json.loads(out)["session_id"]
    assert path.read_bytes() == before and tree_digest(project) == files
    forked = load_transcript(path.with_name(f"{new_id}.jsonl"))
    prompts = [m.text() for m in forked.messages if m.role == "user" and m.text()]
    assert prompts == ["t1", "t2"]


def test_rewind_both_restores_the_code_and_forks_the_conversation(project, tmp_path):
    four_turns(tmp_path)
    path = session_file()
    code, out, err = larik("rewind", "2")
    assert code == 0, err
    assert (project / "calc.py").read_text() == ORIGINAL and (project / "new.txt").exists()
    assert "conversation: new session" in out
    new_id = out.split("new session ")[1].split(",")[0]
    events = turn(tmp_path, "again", call("write_file", path="again.txt", content="a"))
    assert [e for e in events if e["type"] == "result"][0]["session_id"] != path.stem
    forked = load_transcript(path.with_name(f"{new_id}.jsonl"))
    prompts = [m.text() for m in forked.messages if m.role == "user" and m.text()]
    assert prompts == ["t1", "again"]


def test_a_file_changed_by_the_user_is_not_overwritten_without_being_asked(project, tmp_path):
    turn(tmp_path, "t1", READ, call("write_file", path="calc.py", content="agent\n"), resume=False)
    (project / "calc.py").write_text("my own fix\n")
    code, _, err = larik("undo")
    assert code == 1 and "calc.py" in err and "nothing was written" in err
    assert (project / "calc.py").read_text() == "my own fix\n"
    code, out, _ = larik("undo", "--keep", "--json")
    assert json.loads(out)["kept"] == ["calc.py"]
    assert (project / "calc.py").read_text() == "my own fix\n"


def test_force_overwrites_the_users_change(project, tmp_path):
    turn(tmp_path, "t1", READ, call("write_file", path="calc.py", content="agent\n"), resume=False)
    (project / "calc.py").write_text("my own fix\n")
    assert larik("undo", "--force")[0] == 0
    assert (project / "calc.py").read_text() == ORIGINAL


def test_resume_fork_goes_on_in_a_new_session_and_the_original_is_byte_identical(project, tmp_path):
    turn(tmp_path, "t1", call("write_file", path="a.txt", content="a"), resume=False)
    path = session_file()
    before = path.read_bytes()
    model = write_script(tmp_path / "f.json", {"text": "forked reply"})
    code, out, err = larik(
        "-p", "more", "-m", model, "-r", path.stem, "--fork", "--output-format", "json"
    )
    assert code == 0, err
    result = json.loads(out)
    assert result["session_id"] != path.stem and "forked session" in err
    assert path.read_bytes() == before
    forked = load_transcript(path.with_name(f"{result['session_id']}.jsonl"))
    assert [m.text() for m in forked.messages][0] == "t1"
    assert forked.header["forked_from"]["session"] == path.stem


def test_fork_without_a_session_and_bad_turns_are_one_line_errors(project, tmp_path):
    code, _, err = larik("-p", "x", "--fork")
    assert code == 2 and err.strip() == "larik: --fork needs --resume ID or --continue"
    turn(tmp_path, "t1", call("write_file", path="a.txt", content="a"), resume=False)
    code, _, err = larik("rewind", "9")
    assert code == 2 and "no turn 9" in err and "Traceback" not in err
    code, _, err = larik("undo", "-r", "../../etc/passwd")
    assert code == 2 and "Traceback" not in err


def test_larik_undo_removes_what_a_turn_hid_behind_a_gitignore_it_wrote(project, tmp_path):
    """The reproduction of issue 22 item 13: the turn writes `*` into a new .gitignore and
    plants a sitecustomize.py; `larik undo` must take back both."""
    start = tree_digest(project)
    plant = "printf '*\\n' > .gitignore && echo 'import os' > sitecustomize.py"
    turn(tmp_path, "t1", call("bash", command=plant), resume=False)
    assert (project / "sitecustomize.py").exists()
    code, out, err = larik("undo", "--json")
    assert code == 0, err
    assert set(json.loads(out)["removed"]) == {".gitignore", "sitecustomize.py"}
    assert tree_digest(project) == start
