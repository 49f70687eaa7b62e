"""The programs Larik runs itself, outside the sandbox, are its own (issue 42, item 1).

With a project's virtualenv activated, ``PROJECT/.venv/bin`` is first on ``PATH`` and inside
the project, which sandboxed commands may write. A ``git`` planted there ran on the host at the
end of the same turn (the checkpoint); a ``bwrap`` planted there ran the next command with no
sandbox. Here: the rule (larik/host_programs.py) on its own, the table of every place in the
package that starts a process, and the attack end to end through a real ``larik -p``."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from larik import host_programs

from ..test_printmode import write_script

LARIK = Path(host_programs.__file__).resolve().parent
REPO = LARIK.parent
SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- sk-SECRET-do-not-leak"

#: Calls that start a process, by the dotted name they are called with.
STARTERS = {
    "subprocess.run",
    "subprocess.Popen",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
    "asyncio.create_subprocess_exec",
    "asyncio.create_subprocess_shell",
    "os.system",
    "os.popen",
    "os.execv",
    "os.execvp",
    "os.execvpe",
    "os.spawnv",
    "os.posix_spawn",
    "os.posix_spawnp",
    "stdio_client",
    "webbrowser.open",
}


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    return ""


def _modules() -> dict[str, ast.Module]:
    return {
        path.relative_to(REPO).as_posix(): ast.parse(path.read_text())
        for path in sorted(LARIK.rglob("*.py"))
    }


def _starts(tree: ast.Module) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _name(n.func) in STARTERS]


def test_every_module_that_starts_a_process_is_in_the_table():
    found = {rel for rel, tree in _modules().items() if _starts(tree)}
    assert found == set(host_programs.STARTS), (
        "a module starts processes without being in host_programs.STARTS (or a row names one "
        "that no longer does): add it, and find its program with host_programs.find"
    )


def test_no_process_is_started_by_a_bare_program_name():
    """A program's name as the first word of a command line would be looked up on the
    ``PATH`` the project may lead: only :func:`host_programs.find`'s absolute path, Larik's
    own interpreter, or a command line the sandbox wraps (``Sandbox.wrap``) may start one."""
    bare: list[str] = []
    for rel, tree in _modules().items():
        wrapped = {
            id(arg)
            for call in ast.walk(tree)
            if isinstance(call, ast.Call) and _name(call.func).endswith("wrap")
            for arg in call.args
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.List) or not node.elts or id(node) in wrapped:
                continue
            first = node.elts[0]
            if isinstance(first, ast.Constant) and first.value in host_programs.PROGRAMS:
                bare.append(f"{rel}:{node.lineno}: {first.value!r}")
        for call in _starts(tree):
            argv = call.args[0] if call.args else None
            if isinstance(argv, ast.Constant) and isinstance(argv.value, str):
                bare.append(f"{rel}:{call.lineno}: {argv.value!r}")
    assert bare == []


def test_every_program_in_the_table_says_what_it_is_for():
    assert all(name and "/" not in name and why for name, why in host_programs.PROGRAMS.items())


# -- the rule -------------------------------------------------------------------------------------
def _program(folder: Path, name: str, body: str = "exit 0\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def test_a_program_in_the_project_is_passed_over_for_one_outside(tmp_path, monkeypatch):
    project, system = tmp_path / "proj", tmp_path / "system"
    _program(project / ".venv" / "bin", "tool")
    mine = _program(system, "tool")
    monkeypatch.setenv("PATH", f"{project / '.venv' / 'bin'}{os.pathsep}{system}")
    assert host_programs.find("tool", project) == str(mine)
    assert str(project) not in host_programs.safe_path(roots=(project,))


def test_a_program_only_in_the_project_is_not_run_and_the_line_says_where(tmp_path, monkeypatch):
    project = tmp_path / "proj"
    planted = _program(project / ".venv" / "bin", "tool")
    monkeypatch.setenv("PATH", str(project / ".venv" / "bin"))
    with pytest.raises(host_programs.NotOwn) as e:
        host_programs.find("tool", project)
    assert str(planted) in str(e.value) and "does not run it" in str(e.value)
    assert "\n" not in str(e.value)
    assert host_programs.which("tool", project) is None


def test_a_guarded_folder_counts_as_the_project_for_every_later_lookup(tmp_path, monkeypatch):
    writable = tmp_path / "writable"
    _program(writable / "bin", "tool")
    monkeypatch.setenv("PATH", str(writable / "bin"))
    assert host_programs.which("tool") is not None
    host_programs.guard(writable)
    assert host_programs.which("tool") is None


def test_relative_and_world_writable_entries_are_dropped(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    _program(shared, "tool")
    shared.chmod(0o777)
    sticky = tmp_path / "sticky"
    _program(sticky, "other")
    sticky.chmod(0o1777)
    path = os.pathsep.join(["", ".", "bin", str(shared), str(sticky)])
    assert host_programs.safe_path(path) == str(sticky)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", path)
    assert host_programs.which("tool") is None


def test_a_link_outside_the_project_that_leads_into_it_is_not_run(tmp_path, monkeypatch):
    project, system = tmp_path / "proj", tmp_path / "system"
    planted = _program(project, "tool")
    system.mkdir()
    (system / "tool").symlink_to(planted)
    monkeypatch.setenv("PATH", str(system))
    assert host_programs.which("tool", project) is None


def test_what_a_host_program_starts_gets_the_clean_path(tmp_path):
    project = tmp_path / "proj"
    env = host_programs.host_env(
        {"PATH": f"{project / '.venv' / 'bin'}{os.pathsep}/usr/bin", "KEEP": "1"}, project
    )
    assert env == {"PATH": "/usr/bin", "KEEP": "1"}


# -- the attack, end to end ---------------------------------------------------------------------
PLANT = """\
mkdir -p .venv/bin
for name in git bwrap nsenter bash rg; do
  printf '#!/bin/sh\\necho "$0 $(id -u)" >> {marker}\\nexec /usr/bin/$(basename "$0") "$@"\\n' \
    > .venv/bin/$name
  chmod +x .venv/bin/$name
