"""Bench tasks: loading, preparing a throwaway copy, and the check that grades it.

A task is a folder (see docs/bench.md)::

    task.toml   name, summary, prompt, time_limit, max_turns, difficulty, tags
    repo/       the starting project
    check/      the tests that grade it, copied over the finished work *after* the agent stops
    solution/   a reference change (files laid over repo/) that passes the check

The check is pytest, never another model. It is hardened against a model that "passes" by
editing the tests: check files overwrite whatever the agent left at those paths, conftest
files and pytest settings the agent added are ignored, and so are modules that would shadow
pytest itself.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..llm.errors import ConfigError
from . import confine

__all__ = [
    "CheckResult",
    "Task",
    "load_tasks",
    "prepare_workdir",
    "run_check",
    "select_tasks",
    "tasks_root",
    "validate_task",
]

_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
_SHADOWS = ("pytest.py", "_pytest", "py.py", "pluggy", "sitecustomize.py", "usercustomize.py")
_PYTEST_CONFIGS = ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg")


class TaskSpec(BaseModel):
    """The contents of task.toml."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Unique task name; matches the folder name.")
    summary: str = Field(description="One line saying what the task asks.")
    prompt: str = Field(description="What the agent is told.")
    time_limit: float = Field(300, gt=0, description="Wall-clock seconds for the agent.")
    max_turns: int = Field(40, gt=0, description="Model calls the agent may make.")
    difficulty: Literal["easy", "medium", "hard"] = "medium"
    tags: list[str] = Field(default_factory=list)
    tries: int = Field(
        1, ge=1, le=2, description="Attempts: 2 shows the check's failures once (Aider's protocol)."
    )
    files: list[str] = Field(default_factory=list, description="The files a retry names.")


@dataclass(frozen=True)
class Task:
    spec: TaskSpec
    path: Path

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def repo(self) -> Path:
        return self.path / "repo"

    @property
    def check(self) -> Path:
        return self.path / "check"

    @property
    def solution(self) -> Path:
        return self.path / "solution"

    def check_files(self) -> list[str]:
        return sorted(
            str(p.relative_to(self.check))
            for p in self.check.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        )


OUTPUT_TAIL = 20_000  # characters of pytest's output kept (a suite's retry shows them)


@dataclass(frozen=True)
class CheckResult:
    passed: bool
    output: str  # the tail of pytest's output
    seconds: float
    timed_out: bool = False


def tasks_root() -> Path:
    """``$LARIK_BENCH_TASKS``, else the checkout's bench_tasks/, else the copy in the package."""
    env = os.environ.get("LARIK_BENCH_TASKS")
    if env:
        return Path(env)
    here = Path(__file__).resolve()
    checkout = here.parents[2] / "bench_tasks"
    if checkout.is_dir():
        return checkout
    return here.parents[1] / "_bench_tasks"


def load_tasks(root: Path | None = None) -> list[Task]:
    root = root or tasks_root()
    if not root.is_dir():
        raise ConfigError(f"{root}: no bench tasks folder")
    tasks = []
    for toml_path in sorted(root.glob("*/task.toml")):
        try:
            data = tomllib.loads(toml_path.read_text(encoding="utf-8"))
            spec = TaskSpec.model_validate(data)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{toml_path}: {e}") from None
        except ValidationError as e:
            err = e.errors()[0]
            key = ".".join(str(x) for x in err["loc"])
            raise ConfigError(f"{toml_path}: {key}: {err['msg']}") from None
        folder = toml_path.parent
        if spec.name != folder.name:
            raise ConfigError(f"{toml_path}: name {spec.name!r} must match its folder")
        for part in ("repo", "check", "solution"):
            if not (folder / part).is_dir():
                raise ConfigError(f"{folder}: missing {part}/")
        tasks.append(Task(spec, folder))
    return tasks


def select_tasks(tasks: list[Task], wanted: list[str]) -> list[Task]:
    """Tasks whose name or tag is in ``wanted`` (all when empty); unknown names are an error."""
    if not wanted:
        return tasks
    chosen = [t for t in tasks if t.name in wanted or set(t.spec.tags) & set(wanted)]
    known = {t.name for t in tasks} | {tag for t in tasks for tag in t.spec.tags}
    unknown = [w for w in wanted if w not in known]
    if unknown:
        raise ConfigError(f"unknown bench task or tag: {', '.join(unknown)}")
    return chosen


def prepare_workdir(task: Task, dest: Path | None = None, *, with_solution: bool = False) -> Path:
    """A fresh copy of the task's repo (optionally with the reference solution laid over)."""
    dest = dest or Path(tempfile.mkdtemp(prefix=f"larik-bench-{task.name}-"))
    shutil.copytree(task.repo, dest, dirs_exist_ok=True, ignore=_IGNORE)
    if with_solution:
        shutil.copytree(task.solution, dest, dirs_exist_ok=True, ignore=_IGNORE)
    return dest


def run_check(task: Task, workdir: Path, timeout: float = 120.0) -> CheckResult:
    """Lay the check files over ``workdir`` and run them with pytest. Never trusts the workdir's
    own test setup; runs as the agent's commands do (:mod:`.confine`: sandboxed, no
    credentials, every process it started ended after)."""
    original = {str(p.relative_to(task.repo)) for p in task.repo.rglob("*") if p.is_file()}
    from_check = set(task.check_files())
    for p in list(workdir.rglob("conftest.py")):
        rel = str(p.relative_to(workdir))
        if rel not in from_check and rel not in original:
            p.unlink()
    for name in _SHADOWS + _PYTEST_CONFIGS:
        target = workdir / name
        if name in original:
            continue
        if target.is_dir():
            shutil.rmtree(target, ignore_errors=True)
        elif target.exists():
            target.unlink()
    shutil.copytree(task.check, workdir, dirs_exist_ok=True, ignore=_IGNORE)
    tests = [f for f in task.check_files() if _is_test(f)]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHON"))}
    env["PYTHONPATH"] = str(workdir)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # plain pytest: no plugins from the venv
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    cmd += ["-c", os.devnull, "--rootdir", str(workdir), *tests]  # no settings but ours
    start = time.monotonic()
    ran = confine.run(cmd, workdir, env, timeout)  # sandboxed, no credentials, nothing left
    if ran.timed_out:
        return CheckResult(False, f"check timed out after {timeout:g}s", timeout, True)
    text = ran.output.strip()
    return CheckResult(ran.code == 0, text[-OUTPUT_TAIL:], time.monotonic() - start)


def _is_test(rel: str) -> bool:
    """pytest's own file names: test_*.py (our tasks) and *_test.py (Exercism's)."""
    name = Path(rel).name
    return name.endswith(".py") and (name.startswith("test") or name.endswith("_test.py"))


def validate_task(task: Task) -> list[str]:
    """Problems with a task: the untouched repo must fail its check, the solution must pass."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="larik-validate-") as tmp:
        base = prepare_workdir(task, Path(tmp) / "repo")
        if run_check(task, base).passed:
            problems.append(f"{task.name}: the untouched repo already passes its check")
        solved = prepare_workdir(task, Path(tmp) / "solved", with_solution=True)
        result = run_check(task, solved)
        if not result.passed:
            last = result.output.splitlines()[-1] if result.output else "no output"
            problems.append(f"{task.name}: the reference solution fails its check ({last})")
    return problems
