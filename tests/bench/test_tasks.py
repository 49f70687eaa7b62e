"""Bench tasks prove themselves, and the check cannot be cheated by editing the tests."""

from pathlib import Path

import pytest

from larik.bench.tasks import load_tasks, prepare_workdir, run_check, select_tasks, validate_task
from larik.llm.errors import ConfigError

TASKS = load_tasks()
BY_NAME = {t.name: t for t in TASKS}


def test_there_are_at_least_ten_tasks_across_difficulties_including_the_seeds():
    assert len(TASKS) >= 10
    assert {t.spec.difficulty for t in TASKS} == {"easy", "medium", "hard"}
    assert {"fix-failing-test", "implement-stub", "rename-across-files"} <= set(BY_NAME)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_task_validates_repo_fails_and_solution_passes(task):
    assert validate_task(task) == []


def _solved(tmp_path: Path, name: str) -> tuple:
    task = BY_NAME[name]
    return task, prepare_workdir(task, tmp_path / "w", with_solution=True)


def _unsolved(tmp_path: Path, name: str) -> tuple:
    task = BY_NAME[name]
    return task, prepare_workdir(task, tmp_path / "w")


def test_deleting_the_tests_does_not_pass(tmp_path):
    task, work = _unsolved(tmp_path, "fix-failing-test")
    for p in (work / "tests").glob("*.py"):
        p.unlink()
    assert not run_check(task, work).passed


def test_editing_the_tests_does_not_pass(tmp_path):
    task, work = _unsolved(tmp_path, "fix-failing-test")
    (work / "tests" / "test_stats.py").write_text("def test_ok():\n    assert True\n")
    assert not run_check(task, work).passed


def test_a_conftest_that_skips_everything_does_not_pass(tmp_path):
    task, work = _unsolved(tmp_path, "fix-failing-test")
    (work / "conftest.py").write_text(
        "import pytest\n\ndef pytest_collection_modifyitems(items):\n"
        "    for i in items:\n        i.add_marker(pytest.mark.skip)\n"
    )
    (work / "tests" / "conftest.py").write_text((work / "conftest.py").read_text())
    assert not run_check(task, work).passed


def test_pytest_settings_and_a_shadow_pytest_do_not_pass(tmp_path):
    task, work = _unsolved(tmp_path, "fix-failing-test")
    (work / "pytest.ini").write_text("[pytest]\naddopts = --co\n")
    (work / "setup.cfg").write_text("[tool:pytest]\naddopts = --co\n")
    (work / "pytest.py").write_text("import sys\nsys.exit(0)\n")
    assert not run_check(task, work).passed


def test_the_real_fix_passes_even_with_junk_left_behind(tmp_path):
    task, work = _solved(tmp_path, "fix-failing-test")
    (work / "notes.txt").write_text("scratch")
    assert run_check(task, work).passed


def test_select_by_name_and_tag_and_unknown_is_an_error():
    assert [t.name for t in select_tasks(TASKS, ["implement-stub"])] == ["implement-stub"]
    assert len(select_tasks(TASKS, ["seed"])) == 3
    with pytest.raises(ConfigError, match="no-such-task"):
        select_tasks(TASKS, ["no-such-task"])


def test_a_broken_task_file_is_one_clear_error(tmp_path):
    bad = tmp_path / "broken"
    for part in ("repo", "check", "solution"):
        (bad / part).mkdir(parents=True)
    (bad / "task.toml").write_text(
        'name = "broken"\nsummary = "x"\nprompt = "y"\ndifficulty = "trivial"\n'
    )
    with pytest.raises(ConfigError, match="task.toml: difficulty"):
        load_tasks(tmp_path)
