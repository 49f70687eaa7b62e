"""The verify step that costs nothing: a finished turn that changed files says whether the test
command the model ran afterwards passed, or that nothing checked the change."""

from __future__ import annotations

import pytest

from larik.agent.verify import TEST_COMMAND

from .conftest import E, of, run, script

READ = {"name": "read_file", "input": {"path": "calc.py"}}
FIX = {
    "name": "edit_file",
    "input": {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"},
}
PASS = {"name": "bash", "input": {"command": "python -m pytest -q test_calc.py"}}
CHECK = "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def turns(*calls, text="Fixed add."):
    return script(*({"tool_calls": [c]} for c in calls), {"text": text})


async def finish(make_agent, project, *calls, text="Fixed add."):
    (project / "test_calc.py").write_text(CHECK)
    events = await run(await make_agent(turns(*calls, text=text)))
    return of(events, E.TURN_END)[0], [n.text for n in of(events, E.NOTICE)]


async def test_tests_run_after_the_edit_and_passing_are_named_in_the_answer(make_agent, project):
    end, notes = await finish(make_agent, project, READ, FIX, PASS)
    assert (
        end.text
        == "Fixed add.\n\n[checked: `python -m pytest -q test_calc.py` passed after the last edit]"
    )
    assert end.data["verify"]["passed"] is True and end.data["verify"]["edited"] == ["calc.py"]
    assert any(n.startswith("[checked:") for n in notes)


async def test_a_failing_run_says_failed_with_its_exit_code(make_agent, project):
    wrong = dict(FIX, input={**FIX["input"], "new_string": "a * b"})
    end, _ = await finish(make_agent, project, READ, wrong, PASS)
    assert "failed (exit code 1) after the last edit]" in end.text
    assert end.data["verify"]["passed"] is False


async def test_an_edit_after_the_last_test_run_is_not_called_checked(make_agent, project):
    again = {
        "name": "edit_file",
        "input": {"path": "calc.py", "old_string": "a + b", "new_string": "b + a"},
    }
    end, _ = await finish(make_agent, project, READ, FIX, PASS, again)
    assert (
        "[not checked since the last edit: `python -m pytest -q test_calc.py` last ran before it]"
        in end.text
    )
    assert end.data["verify"]["after_last_edit"] is False


async def test_editing_and_running_nothing_says_so_in_the_final_notice(make_agent, project):
    end, notes = await finish(make_agent, project, READ, FIX)
    assert end.text == "Fixed add." and "changed calc.py and ran nothing to check them" in notes
    assert end.data["verify"]["ran_anything"] is False


async def test_a_turn_without_edits_says_nothing(make_agent, project):
    end, notes = await finish(make_agent, project, READ, PASS, text="All good.")
    assert end.text == "All good." and "verify" not in end.data
    assert not any("check" in n for n in notes)


async def test_other_commands_are_not_taken_for_tests(make_agent, project):
    end, notes = await finish(
        make_agent,
        project,
        READ,
        FIX,
        {"name": "bash", "input": {"command": "echo pytest-ish; ls"}},
    )
    assert end.text == "Fixed add." and not any("ran nothing" in n for n in notes)


@pytest.mark.parametrize(
    ("command", "is_test"),
    [
        ("pytest", True),
        ("cd sub && python3 -m pytest -x tests/", True),
        ("npm run test -- --watch=false", True),
        ("go test ./...", True),
        ("cargo test", True),
        ("make check", True),
        ("./gradlew test", True),
        ("echo pytest-like", False),
        ("cat pytest.ini", False),
        ("pip install pytest-cov", False),
        ("python app.py", False),
    ],
)
def test_what_counts_as_a_test_command(command, is_test):
    assert bool(TEST_COMMAND.search(command)) is is_test


def test_the_files_changed_are_named_and_many_are_counted():
    from larik.agent.verify import named_files

    assert named_files(["a.py"]) == "a.py"
    assert named_files(["a.py", "b.py", "c.py"]) == "a.py, b.py and c.py"
    assert named_files([f"{n}.py" for n in "abcde"]) == "5 files (a.py, b.py, c.py, …)"
    assert named_files(["d/" * 40 + "name.py"]).endswith("/d/name.py")
