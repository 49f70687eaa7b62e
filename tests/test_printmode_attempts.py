"""``larik -p … --attempts N`` (issue 24 item 6): independent tries from the same files, each in
its own session, the first whose check passes kept. Scripted model, real git (the snapshot),
real files, real bash and pytest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from larik.agent.transcript import load_transcript

from .test_printmode import larik, write_script

TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def edit(old: str, new: str) -> dict:
    return {"name": "edit_file", "input": {"path": "calc.py", "old_string": old, "new_string": new}}


def call(name: str, **args: object) -> dict:
    return {"name": name, "input": args}


def try_(new: str, *extra: dict) -> list[dict]:
    """One try of the loop: read, edit ``a - b`` into ``new``, (extra calls), test, answer."""
    return [
        {"tool_calls": [call("read_file", path="calc.py")]},
        {"tool_calls": [edit("a - b", new), *extra]},
        {"tool_calls": [call("bash", command="python -m pytest -q")]},
        {"text": f"changed it to {new}"},
    ]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def tested(project: Path) -> Path:
    (project / "tests").mkdir()
    (project / "tests" / "test_calc.py").write_text(TEST)
    return project


def test_the_first_try_fails_the_second_passes_and_is_kept(tested, tmp_path):
    junk = call("write_file", path="junk.py", content="x = 1\n")
    model = write_script(tmp_path / "m.json", *try_("a * b", junk), *try_("a + b"))
    code, out, err = larik(
        "-p",
        "fix add",
        "-m",
        model,
        "--permission-mode",
        "yolo",
        "--attempts",
        "3",
        "--output-format",
        "json",
    )
    assert code == 0, err
    assert (tested / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert not (tested / "junk.py").exists()  # the first try's file went with its reset
    result = json.loads(out)
    first, second = result["attempts"]
    assert (first["passed"], second["passed"]) == (False, True)
    assert "the model's own `python -m pytest -q`" in second["check"]
    assert sorted(first["files"]) == ["calc.py", "junk.py"] and second["files"] == ["calc.py"]
    assert first["session_id"] != second["session_id"]  # each try its own transcript
    for a in (first, second):
        assert load_transcript(Path(a["transcript"])).messages
    assert "try 1 of 3: failed" in err and "try 2 of 3: passed" in err
    assert "kept try 2's changes" in err
    assert result["ok"] is True and result["text"].startswith("changed it to a + b")


def test_no_try_passing_exits_1_and_leaves_the_last_try(tested, tmp_path):
    model = write_script(tmp_path / "m.json", *try_("a * b"), *try_("a / b"))
    code, out, err = larik(
        "-p", "fix add", "-m", model, "--permission-mode", "yolo", "--attempts", "2"
    )
    assert code == 1
    assert "a / b" in (tested / "calc.py").read_text()
    assert "no try passed its check; the files are as try 2 left them" in err
    assert out.startswith("changed it to a / b")


def test_a_command_the_request_names_is_the_check(tested, tmp_path):
    """The model says it passed and ran nothing: the request's own command decides."""
    lie = [
        {"tool_calls": [call("read_file", path="calc.py")]},
        {"tool_calls": [edit("a - b", "a * b")]},
        {"text": "all tests pass"},
    ]
    model = write_script(tmp_path / "m.json", *lie, *try_("a + b"))
    code, out, err = larik(
        "-p",
        "fix add; check with `python -m pytest -q tests`",
        "-m",
        model,
        "--permission-mode",
        "yolo",
        "--attempts",
        "2",
        "--output-format",
        "json",
    )
    assert code == 0, err
    first, second = json.loads(out)["attempts"]
    assert first["passed"] is False and first["check"] == "`python -m pytest -q tests`"
    assert second["passed"] is True


def test_attempts_do_not_go_with_continue(project, tmp_path):
    model = write_script(tmp_path / "m.json", {"text": "hi"})
    code, _, err = larik("-p", "x", "-m", model, "--attempts", "2", "--continue")
    assert code == 2 and "does not go with --continue" in err


def test_the_request_s_examples_tell_tries_apart_when_the_tests_cannot(project, tmp_path):
    """The project's test passes before any change, and after either try: the docstring's
    example of the function the request names is what fails try 1 and passes try 2."""
    (project / "calc.py").write_text(
        'def add(a, b):\n    """The sum.\n\n    >>> add(2, 3)\n    5\n    """\n    return a - b\n'
    )
    (project / "tests").mkdir()
    (project / "tests" / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_there():\n    assert callable(add)\n"
    )
    model = write_script(tmp_path / "m.json", *try_("a * b"), *try_("a + b"))
    code, out, err = larik(
        "-p",
        "`calc.add` is wrong: make it do what its docstring says",
        "-m",
        model,
        "--permission-mode",
        "yolo",
        "--attempts",
        "2",
        "--output-format",
        "json",
    )
    assert code == 0, err
    first, second = json.loads(out)["attempts"]
    doctest = "`python -m pytest -q --tb=short --doctest-modules calc.py`"
    assert first["passed"] is False and first["check"] == doctest
    assert second["passed"] is True
    assert second["check"] == f"the model's own `python -m pytest -q` and {doctest}"
    assert "return a + b" in (project / "calc.py").read_text()