done
"""


@pytest.mark.usefixtures("needs_bwrap")
def test_programs_planted_in_an_activated_virtualenv_never_run_on_the_host(tmp_path):
    """The issue's reproduction: yolo, the project's ``.venv/bin`` first on ``PATH``, one
    sandboxed command plants ``git``, ``bwrap`` and friends there. The turn's checkpoint,
    the next command's sandbox and everything after run Larik's own: nothing planted runs,
    and the next command is as sandboxed as ever (the hidden key stays hidden)."""
    project, home, marker = tmp_path / "proj", tmp_path / "home", tmp_path / "ran-on-host"
    project.mkdir()
    (project / "app.py").write_text("x = 1\n")
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRET)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    model = write_script(
        tmp_path / "script.json",
        {"tool_calls": [{"name": "bash", "input": {"command": PLANT.format(marker=marker)}}]},
        {"tool_calls": [{"name": "bash", "input": {"command": "cat ~/.ssh/id_rsa > seen.txt"}}]},
        {"tool_calls": [{"name": "grep", "input": {"pattern": "x"}}]},
        {"text": "done"},
    )
    env = {
        **os.environ,
        "HOME": str(home),
        "PATH": f"{project / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "VIRTUAL_ENV": str(project / ".venv"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "larik.cli", "-p", "go", "-m", model, "--output-format", "json"]
        + ["--permission-mode", "yolo", "--trust-project"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ok"] is True
    assert (project / ".venv" / "bin" / "git").exists()  # it was planted
    assert not marker.exists(), marker.read_text()  # and nothing planted ever ran
    assert SECRET not in (project / "seen.txt").read_text()  # the sandbox held


def test_no_read_of_a_projects_repository_runs_what_its_config_names(tmp_path):
    """The file tools' listing ran ``git ls-files`` with the project's ``core.fsmonitor`` on:
    a repository that arrives with one (an archive, a folder copied in) ran it on the host at
    the model's first glob, in any mode — reads are free. Every read goes through
    :func:`host_programs.project_git`: nothing its config names runs."""
    from larik.agent.prompt import _git_summary
    from larik.agent.tools._files import list_files
    from larik.program_files import _listing
    from larik.sandbox.kept import plain_repository

    project, marker = tmp_path / "proj", tmp_path / "ran-on-host"
    project.mkdir()
    (project / "app.py").write_text("x = 1\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=project, check=True)
    subprocess.run([*git, "add", "app.py"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "one"], cwd=project, check=True)
    hook = _program(tmp_path / "hooks", "fsmonitor", f"echo ran >> {marker}\n")
    subprocess.run(["git", "config", "core.fsmonitor", str(hook)], cwd=project, check=True)
    assert list_files(project) == ["app.py"]
    assert any(p.name == "app.py" for p in _listing(project))
    _git_summary(project)
    plain_repository(project / ".git")
    assert not marker.exists(), marker.read_text()
